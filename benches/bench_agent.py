"""The end-to-end agent benchmark (issue 13; docs/agent-benchmark.md).

    python benches/bench_agent.py               # one row per path, then the per-call timings
    python benches/bench_agent.py --turns 90 --check   # a longer script; exit 1 on a missed target
    pytest benches/bench_agent.py --benchmark-only --benchmark-group-by=group

The pytest-benchmark groups time the conversation's own work for one call (``prepare()`` after
a new tool result) at 100, 500 and 2,000 messages, against admitting the same conversation
from scratch, and the rendering of the request apart. They measure; the targets on behaviour
are asserted by tests/conversation/test_agent_benchmark.py.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pytest

from benches.agent import path_conversation
from benches.agent.script import build
from benches.agent.timing import (
    LIMITS,
    SIZES,
    Grown,
    from_scratch_admission,
    from_scratch_conversation,
    split_turn,
)
from ctxsieve.admission import Session

ROUNDS = 20  # timed calls per size: the conversation grows by 2 messages per call
# each path is a module with run(script) -> Run; a path whose module is missing is not wired yet
PATHS = {
    "a: Conversation by hand": "benches.agent.path_conversation",
    "b: LangChain create_agent": "benches.agent.path_langchain",
    "c: PydanticAI FunctionModel": "benches.agent.path_pydantic_ai",
}
TARGETS = "share >= 0.85, 0 over limit, 0 orphans, system+pinned 100 %"


# -- pytest-benchmark groups ----------------------------------------------------------------------


def test_script_path_a(benchmark: Any) -> None:
    script = build()
    result = path_conversation.run(script)
    assert len(result.summary.calls) == script.calls + result.fallbacks and result.cuts >= 1
    benchmark.group = "agent: the 30-turn script, end to end"
    benchmark.pedantic(path_conversation.run, args=(script,), rounds=3, iterations=1)


@pytest.mark.parametrize("n", SIZES)
def test_prepare(benchmark: Any, n: int) -> None:
    g = Grown(n, headroom=2 * (ROUNDS + 1))
    g.next_result()
    call = g.conv.prepare()
    # nothing cut, the whole previous request is this one's prefix: the steady state
    assert len(call.messages) == len(g.conv.transcript) and call.previous_end == len(call.messages) - 2
    benchmark.group = f"agent: one call at {n:,} messages"
    benchmark.pedantic(g.conv.prepare, setup=g.next_result, rounds=ROUNDS, iterations=1)
    assert len(g.conv.transcript) <= n


@pytest.mark.parametrize("n", SIZES)
def test_from_scratch_conversation(benchmark: Any, n: int) -> None:
    g = Grown(n)
    g.next_result()
    live = g.conv.prepare()
    history = g.history()
    assert from_scratch_conversation(history).estimated_input_tokens == live.estimated_input_tokens
    benchmark.group = f"agent: one call at {n:,} messages"
    benchmark.pedantic(from_scratch_conversation, args=(history,), rounds=5, iterations=1)


@pytest.mark.parametrize("warm", [False, True], ids=["fresh-session", "warm-session"])
@pytest.mark.parametrize("n", SIZES)
def test_from_scratch_admission(benchmark: Any, n: int, warm: bool) -> None:
    g = Grown(n)
    g.next_result()
    parts = split_turn(g.history())
    session = Session(limits=LIMITS)
    adm = from_scratch_admission(session, parts)
    assert adm.report.counts["history"]["omitted"] == 0 and adm.request.messages[-1].role == "tool"

    def one() -> Any:
        return from_scratch_admission(session if warm else Session(limits=LIMITS), parts)

    benchmark.group = f"agent: one call at {n:,} messages"
    benchmark.pedantic(one, rounds=5, iterations=1)


@pytest.mark.parametrize("shape", ["openai", "anthropic"])
@pytest.mark.parametrize("n", SIZES)
def test_render(benchmark: Any, n: int, shape: str) -> None:
    g = Grown(n)
    g.next_result()
    call = g.conv.prepare()
    render: Callable[[], dict[str, Any]] = call.openai if shape == "openai" else lambda: call.anthropic(max_tokens=512)
    body = render()
    assert len(body["messages"]) >= (len(call.messages) + 1 if shape == "openai" else len(call.messages) // 2)
    benchmark.group = f"agent: rendering the request at {n:,} messages"
    benchmark.pedantic(render, rounds=ROUNDS, iterations=1)


# -- the one-run table ----------------------------------------------------------------------------


def median(fn: Callable[[], Any], rounds: int, setup: Callable[[], Any] | None = None) -> tuple[float, Any]:
    """The median time of ``rounds`` calls of ``fn`` (each after an untimed ``setup``), and
    what the last call returned."""
    times = []
    out = None
    for _ in range(rounds):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def run_path(module: str, turns: int) -> tuple[Any, str]:
    """``(Run, "")``, or ``(None, why not)`` for a path that is not wired or cannot run here."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        return None, "not yet wired" if exc.name == module else f"needs {exc.name}"
    return mod.run(build(turns)), ""


