"""Every integration serves a signed-in reader when given ``reader=``, and only an anonymous one
(public content only) without it: through the real frameworks (langchain-core, langchain,
pydantic-ai, mcp), what reaches the model's prompt or a tool's reply is checked for a restricted
item. Each assertion on ``reader="alice"`` failed before the integrations took a reader (they had
no way to pass one); each on the default guards against a default that shows everything."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from integration_helpers import SECRET, labelled_engine
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from mcp import Client
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from test_langchain_agent import ScriptedModel

from ctxsieve.cli import build_parser
from ctxsieve.commands.mcp import server_from_args
from ctxsieve.integrations.langchain import langchain_tools, with_context
from ctxsieve.integrations.langchain_agent import ContextMiddleware
from ctxsieve.integrations.mcp import mcp_server
from ctxsieve.integrations.pydantic_ai import context_instructions, pydantic_ai_tools
from ctxsieve.loop import MemoryToolkit, SessionHistory
from tests.engine.audience_strategies import (
    frozen,
    label_value,
    oracle_audience,
    oracle_may_read,
    oracle_readers,
    token,
)

# readers that must get public content only: the default, someone else, a group with alice
OTHERS: list[Any] = [None, "bob", ["alice", "bob"]]


def _seeded(store: Any) -> None:
    """Alice's memory and her part of the conversation, next to public ones, in ``store``."""
    MemoryToolkit(store, namespace="team", audiences="alice").add(
        f"payroll: alice's number is {SECRET}", audience="alice"
    )
    MemoryToolkit(store, namespace="team").add("payroll: runs on the last Friday")
    SessionHistory(store, "chat").archive(
        [
            {"role": "user", "content": f"payroll: my number is {SECRET}", "audience": "alice"},
            {"role": "user", "content": "payroll: when does it run?"},
        ],
        start=0,
    )


# -- LangChain -------------------------------------------------------------------------------


async def test_langchain_with_context_builds_for_the_reader() -> None:
    engine = labelled_engine()
    msgs = [HumanMessage("payroll number?")]

    def seen(runnable: Any) -> str:
        return repr(runnable.invoke(msgs))

    assert SECRET in seen(with_context(engine, reader="alice"))
    assert SECRET in repr(await with_context(engine, reader={"alice"}).ainvoke(msgs))
    for reader in OTHERS:
        out = seen(with_context(engine, reader=reader))
        assert SECRET not in out and "last Friday" in out
    assert SECRET not in seen(with_context(engine))


async def test_langchain_build_context_tool_builds_for_the_reader() -> None:
    engine = labelled_engine()

    def tool(**kw: Any) -> Any:
        return next(t for t in langchain_tools(engine=engine, **kw) if t.name == "build_context")

    assert SECRET in tool(reader="alice").invoke({"query": "payroll"})
    assert SECRET in await tool(reader="alice").ainvoke({"query": "payroll"})
    for reader in OTHERS:
        assert SECRET not in tool(reader=reader).invoke({"query": "payroll"})
        assert SECRET not in await tool(reader=reader).ainvoke({"query": "payroll"})
    assert SECRET not in tool().invoke({"query": "payroll"})


@pytest.mark.parametrize("use_async", [False, True])
async def test_langchain_agent_middleware_builds_for_the_reader(use_async: bool) -> None:
    async def prompt_of(middleware: ContextMiddleware) -> str:
        model = ScriptedModel(script=lambda msgs: AIMessage("ok"))
        agent = create_agent(model, tools=[], middleware=[middleware])
        state = {"messages": [HumanMessage("payroll number?")]}
        await agent.ainvoke(state) if use_async else agent.invoke(state)
        return repr(model.seen)

    assert SECRET in await prompt_of(ContextMiddleware(labelled_engine(), reader="alice"))
    for reader in OTHERS:
        out = await prompt_of(ContextMiddleware(labelled_engine(), reader=reader))
        assert SECRET not in out and "last Friday" in out
    assert SECRET not in await prompt_of(ContextMiddleware(labelled_engine()))


def test_a_reader_that_is_not_labels_is_refused_where_the_integration_is_built() -> None:
    engine = labelled_engine()
    for build in (
        lambda r: with_context(engine, reader=r),
        lambda r: langchain_tools(engine=engine, reader=r),
        lambda r: ContextMiddleware(engine, reader=r),
        lambda r: context_instructions(engine, reader=r),
        lambda r: pydantic_ai_tools(engine=engine, reader=r),
        lambda r: mcp_server(engine, reader=r),
    ):
        with pytest.raises(TypeError, match="reader: labels are str, got bytes"):
            build(b"alice")


# -- PydanticAI ------------------------------------------------------------------------------


