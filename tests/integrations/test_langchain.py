"""LangChain: the adapter under the loop helpers, the tools as StructuredTools, the window runnable."""

from __future__ import annotations

import re
from typing import Any

import pytest
from integration_helpers import numbered
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableLambda

from ctxsieve import ContextEngine, StaticSource
from ctxsieve.integrations.langchain import LangChainAdapter, langchain_tools, offload, with_context
from ctxsieve.loop import Compactor, MemoryToolkit, Offloader, SessionHistory, SummaryRequest, units

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")


def call(*ids: str, text: str = "") -> AIMessage:
    return AIMessage(text, tool_calls=[{"name": f"tool_{i}", "args": {"path": f"/{i}"}, "id": i} for i in ids])


def agent_chat() -> list[Any]:
    """A LangChain agent's state: parallel tool calls, a long result, more turns."""
    return [
        SystemMessage("You are a build assistant."),
        HumanMessage("why does the build fail?", id="h1"),
        call("a", "b"),
        ToolMessage("error: missing libfoo " * 30, tool_call_id="a", name="tool_a", id="t-a"),
        ToolMessage("gcc 13.2 " * 30, tool_call_id="b", name="tool_b", id="t-b"),
        AIMessage("libfoo is missing; install it " * 10),
        HumanMessage("installed it, now what?"),
        call("c"),
        ToolMessage(numbered(200), tool_call_id="c", name="tool_c", artifact={"rows": 200}, id="t-c"),
        AIMessage("the build passes now " * 10),
        HumanMessage("great, and the tests?"),
        call("d"),
        ToolMessage("12 passed", tool_call_id="d", name="tool_d"),
    ]


def test_units_keep_parallel_calls_with_their_results() -> None:
    got = [(u.start, u.end, u.kind) for u in units(agent_chat(), LangChainAdapter())]
    assert got[:4] == [(0, 1, "system"), (1, 2, "message"), (2, 5, "tool_exchange"), (5, 6, "message")]
    assert (7, 9, "tool_exchange") in got and (11, 13, "tool_exchange") in got


async def test_compactor_never_splits_a_call_from_its_results(store: Any) -> None:
    seen: list[SummaryRequest] = []

    async def summarize(req: SummaryRequest) -> str:
        seen.append(req)
        return "the build failed on libfoo; installed; build passes"

    chat = agent_chat()
    history = SessionHistory(store, "s1", adapter=LangChainAdapter())
    comp = Compactor(summarize, threshold_tokens=300, keep_last=2, adapter=LangChainAdapter(), history=history)
    out = await comp.compact(chat)
    assert comp.last is not None and comp.last.compacted
    assert out[0] is chat[0]  # the system message stays as it was
    assert isinstance(out[1], HumanMessage) and "libfoo" in out[1].content
    assert comp.last.summarized_messages == len(chat) - 1 - 3  # system + last two units stay
    # every kept tool call is followed by all of its results, and no result is orphaned
    a = LangChainAdapter()
    for k, m in enumerate(out):
        ids = a.tool_call_ids(m)
        if ids:
            assert [i for r in out[k + 1 : k + 1 + len(ids)] for i in a.tool_result_ids(r)] == ids
        for rid in a.tool_result_ids(m):
            assert any(rid in a.tool_call_ids(p) for p in out[:k])
    assert out[-2:] == chat[-2:] and out[-1] is chat[-1]
    # the summariser read the tool calls by name, and the history is searchable afterwards
    assert "[tool call a] tool_a" in seen[0].transcript
    assert "libfoo" in history.session_search("libfoo missing")
    # a second compaction folds the first summary in and keeps counting original positions
    again = await Compactor(summarize, threshold_tokens=10, keep_last=1, adapter=LangChainAdapter()).compact(
        [*out, AIMessage("done"), HumanMessage("bye")]
    )
    assert seen[-1].previous_summary == "the build failed on libfoo; installed; build passes"
    assert a.summary(again[1]) is not None


def test_offloader_replaces_a_huge_result_and_keeps_ids(store: Any) -> None:
    chat = agent_chat()
    off = Offloader(store, max_tokens=300, preview_tokens=50, adapter=LangChainAdapter())
    out = off.offload(chat)
    big = out[8]
    assert isinstance(big, ToolMessage) and big is not chat[8]
    assert (big.id, big.tool_call_id, big.name, big.artifact) == ("t-c", "c", "tool_c", {"rows": 200})
    assert "row 0:" in big.content and "row 199" not in big.content and HANDLE.search(big.content)
    assert chat[8].content == numbered(200)  # the caller's message is untouched
    assert all(o is m for k, (o, m) in enumerate(zip(out, chat)) if k != 8)


def test_offload_leaves_read_results_alone(store: Any) -> None:
    off = Offloader(store, max_tokens=300, preview_tokens=50, adapter=LangChainAdapter())
    chat = [
        call("a", "b", "q"),
        ToolMessage(numbered(200), tool_call_id="a", name="fetch"),
        ToolMessage(numbered(200), tool_call_id="b", name="ctx_read"),
        ToolMessage(numbered(200), tool_call_id="q", name="ctx_query"),  # a read tool too (issue 14 item 7)
    ]
    out = offload(off, chat)
    assert HANDLE.search(out[1].content) and out[2] is chat[2] and out[0] is chat[0] and out[3] is chat[3]
    assert HANDLE.search(off.offload(chat)[2].content)  # what plain offload() would have done


