"""PydanticAI: the adapter, the history processor inside a real agent run, tools and instructions.

The model is pydantic-ai's own ``FunctionModel``: a real agent loop (tool execution, message
history, capabilities) with the replies scripted by a function.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from integration_helpers import numbered
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from ctxsieve import ContextEngine, StaticSource
from ctxsieve.integrations.pydantic_ai import (
    HistoryProcessor,
    PydanticAIAdapter,
    context_instructions,
    pydantic_ai_tools,
    split_system,
)
from ctxsieve.loop import Compactor, MemoryToolkit, Offloader, SessionHistory, SummaryRequest, units

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")


def returns(msg: ModelMessage) -> list[ToolReturnPart]:
    return [p for p in msg.parts if isinstance(p, ToolReturnPart)]


def history() -> list[ModelMessage]:
    return [
        ModelRequest([SystemPromptPart("You are an ops assistant."), UserPromptPart("is the disk full?")]),
        ModelResponse(
            [
                ToolCallPart("df", {"path": "/"}, tool_call_id="a"),
                ToolCallPart("du", {"path": "/var"}, tool_call_id="b"),
            ]
        ),
        ModelRequest(
            [
                ToolReturnPart("df", "/ 91% used " * 30, tool_call_id="a"),
                ToolReturnPart("du", "12G /var/log " * 30, tool_call_id="b"),
            ]
        ),
        ModelResponse([TextPart("/var/log is the culprit " * 10)]),
        ModelRequest([UserPromptPart("rotate the logs")]),
        ModelResponse([ToolCallPart("logrotate", {}, tool_call_id="c")]),
        ModelRequest([ToolReturnPart("logrotate", "rotated 14 files", tool_call_id="c")]),
        ModelResponse([TextPart("done")]),
        ModelRequest([UserPromptPart("how full is it now?")]),
    ]


def test_units_and_the_split_system_prompt() -> None:
    a = PydanticAIAdapter()
    msgs = split_system(history())
    assert a.role(msgs[0]) == "system" and a.role(msgs[1]) == "user" and len(msgs) == len(history()) + 1
    got = [(u.start, u.end, u.kind) for u in units(msgs, a)]
    assert got[:4] == [(0, 1, "system"), (1, 2, "message"), (2, 4, "tool_exchange"), (4, 5, "message")]
    assert (6, 8, "tool_exchange") in got
    assert a.tool_results(msgs[3])[1][0] == "b" and "[tool call a] df" in a.text(msgs[2])
    # a request pydantic-ai merged (system prompt, summary, new prompt) comes apart again
    merged = ModelRequest(
        [SystemPromptPart("sys"), UserPromptPart(a.make_summary("s", 6).parts[0].content), UserPromptPart("q")]
    )
    parts = split_system([merged])
    assert [a.role(m) for m in parts] == ["system", "user", "user"] and a.summary(parts[1]) == (6, "s")
    assert split_system(parts) == parts  # already split: unchanged


def test_offloader_on_returns_and_retries(store: Any) -> None:
    msgs = [
        ModelResponse([ToolCallPart("q", {}, tool_call_id="a"), ToolCallPart("r", {}, tool_call_id="b")]),
        ModelRequest(
            [
                ToolReturnPart("q", {"rows": numbered(300).splitlines()}, tool_call_id="a"),
                # pydantic-ai 2.x: a retry answering a call (RetryPromptPart is deprecated there)
                ToolReturnPart("r", numbered(300, "bad field"), tool_call_id="b", outcome="retried"),
                UserPromptPart("keep me"),
            ]
        ),
    ]
    out = Offloader(store, max_tokens=300, preview_tokens=50, adapter=PydanticAIAdapter()).offload(msgs)
    ret, retry, user = out[1].parts
    assert HANDLE.search(ret.content) and ret.tool_name == "q" and ret.tool_call_id == "a"
    assert HANDLE.search(retry.content) and retry.tool_name == "r" and "bad field 0" in retry.content
    assert user is msgs[1].parts[2] and out[0] is msgs[0]
    assert isinstance(msgs[1].parts[0].content, dict)  # the caller's history is untouched


async def test_processor_compacts_without_splitting_calls(store: Any) -> None:
    seen: list[SummaryRequest] = []

    async def summarize(req: SummaryRequest) -> str:
        seen.append(req)
        return "disk was 91% full because of /var/log"

    archive = SessionHistory(store, "ops", adapter=PydanticAIAdapter())
    comp = Compactor(summarize, threshold_tokens=200, keep_last=2, history=archive)
    proc = HistoryProcessor(compactor=comp)
    out = await proc(history())
    assert proc.last is not None and proc.last.compacted and comp.adapter is None  # the caller's is untouched
    a = PydanticAIAdapter()
    assert [p.content for p in out[0].parts] == ["You are an ops assistant."]  # the system prompt stays
    # 7 messages summarised: the first user prompt (split from the system prompt) to the last result
    assert a.summary(out[1]) == (7, "disk was 91% full because of /var/log")
    assert [a.text(m) for m in out[2:]] == ["done", "how full is it now?"]
    for k, m in enumerate(out):  # every call is directly followed by its results
        ids = a.tool_call_ids(m)
        if ids:
            assert a.tool_result_ids(out[k + 1]) == ids
    assert "[tool call a] df" in seen[0].transcript and "/var/log" in archive.session_search("var log")


async def test_agent_run_offloads_then_greps_the_handle(store: Any) -> None:
    """A real agent loop: a tool returns a huge log, the processor offloads it before the next
    model request, and the model reads a line back with ctx_grep through the handle."""
    off = Offloader(store, max_tokens=300, preview_tokens=50)
    seen: list[list[ModelMessage]] = []
    tool_defs: list[Any] = []
    handles: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        tool_defs[:] = info.function_tools
        last = messages[-1]
        if len(seen) == 1:
            return ModelResponse([ToolCallPart("fetch_logs", {}, tool_call_id="f1")])
        if len(seen) == 2:
            preview = str(returns(last)[0].content)
            handles.append(HANDLE.search(preview).group(0))  # type: ignore[union-attr]
            return ModelResponse(
                [ToolCallPart("ctx_grep", {"handle": handles[0], "pattern": "^entry 377:"}, tool_call_id="g1")]
            )
        if len(seen) == 3:  # a read longer than the offload limit: still handed over whole
            args = {"handle": handles[0], "offset": 0, "limit": 2000}
            return ModelResponse([ToolCallPart("ctx_read", args, tool_call_id="r1")])
        return ModelResponse([TextPart("found: " + str(returns(seen[2][-1])[0].content))])

    agent = Agent(
        FunctionModel(model),
        system_prompt="Read logs carefully.",
        tools=pydantic_ai_tools(off),
        capabilities=[HistoryProcessor(offloader=off).capability()],
    )

    @agent.tool_plain
    def fetch_logs() -> str:
        """Fetch the service logs."""
        return numbered(1000, "entry")

    result = await agent.run("what happened at entry 377?")
    assert "377: entry 377: " + "x" * 40 in result.output
    read = str(returns(seen[3][-1])[0].content)
    assert not off.over_limit(read) and "1: entry 1: " in read and "offloaded:" not in read
    preview = str(returns(seen[1][-1])[0].content)
    assert "entry 0:" in preview and "entry 999" not in preview and len(preview) < 1500
    assert {t.name for t in tool_defs} >= {"ctx_read", "ctx_grep", "fetch_logs"}
    grep = next(t for t in tool_defs if t.name == "ctx_grep")
    assert grep.parameters_json_schema["required"] == ["handle", "pattern"]
    assert "regular expression" in grep.parameters_json_schema["properties"]["pattern"]["description"]
    # the history the agent keeps holds the offloaded preview, not the megabyte
    kept = [p for m in result.all_messages() for p in returns(m) if p.tool_name == "fetch_logs"]
    assert HANDLE.search(str(kept[0].content))


async def test_compaction_across_runs_keeps_the_system_prompt(store: Any) -> None:
    async def summarize(req: SummaryRequest) -> str:
        return f"summary of {len(req.messages)} messages"

    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return ModelResponse([TextPart("a long answer " * 40)])

    proc = HistoryProcessor(Compactor(summarize, threshold_tokens=150, keep_last=1))
    agent = Agent(FunctionModel(model), system_prompt="Be terse.", capabilities=[proc.capability()])
    msgs: list[ModelMessage] = []
    questions = ["first question", "second question", "third question", "fourth question"]
    for q in questions:
        msgs = (await agent.run(q, message_history=msgs)).all_messages()
    assert proc.last is not None and proc.last.compacted
    # pydantic-ai merges consecutive requests before the model sees them: the system prompt,
    # then one summary (folded, never nested), then the current question
    texts = [PydanticAIAdapter().text(m) for m in seen[-1]]
    assert len(seen[-1]) == 1 and texts[0].startswith("Be terse.\n[Summary of the 6 earlier messages")
    assert texts[0].endswith("\nfourth question") and texts[0].count("[Summary of") == 1
    # the stored history keeps the processed shape: system prompt, summary, the rest
    a = PydanticAIAdapter()
    assert a.role(msgs[0]) == "system" and a.summary(msgs[1]) == (6, "summary of 2 messages")
    assert [a.text(m) for m in msgs[2:]] == ["fourth question", "a long answer " * 40]


async def test_memory_session_and_context_tools(store: Any) -> None:
    archive = SessionHistory(store, "s")
    archive.archive([{"role": "user", "content": "the on-call phone is 555-0100"}], start=0)
    engine = ContextEngine([StaticSource("Escalate sev1 to the CTO.", name="kb", kind="knowledge")], budget=300)
    calls = iter(
        [
            ("memory_add", {"text": "On-call rotates on Mondays", "tags": ["oncall"]}),
            ("memory_search", {"query": "when does on-call rotate"}),
            ("session_search", {"query": "on-call phone"}),
            ("build_context", {"query": "sev1 escalation"}),
        ]
    )
    outputs: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        outputs.extend(str(p.content) for p in returns(messages[-1]))
        nxt = next(calls, None)
        if nxt is None:
            return ModelResponse([TextPart("ok")])
        return ModelResponse([ToolCallPart(nxt[0], nxt[1], tool_call_id=f"t{len(outputs)}")])

    tools = pydantic_ai_tools(history=archive, memory=MemoryToolkit(store), engine=engine)
    await Agent(FunctionModel(model), tools=tools).run("go")
    assert outputs[0].startswith("remembered as mem_")
    assert outputs[1].endswith("[oncall]: On-call rotates on Mondays")
    assert "555-0100" in outputs[2]
    assert "Escalate sev1 to the CTO." in outputs[3]


async def test_context_instructions_reach_the_model() -> None:
    engine = ContextEngine(
        [StaticSource(["Refunds within 30 days.", "Offices closed on Sundays."], name="kb", kind="knowledge")],
        budget=300,
    )
    seen: list[str | None] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions)
        return ModelResponse([TextPart("ok")])

    agent = Agent(FunctionModel(model), instructions=["Answer briefly.", context_instructions(engine)])
    await agent.run("can I get a refund?")
    assert seen[0] is not None and seen[0].startswith("Answer briefly.")
    assert "Refunds within 30 days." in seen[0] and '<context id="kb:0"' in seen[0]


def test_processor_arguments_are_checked() -> None:
    async def summarize(req: SummaryRequest) -> str:
        return "s"

    with pytest.raises(ValueError, match="compactor, an offloader"):
        HistoryProcessor()
    with pytest.raises(ValueError, match="keep_last"):
        HistoryProcessor(Compactor(summarize, threshold_tokens=10, keep_last=0))
    with pytest.raises(ValueError, match="at least one"):
        pydantic_ai_tools()
