"""Every trace reason, in one window whose fill is worked out by hand below."""

from __future__ import annotations

import pytest

from ctxsieve import (
    BudgetExceededError,
    ContextEngine,
    Everything,
    FixedSlots,
    ScoredKnapsack,
    SourceConfig,
    StaticSource,
)
from ctxsieve.types import EXCLUDED_REASONS, INCLUDED_REASONS, MESSAGE_FRAMING_TOKENS

from .helpers import item, only_given_tokens

# The windows below open two messages (the system message of the stable instruction and the context
# message of the rest): the budget pays their framing first, and the fill worked out by hand
# below is of what is left. Items cost their given tokens (only_given_tokens); a history item
# of 1 token costs 5 with its message's framing.
FRAMING = 2 * MESSAGE_FRAMING_TOKENS


def reasons_engine(policy=None, budget=100 + FRAMING):
    a = item("a", 0.9, tokens=30)
    kb = [a, item("b", 0.8, tokens=30), item("c", 0.7, tokens=30), item("d", 0.1, tokens=5)]
    kb.append(item("dep", 0.6, tokens=5, deprecated=True))
    web = [item("w1", 0.9, tokens=8), item("w2", 0.5, tokens=8)]
    hist = [
        item("h0", 0, tokens=1, kind="history", order_key="0"),
        item("h1", 1, tokens=1, kind="history", order_key="1"),
    ]
    sys = item("sys", 1.0, tokens=20, pinned=True, kind="instruction", stability="stable")
    return ContextEngine(
        [
            StaticSource([sys], name="sys"),
            StaticSource(kb, name="kb"),
            SourceConfig(StaticSource(web, name="web"), max_tokens=10),
            SourceConfig(StaticSource(hist, name="hist"), min_items=1),
            StaticSource([item("a_copy", 0.3, tokens=30, content=a.content)], name="mirror"),
        ],
        budget=budget,
        policy=policy or ScoredKnapsack(min_score=0.3),
        estimator=only_given_tokens,
    )


def test_every_reason_in_one_window():
    # Calibrated by rank within each source: kb a 1.0, b 0.8, c 0.6, dep 0.4, d 0.2; web w1 1.0,
    # w2 0.5; hist h1 1.0, h0 0.5; mirror a_copy 1.0 (alone), a duplicate of a that loses the
    # id tie-break. Fill of 100: sys 20 pinned; h1 5 (min_items) -> 25; dep out; then by score:
    # a 30 -> 55, w1 8 -> 63, b 30 -> 93, c 30 would be 123 (budget), h0 5 -> 98,
    # w2 would put web at 16 > cap 10 (source_cap), d 0.2 < floor 0.3 (below_floor).
    window = reasons_engine().build_sync("q")
    got = {e.id: e.reason for e in window.trace}
    assert got == {
        "sys": "pinned",
        "h1": "min_items",
        "a": "selected",
        "w1": "selected",
        "b": "selected",
        "h0": "selected",
        "c": "budget",
        "w2": "source_cap",
        "d": "below_floor",
        "dep": "deprecated",
        "a_copy": "duplicate_of:a",
    }
    assert window.tokens_used == 98 + FRAMING and window.framing_tokens == FRAMING
    assert {e.id for e in window.trace if e.included} == {i.id for i in window.items}
    assert set(window.trace.reasons()) == set(INCLUDED_REASONS) | set(EXCLUDED_REASONS)
    assert window.trace.entry("dep").adjustments == ("deprecated",)
    assert window.trace.entry("b").calibrated == pytest.approx(0.8)


def test_include_deprecated_lets_it_compete():
    policy = ScoredKnapsack(min_score=0.3, include_deprecated=True)
    # dep (0.4, 5 tokens) now competes after h0 (0.5): at 100 it would be 103 (budget) ...
    assert reasons_engine(policy).build_sync("q").trace.entry("dep").reason == "budget"
    # ... and with 3 more tokens it goes in
    window = reasons_engine(policy, budget=103 + FRAMING).build_sync("q")
    assert window.trace.entry("dep").reason == "selected"
    assert window.tokens_used == 103 + FRAMING


