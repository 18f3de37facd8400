"""The minimum-gain rule: an optional compaction happens only when the tokens it saves over the
expected remaining calls repay the cache its rewrite invalidates and the summariser's call."""

from __future__ import annotations

from itertools import pairwise

import pytest

from ctxsieve import Conversation, Limits
from ctxsieve.conversation.compaction import REWEIGH_GROWTH
from ctxsieve.conversation.compaction_gain import (
    ANTHROPIC_5M,
    OPENAI,
    CachePricing,
    CompactionPolicy,
    GainInputs,
    decide,
)
from ctxsieve.errors import ConfigError
from tests.conversation.helpers import TOOLS, run_turn

# D=10,000 dropped, S=1,000 summary (all of it written by the summariser), R=2,000 retained after
# it, P=13,000 read from cache by the summariser, U=100 uncached (its instruction)
INPUTS = dict(dropped=10_000, summary=1_000, verbatim=0, retained=2_000, prefix=13_000, uncached=100)


def test_the_rule_declines_a_short_remaining_run_and_accepts_a_long_one():
    # Anthropic, 5-minute TTL: r=0.1, w=1.25, o=5
    #   rewrite    = 1.25 * (1,000 + 2,000) - 0.1 * (10,000 + 2,000) = 3,750 - 1,200 = 2,550
    #   summariser = 0.1 * 13,000 + 1.25 * 100 + 5 * 1,000           = 1,300 + 125 + 5,000 = 6,425
    #   saving     = 0.1 * (10,000 - 1,000)                          = 900 per later call
    #   break-even = (2,550 + 6,425) / 900 = 9.97 later calls
    short = decide(GainInputs(**INPUTS, remaining_calls=5), ANTHROPIC_5M)
    assert (short.rewrite, short.summariser, short.saving_per_call) == pytest.approx((2_550, 6_425, 900))
    assert short.counted_calls == 4 and short.gain == pytest.approx(4 * 900 - 8_975)
    assert short.outcome == "declined" and not short.pays
    assert short.break_even_calls == pytest.approx(8_975 / 900)
    long = decide(GainInputs(**INPUTS, remaining_calls=40), ANTHROPIC_5M)
    assert long.outcome == "compacted" and long.gain == pytest.approx(39 * 900 - 8_975)
    # just either side of break-even: 9 later calls do not repay it, 10 do
    assert not decide(GainInputs(**INPUTS, remaining_calls=10), ANTHROPIC_5M).pays
    assert decide(GainInputs(**INPUTS, remaining_calls=11), ANTHROPIC_5M).pays


def test_a_prefix_that_is_not_cached_costs_nothing_to_rewrite():
    # the last call's prefix is gone (a cut or a changed system prompt since): both ways the next
    # call writes what it sends, so the rewrite saves w * (D - S) at once
    d = decide(GainInputs(**INPUTS, remaining_calls=1, cached=False), ANTHROPIC_5M)
    assert d.rewrite == pytest.approx(1.25 * (1_000 - 10_000))


def test_without_a_write_premium_the_rewrite_can_pay_for_itself_at_once():
    # OpenAI (r=0.5, w=1, o=4): rewrite = 3,000 - 0.5 * 12,000 = -3,000: the next call is cheaper
    d = decide(GainInputs(**INPUTS, remaining_calls=1), OPENAI)
    assert d.rewrite == pytest.approx(-3_000)
    assert d.summariser == pytest.approx(0.5 * 13_000 + 100 + 4 * 1_000)
    assert d.counted_calls == 0 and not d.pays  # the summariser's own call is not repaid by one call


def test_a_forced_decision_is_reported_whatever_it_gains():
    d = decide(GainInputs(**INPUTS, remaining_calls=1), ANTHROPIC_5M, forced=True)
    assert d.outcome == "forced" and d.gain < 0
    assert d.event()["forced"] is True and d.event()["gain"] == round(d.gain, 3)
    assert "compaction forced" in d.note() and "D=10000" in d.note()


@pytest.mark.parametrize(
    "bad",
    [
        dict(compact_at=0),
        dict(compact_at=1.5),
        dict(compact_at=True),
        dict(summary_ratio=2),
        dict(remaining_calls=-1),
        dict(remaining_calls=2.5),
        dict(compact_at=float("nan")),
        dict(summary_ratio=float("nan")),
        dict(pricing={"read": 0.1, "write": 1.25, "output": 5.0}),
        dict(pricing=None),
        dict(rule="no"),
    ],
)
def test_a_bad_policy_is_a_config_error_naming_the_field(bad):
    with pytest.raises(ConfigError, match=r"CompactionPolicy\." + next(iter(bad))):
        CompactionPolicy(**bad)


