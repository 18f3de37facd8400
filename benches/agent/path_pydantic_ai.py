"""Path (c): the scripted conversation run by a PydanticAI ``Agent`` with ``ContextCapability``.

PydanticAI runs the loop (one ``agent.run`` per user turn, the history carried over with
``message_history``, its own tool execution); the model is a ``FunctionModel`` that answers
from ``ScriptTurn.reply`` and, before answering, hands what it was actually given (its messages,
converted with ``from_pydantic_ai`` to the OpenAI Chat shape, and its function tools) to the
checker. The capability gets what path (a)'s conversation gets: the same engine, limits and
windows, an ``Offloader`` on SQLite (big results capped in the stored history before the next
request), and compaction of the stored history past a threshold (a ``Compactor`` with a
scripted summariser; the conversation then starts again from it). The one fallback is a
retried attempt: the large model fails at the script's fallback call and a capability retries
the attempt on the small model (``RetryModelRequest``), which the context capability re-admits
for its window.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, RetryModelRequest, Tool
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from benches.agent import knowledge
from benches.agent.measure import Checker, Rendered
from benches.agent.path_conversation import LARGE, LIMITS, OFFLOAD_TOKENS, PREVIEW_TOKENS, SMALL, WINDOWS, Run
from benches.agent.path_langchain import COMPACT_AT, KEEP_UNITS
from benches.agent.script import SYSTEM, TOOLS, Script
from ctxsieve.integrations.pydantic_ai import from_pydantic_ai
from ctxsieve.integrations.pydantic_ai_agent import ContextCapability
from ctxsieve.loop import Compactor, Offloader
from ctxsieve.messages import openai_chat
from ctxsieve.stores import open_store

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")


@dataclass
class Cursor:
    """Where the script is, what the checker saw, and the fallback's state."""

    script: Script
    checker: Checker
    capability: ContextCapability
    turn: int = 0
    k: int = 0
    failed: bool = False
    offloaded: set[str] = field(default_factory=set)

    def model(self, name: str) -> FunctionModel:
        def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            call = self.capability.last  # what the capability admitted for this attempt
            assert call is not None
            tools = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description or "",
                        "parameters": t.parameters_json_schema,
                    },
                }
                for t in info.function_tools
            ]
            body = {"model": name, "messages": openai_chat.write(from_pydantic_ai(messages)), "tools": tools}
            self.checker.add(
                Rendered(
                    openai=body,
                    limit=call.limit.tokens,
                    turn=self.turn,
                    label=f"{name} call {call.call_index} attempt {call.attempt}",
                    estimate=call.estimated_input_tokens,
                    shared=call.shared_prefix_tokens,
                )
            )
            self.offloaded.update(
                p.tool_call_id
                for m in messages
                if isinstance(m, ModelRequest)
                for p in m.parts
                if isinstance(p, ToolReturnPart) and HANDLE.search(str(p.content))
            )
            if name == LARGE and (self.turn, self.k) == self.script.fallback and not self.failed:
                self.failed = True
                raise RuntimeError("support-large refused the request")  # FallBack retries on the small one
            raw = self.script.turns[self.turn - 1].reply(self.k)
            self.k += 1
            if raw.get("tool_calls"):
                calls = raw["tool_calls"]
                return ModelResponse(
                    [
                        ToolCallPart(c["function"]["name"], c["function"]["arguments"], tool_call_id=c["id"])
                        for c in calls
                    ]
                )
            return ModelResponse([TextPart(raw["content"])])

        return FunctionModel(answer, model_name=name)


class FallBack(AbstractCapability[Any]):
    """A failed attempt on the large model is retried on the small one."""

    def __init__(self, small: FunctionModel):
        self.small = small

    async def on_model_request_error(self, ctx: Any, *, request_context: Any, error: Exception) -> Any:
        if request_context.model is self.small:
            raise error
        raise RetryModelRequest(model=self.small)


class ScriptedSummariser:
    """What an LLM summariser would return: the questions and tools in what is compacted, the
    previous summary's last lines folded in."""

    def __init__(self) -> None:
        self.requests = 0

    async def __call__(self, request: Any) -> str:
        self.requests += 1
        parts = [p for m in request.messages for p in m.parts]
        asked = [p.content for p in parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
        called = sorted({p.tool_name for p in parts if isinstance(p, ToolCallPart)})
        first = asked[0][:80] if asked else ""
        text = f"{len(asked)} questions, the first {first!r}; tools called: {', '.join(called)}."
        earlier = request.previous_summary.splitlines()[-3:] if request.previous_summary else []
        return "\n".join([*earlier, text])


def script_tools(script: Script) -> list[Tool[Any]]:
    """The script's seven tools (their JSON schemas, argument descriptions included), each
    returning the script's result for the call's arguments."""
    results: dict[tuple[str, str], deque[str]] = defaultdict(deque)
    for turn in script.turns:
        for step in (s for r in turn.rounds for s in r):
            results[(step.name, json.dumps(step.arguments, sort_keys=True))].append(step.result)

    def make(name: str) -> Any:
        def run(**args: str) -> str:
            return results[(name, json.dumps(args, sort_keys=True))].popleft()

        return run

    return [
        Tool.from_schema(
            make(t["function"]["name"]),
            t["function"]["name"],
            t["function"]["description"],
            t["function"]["parameters"],
        )
        for t in TOOLS
    ]


async def _run(script: Script, store_dir: Path) -> Run:
    off = Offloader(open_store(str(store_dir / "results.db")), max_tokens=OFFLOAD_TOKENS, preview_tokens=PREVIEW_TOKENS)
    summarise = ScriptedSummariser()
    cap = ContextCapability(
        knowledge.engine(),
        offloader=off,
        compactor=Compactor(summarise, threshold_tokens=COMPACT_AT, keep_last=KEEP_UNITS),
        limits=LIMITS,
        window_lookup=WINDOWS.get,
    )
    checker = Checker(
        "c: PydanticAI FunctionModel",
        cap.engine.estimator,
        system=SYSTEM,
        pinned=knowledge.PINNED,
        overhead=LIMITS.protocol_overhead,
    )
    cursor = Cursor(script, checker, cap)
    small = cursor.model(SMALL)
    agent = Agent(
        cursor.model(LARGE),
        system_prompt=SYSTEM,
        tools=script_tools(script),  # ctx_read and ctx_grep come with the capability's offloader
        capabilities=[FallBack(small), cap],
    )
    history: list[ModelMessage] = []
    for turn in script.turns:
        cursor.turn, cursor.k = turn.number, 0
        history = (await agent.run(turn.question, message_history=history)).all_messages()
    (_, thread), *_ = cap.threads.items()
    return Run(
        summary=checker.summary,
        cuts=len(thread.conv.cuts),
        compactions=summarise.requests,
        fallbacks=int(cursor.failed),
        offloaded=len(cursor.offloaded),
        messages=len(history),
    )


def run(script: Script, store_dir: Path | None = None) -> Run:
    """Run ``script`` through a PydanticAI agent; the offloader's store lives in ``store_dir``
    (a temporary directory when None)."""
    if store_dir is None:
        with tempfile.TemporaryDirectory() as d:
            return run(script, Path(d))
    return asyncio.run(_run(script, store_dir))