async def test_pydantic_ai_instructions_are_built_for_the_reader() -> None:
    async def instructions_of(**kw: Any) -> str:
        seen: list[str | None] = []

        def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            seen.append(info.instructions)
            return ModelResponse([TextPart("ok")])

        await Agent(FunctionModel(model), instructions=[context_instructions(labelled_engine(), **kw)]).run("payroll")
        return repr(seen)

    assert SECRET in await instructions_of(reader="alice")
    for reader in OTHERS:
        out = await instructions_of(reader=reader)
        assert SECRET not in out and "last Friday" in out
    assert SECRET not in await instructions_of()


async def test_pydantic_ai_tools_reply_for_the_reader(store: Any) -> None:
    _seeded(store)

    async def replies(memory: MemoryToolkit, history: SessionHistory, **kw: Any) -> str:
        calls = iter([(tool, {"query": "payroll"}) for tool in ("build_context", "memory_search", "session_search")])
        out: list[str] = []

        def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            out.extend(str(p.content) for p in messages[-1].parts if isinstance(p, ToolReturnPart))
            nxt = next(calls, None)
            if nxt is None:
                return ModelResponse([TextPart("ok")])
            return ModelResponse([ToolCallPart(nxt[0], nxt[1], tool_call_id=f"t{len(out)}")])

        tools = pydantic_ai_tools(history=history, memory=memory, engine=labelled_engine(), **kw)
        await Agent(FunctionModel(model), tools=tools).run("go")
        assert len(out) == 3, out
        return "\n".join(out)

    own = await replies(
        MemoryToolkit(store, namespace="team", audiences="alice"),
        SessionHistory(store, "chat", reader="alice"),
        reader="alice",
    )
    assert own.count(SECRET) == 3, own
    anon = await replies(MemoryToolkit(store, namespace="team"), SessionHistory(store, "chat"))
    assert SECRET not in anon and "last Friday" in anon and "when does it run" in anon


# -- MCP ---------------------------------------------------------------------------------------


async def _mcp_replies(
    server: Any, tools: tuple[str, ...] = ("build_context", "memory_search", "session_search")
) -> str:
    out = []
    async with Client(server) as client:
        for tool in tools:
            result = await client.call_tool(tool, {"query": "payroll"})
            assert not result.is_error, result.content
            out.append("\n".join(c.text for c in result.content))
    return "\n".join(out)


async def test_mcp_server_serves_the_reader(store: Any) -> None:
    _seeded(store)

    def server(**kw: Any) -> Any:
        return mcp_server(labelled_engine(), store=store, session_id="chat", namespace="team", **kw)

    own = await _mcp_replies(server(reader="alice"))
    assert own.count(SECRET) == 3, own  # the engine's item, her memory and her message
    for reader in OTHERS:
        out = await _mcp_replies(server(reader=reader))
        assert SECRET not in out and "last Friday" in out and "when does it run" in out, (reader, out)
    assert SECRET not in await _mcp_replies(server())
    # a memory the agent adds for the reader stays the reader's
    async with Client(server(reader="alice")) as client:
        await client.call_tool("memory_add", {"text": "payroll: alice's bank is BANK-99", "audience": "alice"})
    assert "BANK-99" not in await _mcp_replies(server())


async def test_ctxsieve_mcp_reader_option(tmp_path: Any) -> None:
    from ctxsieve.stores import open_store

    url = "sqlite:///" + str(tmp_path / "shared.db")
    _seeded(open_store(url))
    base = ["mcp", "--store", url, "--session", "chat", "--namespace", "team"]
    tools = ("memory_search", "session_search")  # no --policy: no build_context

    def server(*extra: str) -> Any:
        return server_from_args(build_parser().parse_args([*base, *extra]))

    own = await _mcp_replies(server("--reader", "alice"), tools)
    assert own.count(SECRET) == 2, own  # her memory and her message
    for extra in ([], ["--reader", "bob"], ["--reader", "alice", "--reader", "bob"]):
        out = await _mcp_replies(server(*extra), tools)
        assert SECRET not in out and "last Friday" in out, (extra, out)


# -- property: what the framework's prompt gets is what the reader may read -----------------------


@given(st.lists(label_value, max_size=4), label_value)
def test_the_rendered_framework_prompt_holds_exactly_what_the_reader_may_read(labels: list[Any], reader: Any) -> None:
    from ctxsieve import ContextEngine, ContextItem, StaticSource

    readers = oracle_readers(reader)
    toks = [token() for _ in labels]
    items = [
        ContextItem(f"kb:{t}", f"payroll {t}", "kb", "knowledge", "volatile", score=1.0, audience=frozen(lab))
        for t, lab in zip(toks, labels)
    ]
    engine = ContextEngine([StaticSource(items, name="kb")], budget=100_000)
    prompt = repr(with_context(engine, reader=reader).invoke([HumanMessage("payroll")]))
    tool = next(t for t in langchain_tools(engine=engine, reader=reader) if t.name == "build_context")
    reply = tool.invoke({"query": "payroll"})
    for t, lab in zip(toks, labels):
        allowed = oracle_may_read(oracle_audience(lab), readers)
        assert (t in prompt) == allowed and (t in reply) == allowed, (lab, reader)
