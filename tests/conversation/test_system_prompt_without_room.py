"""The system prompt is required in every call, also when the first call has no room for context."""

from __future__ import annotations

import pytest

from ctxsieve import ContextBudgetError, ContextEngine, Limits, StaticSource
from ctxsieve.conversation import Conversation


def _conv() -> Conversation:
    engine = ContextEngine([StaticSource("Always cite.", pinned=True)], budget=100)
    limits = Limits(input_ceiling=300, output_reserve=10, protocol_overhead=10)
    return Conversation(engine, system="You are the support agent.", limits=limits)


def test_the_first_call_keeps_its_system_prompt_when_there_is_no_room_for_context():
    conv = _conv()
    # the system prompt (13 tokens) + overhead 10 + this message (271) leave 6: no framed block fits
    conv.add_user("x" * 800)
    call = conv.prepare()
    assert call.system == "You are the support agent."
    assert call.report.sections["system"] == 13 and call.report.sections["memory"] == 0
    assert call.estimated_input_tokens <= call.limit.tokens
    assert any("no room for engine context" in n for n in call.report.notes)


def test_a_first_call_whose_system_prompt_does_not_fit_is_refused():
    conv = _conv()
    conv.add_user("x" * 840)  # 284 tokens: with the system prompt and overhead, 307 > 300
    with pytest.raises(ContextBudgetError) as err:
        conv.prepare()
    assert err.value.breakdown["system"] == 13
