"""Admission of one call in a long agent loop, against langchain-core's ``trim_messages``.

Scenario (issue 4): a 2,000-message conversation (500 prior turns: question, tool call, tool
result, answer), 200 memories, 30 tool schemas; the loop has just added a new tool result and
asks for the next call. Each benchmark asserts its result first, then measures.

Run: ``PYTHONPATH=python pytest benches/bench_admission.py --benchmark-enable -s``
(``-s`` shows the side-by-side ratio, measured in the same process.)
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import pytest

from ctxsieve.admission import Session, Turn

N_TURNS = 500  # x 4 messages = 2,000
N_MEMORIES = 200
N_TOOLS = 30


def conversation(turns: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    for t in range(turns):
        call = {"id": f"c{t}", "type": "function", "function": {"name": "search", "arguments": json.dumps({"q": t})}}
        msgs += [
            {"role": "user", "content": f"Question {t}: " + "how does the refund policy apply here? " * 4},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{t}", "content": f"Result {t}: " + "policy text, section 4.2. " * 24},
            {"role": "assistant", "content": f"Answer {t}: " + "refunds are possible within 30 days. " * 3},
        ]
    return msgs


MEMORIES = [
    {
        "id": f"m{i}",
        "content": f"Fact {i}: " + "customers on plan B get priority support. " * 3,
        "score": (i * 37 % 200) / 200,
    }
    for i in range(N_MEMORIES)
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": f"tool_{i}",
            "description": f"Tool {i}: looks things up in system {i}.",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}},
        },
    }
    for i in range(N_TOOLS)
]
RESULT = "New tool result: " + "row, value, status; " * 40


def started_turn(session: Session, history: list[dict[str, Any]]) -> Turn:
    """A turn whose first call is done and whose model asked for a tool."""
    turn = session.turn(
        "What changed since last week?",
        system="You are a support agent.",
        history=history,
        memories=MEMORIES,
        tools=TOOLS,
    )
    turn.admit()
    call = {"id": "now", "type": "function", "function": {"name": "tool_1", "arguments": '{"q": "changes"}'}}
    turn.record_response({"role": "assistant", "content": None, "tool_calls": [call]})
    return turn


def admit_after_tool_result(turn: Turn) -> Any:
    turn.add({"role": "tool", "tool_call_id": "now", "content": RESULT})
    return turn.admit()


def median_time(
    fn: Callable[[], Any], setup: Callable[[], Any] | None = None, rounds: int = 30, stat: Any = statistics.median
) -> float:
    """``stat`` (median by default; min for the flatness check, the least noise-prone) of
    ``rounds`` timings of ``fn``, each after an untimed ``setup``."""
    times = []
    for _ in range(rounds):
        arg = setup() if setup else None
        t = time.perf_counter()
        fn(arg) if setup else fn()  # type: ignore[call-arg]
        times.append(time.perf_counter() - t)
    return float(stat(times))


@pytest.fixture(scope="module")
def session_and_history() -> tuple[Session, list[dict[str, Any]]]:
    session = Session()
    history = conversation(N_TURNS)
    started_turn(session, history)  # warm the per-message cost cache, as a live session would be
    return session, history


def test_admission_checks(session_and_history: tuple[Session, list[dict[str, Any]]]) -> None:
    session, history = session_and_history
    assert len(history) == 2_000
    turn = started_turn(session, history)
    before = session.accountant.estimated_messages
    adm = admit_after_tool_result(turn)
    # cost grows with what changed: only the new tool result was estimated
    assert session.accountant.estimated_messages - before == 1
    r = adm.report
    assert r.estimated_input_tokens <= r.limit["input_limit"] == 131_072
    assert r.counts["history"]["omitted"] > 0 and r.counts["memory"]["included"] == 0  # the window is full
    assert r.counts["tools"]["included"] == 30 and adm.request.messages[-1].text == RESULT


def test_bench_admit_after_tool_result(benchmark: Any, session_and_history: Any) -> None:
    session, history = session_and_history
    benchmark.group = "admission: 2,000 messages, 200 memories, 30 tools"
    adm = benchmark.pedantic(
        admit_after_tool_result, setup=lambda: ((started_turn(session, history),), {}), rounds=50, iterations=1
    )
    assert adm.report.call_index == 1


def lc_conversation(history: list[dict[str, Any]]) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list[Any] = [SystemMessage("You are a support agent.")]
    for m in history:
        if m["role"] == "user":
            out.append(HumanMessage(m["content"]))
        elif m["role"] == "tool":
            out.append(ToolMessage(m["content"], tool_call_id=m["tool_call_id"]))
        elif m.get("tool_calls"):
            calls = [
                {"id": c["id"], "name": c["function"]["name"], "args": json.loads(c["function"]["arguments"])}
                for c in m["tool_calls"]
            ]
            out.append(AIMessage("", tool_calls=calls))
        else:
            out.append(AIMessage(m["content"]))
    return out


def test_bench_langchain_trim_messages(benchmark: Any, session_and_history: Any) -> None:
    lc = pytest.importorskip("langchain_core.messages")
    from langchain_core.messages.utils import count_tokens_approximately

    _, history = session_and_history
    msgs = [
        *lc_conversation(history),
        lc.HumanMessage("What changed since last week?"),
        lc.ToolMessage(RESULT, tool_call_id="now"),
    ]

    def trim() -> list[Any]:
        return lc.trim_messages(
            msgs,
            max_tokens=131_072 - 8_192,
            token_counter=count_tokens_approximately,
            strategy="last",
            include_system=True,
            start_on="human",
        )

    kept = trim()
    assert 0 < len(kept) < len(msgs)
    benchmark.group = "admission: 2,000 messages, 200 memories, 30 tools"
    benchmark.pedantic(trim, rounds=10, iterations=1)


def test_side_by_side_ratio_and_flat_cost(session_and_history: Any) -> None:
    """Both measured in one run; admission's per-call time must not grow with the conversation."""
    lc = pytest.importorskip("langchain_core.messages")
    from langchain_core.messages.utils import count_tokens_approximately

    session, history = session_and_history
    ours = median_time(admit_after_tool_result, setup=lambda: started_turn(session, history), rounds=40)
    msgs = [
        *lc_conversation(history),
        lc.HumanMessage("What changed since last week?"),
        lc.ToolMessage(RESULT, tool_call_id="now"),
    ]
    theirs = median_time(
        lambda: lc.trim_messages(
            msgs, max_tokens=131_072 - 8_192, token_counter=count_tokens_approximately, strategy="last"
        ),
        rounds=10,
    )
    short_session, short = Session(), conversation(N_TURNS // 4)
    started_turn(short_session, short)
    ours_short = median_time(admit_after_tool_result, setup=lambda: started_turn(short_session, short), rounds=40)
    best = median_time(admit_after_tool_result, setup=lambda: started_turn(session, history), rounds=40, stat=min)
    best_short = median_time(
        admit_after_tool_result, setup=lambda: started_turn(short_session, short), rounds=40, stat=min
    )
    long_session, long = Session(), conversation(N_TURNS * 4)
    started_turn(long_session, long)
    ours_long = median_time(admit_after_tool_result, setup=lambda: started_turn(long_session, long), rounds=40)
    best_long = median_time(
        admit_after_tool_result, setup=lambda: started_turn(long_session, long), rounds=40, stat=min
    )

    def cold() -> Any:  # a fresh session: every message estimated and rendered once
        return started_turn(Session(), history)

    ours_cold = median_time(cold, rounds=5)
    warm_start = median_time(lambda: started_turn(session, history), rounds=10)
    print(
        f"\ncold (fresh session, turn start + first call): {ours_cold * 1e3:.1f} ms; "
        f"warm turn start + first call: {warm_start * 1e3:.1f} ms"
        f"\nadmit after a new tool result, 2,000 messages: {ours * 1e3:.3f} ms; "
        f"trim_messages: {theirs * 1e3:.2f} ms; ratio {theirs / ours:.0f}x\n"
        f"admit at 500 / 2,000 / 8,000 messages: {ours_short * 1e3:.3f} / {ours * 1e3:.3f} / {ours_long * 1e3:.3f} ms"
    )
    assert ours < 2e-3, f"admission took {ours * 1e3:.2f} ms (target: under 2 ms)"
    # flat in the conversation's length: 16x more messages, well under 2x the time (best of 40)
    assert best_long < 2 * max(best_short, best), (best_short, best, best_long)