def test_offloader_keeps_non_text_blocks(store: Any) -> None:
    image = {"type": "image", "url": "https://example.invalid/a.png"}
    msg = ToolMessage([{"type": "text", "text": numbered(200)}, image], tool_call_id="c")
    out = Offloader(store, max_tokens=300, preview_tokens=50, adapter=LangChainAdapter()).offload([call("c"), msg])
    assert out[1].content[1] == image and HANDLE.search(out[1].content[0]["text"])


async def test_offload_tools_read_back_the_stored_text(store: Any) -> None:
    off = Offloader(store, max_tokens=300, preview_tokens=50, adapter=LangChainAdapter())
    handle = HANDLE.search(off.offload(agent_chat())[8].content).group(0)  # type: ignore[union-attr]
    tools = {t.name: t for t in langchain_tools(off)}
    assert set(tools) == {"ctx_read", "ctx_grep", "ctx_query"}
    assert set(tools["ctx_read"].args) == {"handle", "offset", "limit", "unit"}
    assert "offloaded tool result" in tools["ctx_read"].description
    text = tools["ctx_read"].invoke({"handle": handle, "offset": 150, "limit": 2})
    assert text.splitlines()[1:3] == ["150: row 150: " + "x" * 40, "151: row 151: " + "x" * 40]
    found = await tools["ctx_grep"].ainvoke({"handle": handle, "pattern": r"^row 17[89]:"})
    assert "178: row 178" in found and "179: row 179" in found and "177:" not in found
    assert tools["ctx_read"].invoke({"handle": "../etc/passwd"}).startswith("error: invalid handle")


def test_memory_and_session_tools(store: Any) -> None:
    memory = MemoryToolkit(store, namespace="proj")
    history = SessionHistory(store, "s1", adapter=LangChainAdapter())
    history.archive([HumanMessage("the staging database is on port 5433"), AIMessage("noted")], start=1)
    tools = {t.name: t for t in langchain_tools(history=history, memory=memory)}
    assert list(tools) == ["session_search", "memory_add", "memory_search", "memory_remove"]
    assert "port 5433" in tools["session_search"].invoke({"query": "staging database port"})
    added = tools["memory_add"].invoke({"text": "Deploys happen on Tuesdays", "tags": ["ops"]})
    mem_id = added.split()[-1]
    assert mem_id in tools["memory_search"].invoke({"query": "when do deploys happen"})
    assert tools["memory_remove"].invoke({"id": mem_id}) == f"removed {mem_id}"
    assert tools["memory_search"].invoke({"query": "deploys"}).startswith("no memory")


def knowledge_engine() -> ContextEngine:
    return ContextEngine(
        [
            StaticSource("Cite the policy you rely on.", name="rules", pinned=True),
            StaticSource(
                ["Refunds are possible within 30 days.", "Team plans renew monthly."],
                name="kb",
                kind="knowledge",
                stability="volatile",
            ),
        ],
        budget=500,
    )


async def test_build_context_tool_sync_and_async() -> None:
    (tool,) = langchain_tools(engine=knowledge_engine())
    assert tool.name == "build_context" and set(tool.args) == {"query"}
    for text in (tool.invoke({"query": "refund"}), await tool.ainvoke({"query": "refund"})):
        assert "Refunds are possible within 30 days." in text and '<context id="kb:0"' in text
    assert tool.invoke({"query": " "}).startswith("error:")


def test_langchain_tools_needs_something() -> None:
    with pytest.raises(ValueError, match="at least one"):
        langchain_tools()


async def test_with_context_puts_the_window_in_the_prompt() -> None:
    chat = [SystemMessage("You help customers."), AIMessage("Hi!"), HumanMessage("Can I get a refund?")]
    seen: list[Any] = []

    def record(messages: Any) -> Any:
        seen.append(messages)
        return messages

    model = GenericFakeChatModel(messages=iter([AIMessage("Yes, within 30 days.")]))
    chain = with_context(knowledge_engine()) | RunnableLambda(record) | model
    reply = await chain.ainvoke(chat)
    assert reply.content == "Yes, within 30 days."
    sent = seen[0]
    assert [m.type for m in sent] == ["system", "ai", "human", "human"]
    assert sent[0].content.startswith("You help customers.\n\nCite the policy")  # stable block in the system
    assert "Refunds are possible within 30 days." in sent[2].content and sent[3] is chat[2]
    assert chat[0].content == "You help customers."  # the input list is not modified


def test_with_context_sync_without_system_and_passthrough() -> None:
    runnable = with_context(knowledge_engine())
    out = runnable.invoke({"messages": [HumanMessage("refund?")]})
    assert [m.type for m in out] == ["system", "human", "human"]
    assert out[0].content == "Cite the policy you rely on."
    only_ai = [AIMessage("hello")]
    assert runnable.invoke(only_ai) == only_ai
    with pytest.raises(TypeError, match="BaseMessage"):
        runnable.invoke(["not a message"])


def test_with_context_after_the_question_was_summarised() -> None:
    # a compacted agent state: the summary stands for the question, the run goes on with tools
    summary = LangChainAdapter().make_summary("the customer asked about a refund", 3)
    chat = [summary, call("r"), ToolMessage("order 17: paid", tool_call_id="r", name="tool_r")]
    out = with_context(knowledge_engine()).invoke(chat)
    assert [m.type for m in out] == ["system", "human", "human", "ai", "tool"]
    assert out[0].content == "Cite the policy you rely on."  # the pinned instruction is still there
    assert out[1] is summary and "Refunds are possible within 30 days." in out[2].content
    assert out[3:] == chat[1:]
