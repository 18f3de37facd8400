"""Path (a): the scripted conversation run by hand on ``ctxsieve.Conversation``.

Per model call the driver prepares the call, renders it for OpenAI Chat (``call.openai()``)
and Anthropic (``call.anthropic(max_tokens=...)``), hands both to the checker, and records the
scripted model's reply; tool results go in through ``add_tool_result`` (the offloader caps the
big ones as they are written). One call goes to the smaller model (``conv.fallback``), and
the conversation's cuts are compactions (a fallback's re-admission cuts without one: it does
not wait for a summariser).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benches.agent import knowledge
from benches.agent.measure import Checker, Rendered, Summary
from benches.agent.script import SYSTEM, TOOLS, Script
from ctxsieve import Limits
from ctxsieve.conversation import Conversation
from ctxsieve.loop import Offloader
from ctxsieve.stores import open_store

LARGE, SMALL = "support-large", "support-small"
# sized so that the 30-turn script outgrows the large model's window (it cuts) and the
# fallback to the small one cuts again (5,000 stopped cutting once compaction kept the first task
# and its summaries verbatim); the ceiling is above both so the windows decide
WINDOWS = {LARGE: 6_500, SMALL: 4_500}
LIMITS = Limits(input_ceiling=64_000, output_reserve=1_024, protocol_overhead=200)
OFFLOAD_TOKENS, PREVIEW_TOKENS = 1_500, 300
HANDLE = re.compile(r"ctx_[0-9a-f]{32}")


class ScriptedSummariser:
    """A deterministic summariser (what an LLM call would return): the questions asked and the
    tools called in what a compaction covers, folded into the previous summary (its last
    lines: a summary stays about the same size however often it is folded)."""

    timeout = 5.0

    def __init__(self) -> None:
        self.requests = 0

    async def summarize(self, request: Any) -> str:
        self.requests += 1
        asked = [m["content"] for m in request.messages if m.get("role") == "user" and isinstance(m["content"], str)]
        called = sorted({c["function"]["name"] for m in request.messages for c in m.get("tool_calls") or ()})
        text = f"{len(asked)} questions, the first {asked[0][:80]!r}; tools called: {', '.join(called)}."
        earlier = request.previous_summary.splitlines()[-3:] if request.previous_summary else []
        return "\n".join([*earlier, text])


@dataclass
class Run:
    """What one run of the script produced: the checks, and the conversation's own record."""

    summary: Summary
    cuts: int
    compactions: int
    fallbacks: int
    offloaded: int
    messages: int


def conversation(store_dir: Path, *, compactor: Any = None) -> Conversation:
    off = Offloader(open_store(str(store_dir / "results.db")), max_tokens=OFFLOAD_TOKENS, preview_tokens=PREVIEW_TOKENS)
    return Conversation(
        knowledge.engine(),
        system=SYSTEM,
        tools=TOOLS,
        limits=LIMITS,
        model=LARGE,
        offloader=off,
        window_lookup=WINDOWS.get,
        compactor=compactor,
    )


def rendered(call: Any) -> Rendered:
    return Rendered(
        openai=call.openai(),
        anthropic=call.anthropic(max_tokens=LIMITS.output_reserve),
        limit=call.limit.tokens,
        turn=call.turn,
        label=f"{call.model} call {call.call_index} attempt {call.attempt}",
        estimate=call.estimated_input_tokens,
        shared=call.shared_prefix_tokens,
    )


def run(script: Script, store_dir: Path | None = None) -> Run:
    """Run ``script`` through a ``Conversation``; the offloader's store lives in ``store_dir``
    (a temporary directory when None)."""
    if store_dir is None:
        with tempfile.TemporaryDirectory() as d:
            return run(script, Path(d))
    conv = conversation(store_dir, compactor=ScriptedSummariser())
    checker = Checker(
        "a: Conversation by hand",
        conv.estimator,
        system=SYSTEM,
        pinned=knowledge.PINNED,
        overhead=LIMITS.protocol_overhead,
    )
    fallbacks = 0
    for turn in script.turns:
        conv.add_user(turn.question)
        for k in range(turn.calls):
            call = conv.prepare()
            checker.add(rendered(call))
            if (turn.number, k) == script.fallback:
                call = conv.fallback(SMALL)  # the large model refused: the same call, smaller window
                checker.add(rendered(call))
                fallbacks += 1
            conv.record_response(turn.reply(k))
            for step in turn.rounds[k] if k < len(turn.rounds) else ():
                conv.add_tool_result(step.call_id, step.result, name=step.name)
    offloaded = sum(1 for e in conv.transcript if e.message.role == "tool" and HANDLE.search(e.message.text or ""))
    return Run(
        summary=checker.summary,
        cuts=len(conv.cuts),
        compactions=sum(1 for c in conv.cuts if c.summarized),
        fallbacks=fallbacks,
        offloaded=offloaded,
        messages=len(conv.transcript),
    )
