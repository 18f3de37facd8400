"""The turn's context is selected for the room the call has, header included: a larger limit
never leaves the context out where a smaller one kept it."""

from __future__ import annotations

from ctxsieve import ContextEngine, ContextItem, Limits
from ctxsieve.conversation import Conversation
from ctxsieve.sources import CallableSource


def kb(query: str) -> list[ContextItem]:
    return [ContextItem(f"p{i}", f"Refunds page {i}: " + "refund rules apply here. " * 5, "kb") for i in range(8)]


def memory_at(ceiling: int) -> int:
    engine = ContextEngine([CallableSource(kb, name="kb")], budget=400)
    limits = Limits(input_ceiling=ceiling, output_reserve=10, protocol_overhead=10)
    conv = Conversation(engine, system="You answer.", limits=limits)
    conv.add_user("refunds?")
    return conv.prepare().report.sections["memory"]


def test_a_larger_limit_never_loses_the_context_a_smaller_one_kept():
    kept = [memory_at(c) for c in range(150, 400, 10)]
    assert all(m > 0 for m in kept), kept
    assert kept == sorted(kept), kept
