"""The agent tools as each framework presents them to the model: the same description and the same
argument descriptions everywhere.

Each schema is read where the framework produces it: LangChain's ``convert_to_openai_tool`` (what
its chat models send), the ``ToolDefinition``s a PydanticAI agent hands its model, and the tool
list an MCP client receives from the server.
"""

from __future__ import annotations

from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool
from mcp import Client
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from ctxsieve import ContextEngine, StaticSource
from ctxsieve.integrations.langchain import langchain_tools
from ctxsieve.integrations.mcp import mcp_server
from ctxsieve.integrations.pydantic_ai import pydantic_ai_tools
from ctxsieve.loop import MemoryToolkit, Offloader, SessionHistory

NAMES = [
    "ctx_read",
    "ctx_grep",
    "ctx_query",
    "session_search",
    "memory_add",
    "memory_search",
    "memory_remove",
    "build_context",
]

# what a tool looks like to the model: its description, then per argument its description (or
# None when it has none), whether it is required, and its JSON type
Shape = tuple[str, dict[str, tuple[Any, bool, Any]]]


def shape(description: str | None, schema: dict[str, Any]) -> Shape:
    required = set(schema.get("required", ()))
    args = {
        name: (prop.get("description"), name in required, prop.get("type") or prop.get("anyOf"))
        for name, prop in schema["properties"].items()
    }
    return description or "", args


def helpers(store: Any) -> tuple[Offloader, SessionHistory, MemoryToolkit, ContextEngine]:
    engine = ContextEngine([StaticSource("Refunds take 30 days.", name="kb", kind="knowledge")], budget=200)
    return Offloader(store), SessionHistory(store, "s"), MemoryToolkit(store), engine


def langchain_shapes(store: Any) -> dict[str, Shape]:
    off, history, memory, engine = helpers(store)
    out = {}
    for tool in langchain_tools(off, history, memory, engine=engine):
        fn = convert_to_openai_tool(tool)["function"]
        out[fn["name"]] = shape(fn["description"], fn["parameters"])
    return out


async def pydantic_ai_shapes(store: Any) -> dict[str, Shape]:
    off, history, memory, engine = helpers(store)
    sent: list[Any] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.extend(info.function_tools)
        return ModelResponse([TextPart("ok")])

    await Agent(FunctionModel(model), tools=pydantic_ai_tools(off, history, memory, engine=engine)).run("go")
    return {t.name: shape(t.description, t.parameters_json_schema) for t in sent}


async def mcp_shapes(store: Any) -> dict[str, Shape]:
    off, history, memory, engine = helpers(store)
    async with Client(mcp_server(engine, offloader=off, history=history, memory=memory)) as client:
        tools = (await client.list_tools()).tools
    return {t.name: shape(t.description, t.input_schema) for t in tools}


async def test_every_framework_presents_the_same_described_tools(store: Any) -> None:
    lc, pai, mcp = langchain_shapes(store), await pydantic_ai_shapes(store), await mcp_shapes(store)
    assert list(lc) == list(pai) == list(mcp) == NAMES
    for name in NAMES:
        assert lc[name] == pai[name] == mcp[name], name
        description, args = lc[name]
        # one clean paragraph: no docstring indentation, no Args section, no line breaks
        assert description and "\n" not in description and "  " not in description, (name, description)
        assert "Args:" not in description and "``" not in description, (name, description)
        assert description.endswith('or a line starting with "error:".'), (name, description)
        for arg, (text, _, _) in args.items():
            assert text and "\n" not in text and "  " not in text and "``" not in text, (name, arg, text)
    # the words are the docstrings' (the summary and what the tool returns, in one paragraph)
    description, args = lc["ctx_read"]
    assert description == (
        'Read lines, or characters, of an offloaded tool result. Returns the lines as "N: text" (or the'
        " characters as they are), with a header giving the range and the total, or a line starting with"
        ' "error:".'
    )
    assert args == {
        "handle": ("the handle from the offload notice (ctx_ followed by 32 hex digits).", True, "string"),
        "offset": (
            "0-based number of the first line to read (ctx_grep prints these numbers), or with"
            ' unit="chars" of the first character of the whole text.',
            False,
            "integer",
        ),
        "limit": (
            "how many lines to read (1-2000; long lines are clipped, saying where to read on), or with"
            ' unit="chars" how many characters (1-1000000); a read stops early at the read limit, saying'
            " where to continue.",
            False,
            "integer",
        ),
        "unit": (
            '"lines" (the default) or "chars": characters are returned exactly as stored, newlines included,'
            " so a long line is read in pieces and joining the pieces gives the text back.",
            False,
            "string",
        ),
    }
    # ctx_query (issue 14 item 7): the path subset is described where the model reads it
    description, args = lc["ctx_query"]
    assert description.startswith("Select values of an offloaded JSON tool result by a JSONPath expression.")
    assert list(args) == ["handle", "path", "offset", "limit"]
    assert args["path"][1:] == (True, "string") and "no filters [?...]" in args["path"][0]
    assert "..name" in args["path"][0] and "[0:10]" in args["path"][0] and "['any name']" in args["path"][0]
    assert lc["build_context"][1] == {"query": ("the question or topic, in plain words.", True, "string")}
    assert set(lc["memory_add"][1]) == {"text", "tags", "audience"}
