"""What leaving earlier turns' thinking out does to Anthropic's cache (issue 14 item 2).

A scripted agent on a thinking model (24 user turns; each turn calls a tool twice, then
answers; every assistant message opens with a ~230-token signed thinking block) runs through a
``Conversation`` with ``Limits.history_ceiling=6000`` (so older turns are cut now and then),
three ways:

* ``keep all``: every thinking block goes back on every call (``reasoning="all"``);
* ``floor`` (ctxsieve's rule for Anthropic): earlier turns' thinking is left out only when a
  cut rewrites the prefix anyway, then kept byte-exact until the next one;
* ``every turn``: earlier turns' thinking is left out as soon as a new user turn starts (what
  "drop what the provider does not need" does naively): the same conversation with the floor
  moved at every turn instead of at a rewrite (its costs follow, so it cuts less often).

Each call's Anthropic body is measured by ``benches.agent.measure.Checker``: its prompt tokens
and the part a cache read covers (same blocks up to one of the previous request's breakpoints,
found within Anthropic's 20-block look-back). Input cost in base-token units: a read costs 0.1,
anything else is written at the 5-minute price, 1.25 (Anthropic's multipliers, docs/providers.md).

    python benches/bench_reasoning_cache.py          # the table
    pytest benches/bench_reasoning_cache.py -q       # the same run, asserting the order
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benches.agent.measure import Checker, Rendered
from ctxsieve import Conversation, Limits
from ctxsieve.conversation import admit as admit_module
from ctxsieve.conversation.reasoning import without_reasoning
from ctxsieve.conversation.reasoning_floor import floor_index
from ctxsieve.messages.providers import ANTHROPIC
from ctxsieve.tokenizers import resolve_estimator

SYSTEM = "You are a support agent for a parcel service. Look orders up before answering."
TOOL = {"type": "function", "function": {"name": "lookup", "description": "order", "parameters": {"type": "object"}}}
TURNS = 24
THOUGHT = "Checking what the customer needs and which order it is before I answer them. " * 9


def _response(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": content}


def _thinking(tag: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": f"[{tag}] {THOUGHT}", "signature": "Sig" + tag * 20}


def run(provider: Any) -> list[Any]:
    conv = Conversation(system=SYSTEM, tools=[TOOL], provider=provider, limits=Limits(history_ceiling=6_000))
    calls = []
    for n in range(TURNS):
        conv.add_user(f"Where is order A-{n}? " + "It was due last week. " * 10)
        for k in range(2):
            calls.append(conv.prepare())
            tag = f"{n}.{k}"
            use = {"type": "tool_use", "id": f"t{tag}", "name": "lookup", "input": {"order": f"A-{n}"}}
            conv.record_response(_response([_thinking(tag), use]))
            conv.add_tool_result(f"t{tag}", f"A-{n}: in transit, depot {k}. " * 12)
        calls.append(conv.prepare())
        conv.record_response(_response([_thinking(f"{n}.end"), {"type": "text", "text": f"A-{n} is in transit."}]))
    return calls


@contextmanager
def _floor_every_turn() -> Iterator[None]:
    """The floor moved at every new turn, not only at a rewrite (costs follow, as in the library)."""
    original = admit_module.move_floor

    def every_turn(conv: Any) -> None:
        t = conv.transcript
        if conv.turn <= conv._reasoning_floor:
            return
        lo = floor_index(conv, t.start)
        conv._reasoning_floor = conv.turn
        hi = floor_index(conv, t.start)
        costs = {k: conv._cost(without_reasoning(t[k].message)) for k in range(lo, hi) if t[k].message.reasoning}
        t.set_tokens(costs)

    admit_module.move_floor = every_turn
    try:
        yield
    finally:
        admit_module.move_floor = original


def measure(name: str, bodies: list[tuple[Any, dict[str, Any]]]) -> dict[str, Any]:
    checker = Checker(name, resolve_estimator(None), system=SYSTEM, pinned="", overhead=0)
    total = shared = 0
    for call, body in bodies:
        c = checker.add(Rendered(call.openai(), call.limit.tokens, call.turn, anthropic=body))
        total += c.anthropic_tokens
        shared += c.anthropic_shared
    return {
        "policy": name,
        "calls": len(bodies),
        "prompt": total,
        "read": shared,
        "share": shared / total,
        "cost": round(1.25 * (total - shared) + 0.1 * shared),
    }


def results() -> list[dict[str, Any]]:
    keep = run(replace(ANTHROPIC, reasoning="all"))
    floor = run("anthropic")
    with _floor_every_turn():
        every = run("anthropic")
    return [
        measure(name, [(c, c.anthropic(max_tokens=1024)) for c in calls])
        for name, calls in (("keep all", keep), ("floor", floor), ("every turn", every))
    ]


def test_the_floor_costs_least_and_every_turn_loses_the_cache() -> None:
    keep, floor, every = results()
    assert floor["prompt"] < keep["prompt"]  # earlier thinking is left out after cuts
    assert every["share"] < floor["share"] and every["share"] < keep["share"]  # a miss at every new turn
    assert floor["cost"] < keep["cost"] and floor["cost"] < every["cost"]


if __name__ == "__main__":
    print(f"{'policy':<12}{'calls':>6}{'prompt tokens':>15}{'cache read':>12}{'share':>8}{'input cost':>12}")
    for r in results():
        print(f"{r['policy']:<12}{r['calls']:>6}{r['prompt']:>15,}{r['read']:>12,}{r['share']:>8.1%}{r['cost']:>12,}")
