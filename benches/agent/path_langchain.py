"""Path (b): the scripted conversation run by LangChain's ``create_agent`` with ``ContextMiddleware``.

LangChain runs the loop (its agent graph, tool execution, state and checkpointer); the chat
model is scripted: it answers each call from ``ScriptTurn.reply`` and, before answering, hands
what it was actually given (its messages, converted with ``from_langchain`` to the OpenAI Chat
shape, and the tool schemas bound to it) to the checker. The middleware gets what path (a)'s
conversation gets: the same engine, limits and windows, an ``Offloader`` on SQLite (big
results are capped as the tool returns them), and compaction, here LangChain's own kind: the
middleware compacts the agent state past a threshold (a ``Compactor`` with a scripted
summariser), and the conversation then starts again from the compacted state. The one fallback
is LangChain's ``ModelFallbackMiddleware``: the large model fails at the script's fallback call
and the small one answers, its request re-admitted for its window.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import ModelFallbackMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from benches.agent import knowledge
from benches.agent.measure import Checker, Rendered
from benches.agent.path_conversation import LARGE, LIMITS, OFFLOAD_TOKENS, PREVIEW_TOKENS, SMALL, WINDOWS, Run
from benches.agent.script import SYSTEM, TOOLS, Script
from ctxsieve.integrations.langchain import from_langchain
from ctxsieve.integrations.langchain_agent import ContextMiddleware
from ctxsieve.loop import Compactor, Offloader
from ctxsieve.messages import openai_chat
from ctxsieve.stores import open_store

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")
# the state is compacted before the conversation has to cut: the fixed part (system prompt with
# the policy, nine tool schemas, overhead: about 1,760 tokens), a turn's context (600) and the
# context messages of earlier turns (in the conversation, not in the state) share the large
# model's 5,476; measured, 2,200 state tokens and 4 kept units compact 7 times in 30 turns and
# the conversation never cuts on its own (3,000 left it to cut first, a second cache miss)
COMPACT_AT, KEEP_UNITS = 2_200, 4


@dataclass
class Cursor:
    """Where the script is: the user turn, the call of that turn, and the fallback's state."""

    script: Script
    turn: int = 0
    k: int = 0
    failed: bool = False
    offloaded: set[str] = field(default_factory=set)  # calls whose result the model got as a handle

    def reply(self) -> AIMessage:
        raw = self.script.turns[self.turn - 1].reply(self.k)
        self.k += 1
        calls = [
            {"name": c["function"]["name"], "args": json.loads(c["function"]["arguments"]), "id": c["id"]}
            for c in raw.get("tool_calls") or ()
        ]
        return AIMessage(raw.get("content") or "", tool_calls=calls)


class ScriptedChat(BaseChatModel):
    """The scripted model: records each request for the checker, then answers from the script
    (the large model fails once, at the script's fallback call)."""

    model_name: str
    cursor: Any
    checker: Any
    middleware: Any
    bound: list[Any] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        self.bound[:] = [convert_to_openai_tool(t) for t in tools]
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        call = self.middleware.last  # the call the middleware admitted for this request
        body = {"model": self.model_name, "messages": openai_chat.write(from_langchain(messages)), "tools": self.bound}
        label = f"{self.model_name} call {call.call_index} attempt {call.attempt}"
        self.checker.add(
            Rendered(
                openai=body,
                limit=call.limit.tokens,
                turn=self.cursor.turn,
                label=label,
                estimate=call.estimated_input_tokens,
                shared=call.shared_prefix_tokens,
            )
        )
        cur = self.cursor
        cur.offloaded.update(
            str(m.tool_call_id) for m in messages if isinstance(m, ToolMessage) and HANDLE.search(str(m.content))
        )
        if self.model_name == LARGE and (cur.turn, cur.k) == cur.script.fallback and not cur.failed:
            cur.failed = True
            raise RuntimeError("support-large refused the request")  # ModelFallbackMiddleware takes over
        return ChatResult(generations=[ChatGeneration(message=cur.reply())])


class ScriptedSummariser:
    """What an LLM summariser would return: the questions and tools in what is compacted, the
    previous summary's last lines folded in (so a summary stays about the same size)."""

    def __init__(self) -> None:
        self.requests = 0

    async def __call__(self, request: Any) -> str:
        self.requests += 1
        asked = [m.content for m in request.messages if isinstance(m, HumanMessage) and isinstance(m.content, str)]
        called = sorted({c["name"] for m in request.messages if isinstance(m, AIMessage) for c in m.tool_calls})
        first = asked[0][:80] if asked else ""
        text = f"{len(asked)} questions, the first {first!r}; tools called: {', '.join(called)}."
        earlier = request.previous_summary.splitlines()[-3:] if request.previous_summary else []
        return "\n".join([*earlier, text])


def script_tools(script: Script) -> list[StructuredTool]:
    """The script's seven tools as LangChain tools (their schemas, argument descriptions
    included), each returning the script's result for the call's arguments."""
    results: dict[tuple[str, str], deque[str]] = defaultdict(deque)
    for turn in script.turns:
        for step in (s for r in turn.rounds for s in r):
            results[(step.name, json.dumps(step.arguments, sort_keys=True))].append(step.result)

    def make(name: str) -> Any:
        def run(**args: str) -> str:
            return results[(name, json.dumps(args, sort_keys=True))].popleft()

        return run

    return [
        StructuredTool.from_function(
            func=make(t["function"]["name"]),
            name=t["function"]["name"],
            description=t["function"]["description"],
            args_schema=t["function"]["parameters"],
        )
        for t in TOOLS
    ]


def run(script: Script, store_dir: Path | None = None) -> Run:
    """Run ``script`` through ``create_agent``; the offloader's store lives in ``store_dir``
    (a temporary directory when None)."""
    if store_dir is None:
        with tempfile.TemporaryDirectory() as d:
            return run(script, Path(d))
    off = Offloader(open_store(str(store_dir / "results.db")), max_tokens=OFFLOAD_TOKENS, preview_tokens=PREVIEW_TOKENS)
    summarise = ScriptedSummariser()
    mw = ContextMiddleware(
        knowledge.engine(),
        offloader=off,
        compactor=Compactor(summarise, threshold_tokens=COMPACT_AT, keep_last=KEEP_UNITS),
        limits=LIMITS,
        window_lookup=WINDOWS.get,
    )
    cursor = Cursor(script)
    checker = Checker(
        "b: LangChain create_agent",
        mw.engine.estimator,
        system=SYSTEM,
        pinned=knowledge.PINNED,
        overhead=LIMITS.protocol_overhead,
    )
    large = ScriptedChat(model_name=LARGE, cursor=cursor, checker=checker, middleware=mw)
    small = ScriptedChat(model_name=SMALL, cursor=cursor, checker=checker, middleware=mw)
    agent = create_agent(
        large,
        tools=script_tools(script),
        system_prompt=SYSTEM,
        # the fallback outside the context middleware: each model's request is admitted for it
        middleware=[ModelFallbackMiddleware(small), mw],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "support-1"}, "recursion_limit": 100}
    state: dict[str, Any] = {}
    for turn in script.turns:
        cursor.turn, cursor.k = turn.number, 0
        state = agent.invoke({"messages": [HumanMessage(turn.question)]}, config)
    conv = mw.conversation("support-1")
    final = state["messages"]
    return Run(
        summary=checker.summary,
        cuts=len(conv.cuts),
        compactions=summarise.requests,
        fallbacks=int(cursor.failed),
        offloaded=len(cursor.offloaded),
        messages=len(final),
    )