def call_rows(summary: Any) -> list[tuple[str, ...]]:
    """One row per request a path rendered."""
    return [
        (
            str(i),
            str(c.turn),
            c.label,
            str(c.messages),
            str(c.prompt_tokens),
            f"{c.shared_tokens / c.prompt_tokens:.3f}",
            f"{c.anthropic_shared / c.anthropic_tokens:.3f}" if c.anthropic_tokens else "-",
            str(c.breakpoints),
            f"{c.recount} / {c.limit}",
            "-" if c.estimate is None else str(c.estimate),
            str(len(c.orphans)),
            "yes" if c.system_ok and c.pinned_ok else "NO",
        )
        for i, c in enumerate(summary.calls)
    ]


CALL_HEADER = ("#", "turn", "call", "messages", "tokens", "share", "Anthropic", "marks", "recount / limit")


def path_rows(turns: int, calls: bool = False) -> tuple[list[tuple[str, ...]], list[str]]:
    rows: list[tuple[str, ...]] = []
    missed: list[str] = []
    for title, module in PATHS.items():
        r, why = run_path(module, turns)
        if r is None:
            rows.append((title, why, *["-"] * 11))
            continue
        s = r.summary
        if calls:
            print(f"{title}: every request\n")
            print_table((*CALL_HEADER, "estimate", "orphans", "system+pinned"), call_rows(s))
            print()
        own = "-" if s.own_share is None else f"{s.own_share:.3f}"
        rows.append(
            (
                title,
                str(len(s.calls)),
                f"{s.share:.3f}",
                f"{s.anthropic_share:.3f}" if any(c.anthropic_tokens for c in s.calls) else "-",
                own,
                str(s.over_limit),
                f"{s.max_fill:.2f}",
                str(s.orphans),
                f"{100 * s.present:.0f} %",
                str(r.cuts),
                str(r.compactions),
                str(r.fallbacks),
                str(r.offloaded),
            )
        )
        if s.share < 0.85 or s.over_limit or s.orphans or s.present < 1:
            missed.append(f"{title}: a target is missed ({TARGETS})")
    return rows, missed


def timing_rows() -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for n in SIZES:
        g = Grown(n, headroom=2 * ROUNDS)
        prepare, call = median(g.conv.prepare, ROUNDS, setup=g.next_result)
        openai, _ = median(call.openai, ROUNDS)
        anthropic, _ = median(functools.partial(call.anthropic, max_tokens=512), ROUNDS)
        history = g.history()
        scratch, _ = median(functools.partial(from_scratch_conversation, history), 5)
        parts = split_turn(history)
        fresh, _ = median(lambda: from_scratch_admission(Session(limits=LIMITS), parts), 5)  # noqa: B023
        warm_session = Session(limits=LIMITS)
        from_scratch_admission(warm_session, parts)
        warm, _ = median(functools.partial(from_scratch_admission, warm_session, parts), 5)
        rows.append(
            (
                f"{n:,}",
                f"{prepare * 1e3:.3f} ms",
                f"{openai * 1e3:.2f} ms",
                f"{anthropic * 1e3:.2f} ms",
                f"{scratch * 1e3:.1f} ms ({scratch / prepare:,.0f}x)",
                f"{fresh * 1e3:.1f} ms ({fresh / prepare:,.0f}x)",
                f"{warm * 1e3:.1f} ms ({warm / prepare:,.0f}x)",
            )
        )
    return rows


def print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    table = [header, *rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for k, r in enumerate(table):
        print("| " + " | ".join(v.ljust(w) for v, w in zip(r, widths)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30, help="user turns of the script (default 30)")
    parser.add_argument("--no-timing", action="store_true", help="the path table only")
    parser.add_argument("--calls", action="store_true", help="also one row per request of each wired path")
    parser.add_argument("--check", action="store_true", help=f"exit 1 unless every wired path meets: {TARGETS}")
    args = parser.parse_args()
    rows, missed = path_rows(args.turns, args.calls)
    print(f"{args.turns}-turn scripted support conversation; targets: {TARGETS}\n")
    print_table(
        (
            "path",
            "calls",
            "prefix share",
            "Anthropic cached",
            "own figure",
            "over limit",
            "max fill",
            "orphans",
            "system+pinned",
            "cuts",
            "compactions",
            "fallbacks",
            "offloaded",
        ),
        rows,
    )
    if not args.no_timing:
        print(f"\nper call, after a new tool result (median of {ROUNDS}; from scratch: median of 5)\n")
        header = (
            "messages",
            "prepare()",
            "openai()",
            "anthropic()",
            "fresh Conversation",
            "admission, fresh Session",
            "admission, warm Session",
        )
        print_table(header, timing_rows())
    for m in missed:
        print("MISSED:", m, file=sys.stderr)
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