def test_bad_prices_are_config_errors():
    with pytest.raises(ConfigError, match=r"CachePricing\.read"):
        CachePricing(-0.1, 1.0, 4.0)
    with pytest.raises(ConfigError, match="more than a write"):
        CachePricing(2.0, 1.0, 4.0)
    for bad in (float("nan"), float("inf"), "0.1", True):
        with pytest.raises(ConfigError, match=r"CachePricing\.output: expected a finite number >= 0"):
            CachePricing(0.1, 1.0, bad)
    with pytest.raises(ConfigError, match=r"CachePricing\.source: expected a str"):
        CachePricing(0.1, 1.0, 4.0, source=None)
    with pytest.raises(ConfigError, match="compaction: expected a CompactionPolicy"):
        Conversation(compaction={"compact_at": 0.5})


class Summariser:
    timeout = 5.0

    def __init__(self) -> None:
        self.requests: list = []

    async def summarize(self, req):
        self.requests.append(req)
        return "They asked about orders; every order shipped."


def _run(remaining: int, turns: int = 8):
    events: list = []
    summ = Summariser()
    conv = Conversation(
        system="You track orders.",
        tools=TOOLS,
        limits=Limits(input_ceiling=8_000, output_reserve=100, protocol_overhead=50),
        compactor=summ,
        compaction=CompactionPolicy(compact_at=0.3, remaining_calls=remaining),
        on_event=lambda name, payload: events.append((name, payload)),
    )
    calls = [c for turn in range(1, turns + 1) for c in run_turn(conv, turn, calls=2, result_chars=400)]
    decisions = [p for name, p in events if name == "lifecycle.compaction"]
    return conv, calls, decisions, summ


def test_in_a_conversation_a_short_expected_run_keeps_the_cache():
    conv, calls, decisions, summ = _run(remaining=2)
    assert decisions and all(d["outcome"] == "declined" for d in decisions)
    assert not summ.requests and not conv.cuts  # the summariser is never asked, nothing is cut
    assert all(c.estimated_input_tokens <= c.limit.tokens for c in calls)
    first = decisions[0]
    assert first["remaining_calls"] == 2 and first["gain"] < 0 and first["forced"] is False
    # the arithmetic of the event is the rule's: gain = counted * saving - rewrite - summariser
    expect = first["counted_calls"] * first["saving_per_call"] - first["rewrite_cost"] - first["summariser_cost"]
    assert first["gain"] == pytest.approx(expect, abs=0.01)
    # ... and the call made after each decision says so in its report
    reported = [c for c in calls if "compaction" in c.report.counts]
    assert len(reported) == len(decisions)
    assert all(c.report.counts["compaction"]["compacted"] == 0 for c in reported)
    assert any(n.startswith("compaction declined: gain -") for n in reported[0].report.notes)
    # a declined compaction keeps the whole prefix: every call after the first of a turn reads it
    assert all(c.previous_end > 0 for c in calls[1:])


def test_in_a_conversation_a_long_expected_run_compacts():
    conv, calls, decisions, summ = _run(remaining=500)
    assert [d["outcome"] for d in decisions][:1] == ["compacted"]
    assert summ.requests and conv.cuts and all(c.summarized for c in conv.cuts)
    d = decisions[0]
    assert d["gain"] > 0 and d["remaining_calls"] == 500 and d["dropped"] > d["summary"]
    reported = next(c for c in calls if "compaction" in c.report.counts)
    assert reported.report.counts["compaction"]["compacted"] == 1
    assert reported.messages[0].text.startswith("[Summary of the ")
    assert summ.requests[0].decision is not None and summ.requests[0].decision.pays


def test_a_call_that_does_not_fit_compacts_whatever_the_rule_says():
    events: list = []
    summ = Summariser()
    conv = Conversation(
        system="s",
        tools=TOOLS,
        limits=Limits(input_ceiling=2_500, output_reserve=100, protocol_overhead=50),
        compactor=summ,
        compaction=CompactionPolicy(remaining_calls=1),  # no call left to repay it
        on_event=lambda name, payload: events.append((name, payload)),
    )
    calls = [c for turn in range(1, 16) for c in run_turn(conv, turn, calls=3, result_chars=300)]
    decisions = [p for name, p in events if name == "lifecycle.compaction"]
    assert decisions and all(d["outcome"] == "forced" and d["forced"] for d in decisions)
    assert all(d["gain"] < 0 for d in decisions)  # it does not pay, and happens anyway
    assert summ.requests and all(c.summarized for c in conv.cuts)
    assert all(c.estimated_input_tokens <= c.limit.tokens for c in calls)


def test_after_a_decline_the_rule_is_weighed_again_only_once_the_history_grew_by_a_tenth():
    conv, calls, decisions, summ = _run(remaining=2, turns=20)
    assert decisions and not summ.requests and not conv.cuts
    weighed = [c for c in calls if "compaction" in c.report.counts]
    assert len(weighed) == len(decisions) < len(calls) / 4  # not at every call past the threshold
    history = [c.report.sections["history"] for c in weighed]
    assert all(b >= REWEIGH_GROWTH * a for a, b in pairwise(history))