def test_pinned_over_budget_names_each_item():
    engine = ContextEngine(
        [StaticSource([item("p1", tokens=20, pinned=True), item("p2", tokens=25, pinned=True)], name="s")],
        budget=30,
        estimator=only_given_tokens,
    )
    with pytest.raises(BudgetExceededError) as info:
        engine.build_sync("q")
    assert info.value.items == [("p1", 20), ("p2", 25)]
    assert "p1 (20 tokens)" in str(info.value) and "p2 (25 tokens)" in str(info.value)
    assert info.value.budget == 30
    assert f"the budget of 30 less {MESSAGE_FRAMING_TOKENS} tokens of message framing" in str(info.value)


def test_everything_raises_when_it_cannot_fit_and_truncates_on_request():
    with pytest.raises(BudgetExceededError) as info:
        reasons_engine(Everything()).build_sync("q")
    # every candidate except the duplicate and the deprecated one
    assert info.value.budget == 100 + FRAMING
    assert dict(info.value.items)["c"] == 30 and "a_copy" not in dict(info.value.items)
    assert sum(t for _, t in info.value.items) == 20 + 30 + 30 + 30 + 5 + 8 + 8 + 5 + 5
    window = reasons_engine(Everything(truncate=True)).build_sync("q")
    # no floor, no caps: sys 20, h1 5 (min_items), then a, w1, b -> 93, c no, h0 and w2 tie at
    # 0.5 (h0 first by id) -> 98, w2 would be 106 (budget), d 0.2 5 tokens -> 103 (budget)
    assert window.trace.entry("w2").reason == "budget"
    assert window.trace.entry("d").reason == "budget"
    assert window.tokens_used == 98 + FRAMING


def test_everything_fits():
    window = reasons_engine(Everything(), budget=1000).build_sync("q")
    assert window.tokens_used == 141 + FRAMING  # sys 20, a b c 90, d 5, w1 w2 16, h0 h1 10
    assert window.trace.entry("dep").reason == "deprecated"


def test_fixed_slots_caps_each_source_by_share():
    # kb gets 40 of 100: a (30) then b would be 60 -> source_cap; unlisted sources (web, hist,
    # mirror, sys) split the remaining 0.6 -> 15 each; web's own max_tokens (10) is smaller.
    window = reasons_engine(FixedSlots({"kb": 0.4})).build_sync("q")
    assert window.trace.entry("a").reason == "selected"
    assert window.trace.entry("b").reason == "source_cap"
    assert window.trace.entry("w2").reason == "source_cap"
    assert window.trace.entry("sys").reason == "pinned"


def test_beta_prefers_value_per_token():
    small, big = item("small", 0.5, tokens=4), item("big", 0.9, tokens=40)
    src = StaticSource([small, big], name="kb")
    # 40 tokens for the items, and the framing of the one context message they open
    budget = 40 + MESSAGE_FRAMING_TOKENS
    plain = ContextEngine([SourceConfig(src, mode="raw")], budget=budget, estimator=only_given_tokens).build_sync("q")
    assert [i.id for i in plain.items] == ["big"]
    # with beta=1: small 0.5/4 = 0.125 beats big 0.9/40 = 0.0225; then big no longer fits
    dense = ContextEngine(
        [SourceConfig(src, mode="raw")], budget=budget, policy=ScoredKnapsack(beta=1), estimator=only_given_tokens
    ).build_sync("q")
    assert [i.id for i in dense.items] == ["small"]


@pytest.mark.parametrize("policy", [ScoredKnapsack(), FixedSlots({}), Everything(), Everything(truncate=True)])
def test_a_pinned_deprecated_item_is_pinned_under_every_policy(policy):
    # pinned means it must go in: the fill puts pinned items first, before deprecation is
    # looked at, and Everything without truncation must not decide otherwise
    pinned = item("rule", 1.0, tokens=5, pinned=True, deprecated=True, kind="instruction", stability="stable")
    engine = ContextEngine([StaticSource([pinned, item("k", 0.5, tokens=5)], name="kb")], budget=100, policy=policy)
    window = engine.build_sync("q")
    assert window.trace.entry("rule").reason == "pinned"
    assert [i.id for i in window.items] == ["rule", "k"]
