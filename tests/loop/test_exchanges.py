"""Issue 12, finding 14 (part): a tool call and its results always stay together, even when
other messages sit between them, in the loop's units, the Compactor, the engine's history units
and admission's records (one rule, ``ctxsieve.messages.exchanges``)."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from tests_loop_helpers import an_call, an_results, oa_call, oa_result

from ctxsieve.admission.messages import group_records, read_messages
from ctxsieve.loop import Compactor, SummaryRequest, units
from ctxsieve.sources.history import units as history_units

INTERJECTED = [
    {"role": "user", "content": "find the invoice " * 20},
    oa_call("a"),
    {"role": "user", "content": "also, hurry " * 20},
    oa_result("a", "invoice 42 " * 20),
    {"role": "assistant", "content": "it is invoice 42 " * 20},
    {"role": "user", "content": "thanks " * 20},
]


def test_units_keep_a_call_with_a_result_that_comes_after_an_interjection() -> None:
    assert [(u.start, u.end, u.kind) for u in units(INTERJECTED)] == [
        (0, 1, "message"),
        (1, 4, "tool_exchange"),
        (4, 5, "message"),
        (5, 6, "message"),
    ]
    anthropic = [an_call("t1", "t2"), {"role": "user", "content": "wait"}, an_results(("t1", "x"), ("t2", "y"))]
    assert [(u.start, u.end) for u in units(anthropic)] == [(0, 3)]


async def _summarise(req: SummaryRequest) -> str:
    return f"summary of {len(req.messages)}"


def test_the_compactor_never_leaves_a_call_or_a_result_alone() -> None:
    # keep_last=3 used to cut between the call and its result: the kept tail opened with an
    # orphan result (rejected by the provider), the call itself went into the summary
    out = asyncio.run(Compactor(_summarise, threshold_tokens=50, keep_last=3).compact(INTERJECTED))
    assert _paired(out)
    assert out[0]["content"].endswith("summary of 1") and out[1:] == INTERJECTED[1:]  # the exchange stays whole
    two = asyncio.run(Compactor(_summarise, threshold_tokens=50, keep_last=2).compact(INTERJECTED))
    assert two[0]["content"].endswith("summary of 4") and two[1:] == INTERJECTED[4:]  # or goes whole


def test_the_engine_history_units_and_admission_records_agree() -> None:
    assert [(s, len(u)) for s, u in history_units(INTERJECTED)] == [(0, 1), (1, 3), (4, 1), (5, 1)]
    records = group_records([m for i, raw in enumerate(INTERJECTED) for m in read_messages(raw, f"history[{i}]")])
    assert [(r.start, len(r.messages)) for r in records] == [(0, 1), (1, 3), (4, 1), (5, 1)]


def _paired(msgs: list[Any]) -> bool:
    """Every result has its call earlier in ``msgs`` and every call whose result exists has it."""
    called: set[str] = set()
    answered: set[str] = set()
    for m in msgs:
        for c in m.get("tool_calls") or ():
            called.add(c["id"])
        if m.get("role") == "tool":
            if m["tool_call_id"] not in called:
                return False
            answered.add(m["tool_call_id"])
    return called == answered


@st.composite
def conversations(draw: Any) -> list[dict[str, Any]]:
    """Calls answered later, with user and assistant messages (and other calls) in between."""
    msgs: list[dict[str, Any]] = []
    open_calls: list[str] = []
    for k in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["user", "assistant", "call", "result"]))
        if kind == "call":
            ids = [f"c{k}_{j}" for j in range(draw(st.integers(1, 2)))]
            msgs.append(oa_call(*ids))
            open_calls += ids
        elif kind == "result" and open_calls:
            cid = open_calls.pop(draw(st.integers(0, len(open_calls) - 1)))
            msgs.append(oa_result(cid, f"result {cid} " * 10))
        else:
            msgs.append({"role": "user" if kind == "user" else "assistant", "content": f"m{k} " * 10})
    for cid in open_calls:  # every call answered in the end
        msgs.append(oa_result(cid, f"late {cid} " * 10))
    return msgs


@given(conversations(), st.integers(0, 6))
def test_no_compaction_splits_an_exchange(msgs: list[dict[str, Any]], keep_last: int) -> None:
    out = asyncio.run(Compactor(_summarise, threshold_tokens=20, keep_last=keep_last).compact(msgs))
    assert _paired([m for m in out if not str(m.get("content", "")).startswith("[Summary")])
    spans = [(u.start, u.end) for u in units(msgs)]
    assert [m for s, e in spans for m in msgs[s:e]] == msgs  # every message in exactly one unit, in order
    assert [s for s, _ in history_units(msgs)] == [s for s, _ in spans]


def test_a_summary_is_as_private_as_what_it_summarises() -> None:
    # compaction must not make a private message public: the summary carries the most
    # restrictive audience of what it covers, so admission keeps it from other readers
    from ctxsieve.admission import Session

    chat: list[dict[str, Any]] = [
        {"role": "user", "content": "my salary is SECRET-90k " * 10, "audience": "alice"},
        {"role": "assistant", "content": "noted " * 10},
        {"role": "user", "content": "what is the weather " * 10},
        {"role": "assistant", "content": "sunny " * 10},
    ]

    async def echo(req: SummaryRequest) -> str:
        return req.transcript  # a summariser that repeats what it read

    out = asyncio.run(Compactor(echo, threshold_tokens=20, keep_last=1).compact(chat))
    assert "SECRET" in out[0]["content"] and out[0]["audience"] == ["alice"]
    assert "SECRET" not in Session().turn("q", history=out, audience="bob").admit().request.payload()
    again = asyncio.run(Compactor(echo, threshold_tokens=20, keep_last=0).compact([*out, *chat[2:]]))
    assert again[0]["audience"] == ["alice"]  # folding the summary in keeps its restriction
    public = asyncio.run(Compactor(echo, threshold_tokens=20, keep_last=1).compact(chat[1:]))
    assert "audience" not in public[0]
