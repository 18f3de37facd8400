"""LangChain agents: ContextMiddleware inside a real ``create_agent`` loop (LangGraph underneath).

The chat model is scripted (a ``BaseChatModel`` subclass whose replies a function writes, and
which records what it was sent); the agent loop, tool execution and state are LangChain's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from integration_helpers import numbered
from langchain.agents import create_agent
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from ctxsieve import CallableSource, ContextEngine, ContextItem, StaticSource
from ctxsieve.integrations.langchain import LangChainAdapter
from ctxsieve.integrations.langchain_agent import ContextMiddleware
from ctxsieve.loop import Compactor, Offloader, SessionHistory, SummaryRequest

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")


class ScriptedModel(BaseChatModel):
    script: Callable[[list[BaseMessage]], AIMessage]
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        self.seen.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=self.script(messages))])

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self  # the script decides which tools to call


@tool
def fetch_logs() -> str:
    """Fetch the service logs."""
    return numbered(1000, "entry")


@tool
def fetch_page(n: int) -> str:
    """Fetch one page of the service logs."""
    return numbered(20, f"page {n} entry")


def engine() -> ContextEngine:
    return ContextEngine(
        [
            StaticSource("Quote log lines exactly.", name="rules", pinned=True),
            StaticSource(["Incidents are logged as entry N."], name="kb", kind="knowledge", stability="volatile"),
        ],
        budget=400,
    )


def test_agent_offloads_a_huge_result_and_reads_it_back(store: Any) -> None:
    handles: list[str] = []

    def script(messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        if isinstance(last, HumanMessage):
            return AIMessage("", tool_calls=[{"name": "fetch_logs", "args": {}, "id": "f1"}])
        if isinstance(last, ToolMessage) and last.name == "fetch_logs":
            handles.append(HANDLE.search(str(last.content)).group(0))  # type: ignore[union-attr]
            args = {"handle": handles[0], "pattern": "^entry 512:"}
            return AIMessage("", tool_calls=[{"name": "ctx_grep", "args": args, "id": "g1"}])
        if isinstance(last, ToolMessage) and last.name == "ctx_grep":
            # a long read: more than the offload limit, and still handed over whole
            args = {"handle": handles[0], "offset": 0, "limit": 2000}
            return AIMessage("", tool_calls=[{"name": "ctx_read", "args": args, "id": "r1"}])
        return AIMessage("done")

    model = ScriptedModel(script=script)
    off = Offloader(store, max_tokens=300, preview_tokens=50)
    agent = create_agent(
        model,
        tools=[fetch_logs],
        system_prompt="You read logs.",
        middleware=[ContextMiddleware(engine(), offloader=off)],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "t1"}}
    state = agent.invoke({"messages": [HumanMessage("what is at entry 512?")]}, config)
    # what the model was sent: the window around the conversation, for this call only
    first = model.seen[0]
    assert isinstance(first[0], SystemMessage) and first[0].content.startswith("You read logs.\n\nQuote log lines")
    assert "Incidents are logged as entry N." in first[1].content and first[2].content == "what is at entry 512?"
    # the second call saw the offloaded preview, not the thousand lines
    sent = next(m for m in model.seen[1] if isinstance(m, ToolMessage))
    assert HANDLE.search(str(sent.content)) and "entry 999" not in str(sent.content)
    grep = model.seen[2][-1]
    assert "512: entry 512: " + "x" * 40 in grep.content
    # the read result fits the limit, and the agent gets the lines, not another handle
    read = model.seen[3][-1]
    assert read.name == "ctx_read" and not off.over_limit(read.content)
    assert "1: entry 1: " in read.content and "offloaded:" not in read.content
    # the state keeps the offloaded result (same id) and never the window, and no checkpoint of
    # the thread ever held the whole log
    kept = [m for m in state["messages"] if isinstance(m, ToolMessage) and m.name == "fetch_logs"]
    assert len(kept) == 1 and HANDLE.search(str(kept[0].content))
    assert not any("Incidents are logged" in str(m.content) for m in state["messages"])
    snapshots = list(agent.get_state_history(config))
    assert len(snapshots) > 4
    for snap in snapshots:
        for m in snap.values.get("messages", []):
            assert not (m.name == "fetch_logs" and "entry 999" in str(m.content))


async def test_agent_compacts_history_without_splitting_tool_calls(store: Any) -> None:
    async def summarize(req: SummaryRequest) -> str:
        return f"earlier: {len(req.messages)} messages about deploys"

    def script(messages: list[BaseMessage]) -> AIMessage:
        return AIMessage("deploy is green")

    chat: list[BaseMessage] = []
    for i in range(6):
        chat += [
            HumanMessage(f"deploy step {i}? " + "please " * 30),
            AIMessage("", tool_calls=[{"name": "fetch_logs", "args": {}, "id": f"c{i}"}]),
            ToolMessage(f"step {i} ok " * 30, tool_call_id=f"c{i}", name="fetch_logs"),
            AIMessage(f"step {i} done " * 20),
        ]
    chat.append(HumanMessage("and now?"))
    archive = SessionHistory(store, "deploys", adapter=LangChainAdapter())
    comp = Compactor(summarize, threshold_tokens=500, keep_last=3, history=archive)
    model = ScriptedModel(script=script)
    mw = ContextMiddleware(compactor=comp, history=archive)
    agent = create_agent(model, tools=[fetch_logs], middleware=[mw])
    state = await agent.ainvoke({"messages": chat})
    msgs = state["messages"]
    a = LangChainAdapter()
    summary = a.summary(msgs[0])
    assert summary is not None and summary[1].startswith("earlier:") and summary[0] < len(chat)
    assert msgs[-2].content == "and now?" and msgs[-1].content == "deploy is green"
    for k, m in enumerate(msgs):  # no call without its result, no result without its call
        for cid in a.tool_call_ids(m):
            assert a.tool_result_ids(msgs[k + 1]) == [cid]
        for rid in a.tool_result_ids(m):
            assert rid in a.tool_call_ids(msgs[k - 1])
    assert model.seen[0][0] is not None and a.summary(model.seen[0][0]) is not None
    assert comp.adapter is None  # the middleware worked on a copy
    # the session_search tool the middleware registered finds what was summarised away
    assert [t.name for t in mw.tools] == ["session_search"]
    assert "step 0 ok" in mw.tools[0].invoke({"query": "deploy step 0"})


@pytest.mark.parametrize("run", ["invoke", "ainvoke"])
async def test_the_window_survives_compaction_of_the_human_message(run: str) -> None:
    """Once the compactor summarises the question itself (a long run of tool calls after one
    human message), every later model call still gets the pinned instruction and the context
    built for that question, not for the summary."""
    queries: list[str] = []

    def knowledge(query: str) -> list[ContextItem]:
        queries.append(query)
        return [ContextItem("kb:entry", "Incidents are logged as entry N.", "kb", "knowledge", "volatile", score=1.0)]

    eng = ContextEngine(
        [StaticSource("Quote log lines exactly.", name="rules", pinned=True), CallableSource(knowledge, name="kb")],
        budget=400,
    )

    async def summarize(req: SummaryRequest) -> str:
        return f"{len(req.messages)} messages of log pages"

    def script(messages: list[BaseMessage]) -> AIMessage:
        call = len(model.seen)  # this call is already recorded: 1, 2, ...
        if call <= 5:
            return AIMessage("", tool_calls=[{"name": "fetch_page", "args": {"n": call}, "id": f"p{call}"}])
        return AIMessage("done")

    model = ScriptedModel(script=script)
    comp = Compactor(summarize, threshold_tokens=300, keep_last=1)
    agent = create_agent(model, tools=[fetch_page], middleware=[ContextMiddleware(eng, compactor=comp)])
    question = {"messages": [HumanMessage("what is at entry 512?")]}
    if run == "invoke":  # the sync hooks (before_model, wrap_model_call)
        state = agent.invoke(question)
    else:  # the async ones
        state = await agent.ainvoke(question)
    a = LangChainAdapter()
    # the compaction really took the question out of the state
    assert a.summary(state["messages"][0]) and not any(m.content == "what is at entry 512?" for m in state["messages"])
    compacted = [seen for seen in model.seen if any(a.summary(m) for m in seen)]
    assert compacted
    for seen in compacted:  # each later request sends it once, right after the summary
        k = next(i for i, m in enumerate(seen) if a.summary(m))
        asked = [i for i, m in enumerate(seen) if m.content == "what is at entry 512?"]
        assert asked == [k + 2] and "Incidents are logged" in seen[k + 1].content  # its context before it
    for seen in model.seen:
        assert isinstance(seen[0], SystemMessage) and "Quote log lines exactly." in seen[0].content
        assert any("Incidents are logged as entry N." in str(m.content) for m in seen)
    assert len(queries) == len(model.seen) and set(queries) == {"what is at entry 512?"}
