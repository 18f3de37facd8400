"""Each metric on hand-made windows, with the expected values worked out by hand."""

from __future__ import annotations

import pytest

from ctxsieve.eval import metrics
from ctxsieve.eval.runner import CallRecord
from ctxsieve.eval.summary import check_targets, recall_by_slice, summarize

# A window as the runner sees it: (document id, tokens) per item; None is history or an
# instruction. Evidence = 40 + 20 + 30 + 10 = 100 tokens; 60 from relevant pages (a, b).
WINDOW = [(None, 50), ("a", 40), ("n1", 20), ("b", 20), ("old", 10), ("x", 10), (None, 25)]
DOCS = ["a", "n1", "b", "old", "x"]


def test_recall_counts_documents_not_chunks():
    assert metrics.recall_at_budget(DOCS, {"a", "b", "c", "d"}) == 0.5
    assert metrics.recall_at_budget(["a", "a"], {"a"}) == 1.0
    assert metrics.recall_at_budget(DOCS, set()) is None  # unanswerable: undefined, not perfect


def test_precision_per_token_ignores_history_and_instructions():
    # relevant evidence 40 + 20 = 60 over evidence 40 + 20 + 20 + 10 + 10 = 100
    assert metrics.precision_per_token(WINDOW, {"a", "b"}) == pytest.approx(0.6)
    assert metrics.precision_per_token([(None, 100)], {"a"}) == 0.0


def test_a_duplicate_of_a_relevant_page_is_not_precision():
    # page a (size 40) twice, as a chunk and as a concept: 40 useful tokens of 40 + 40 + 20
    items = [("a", 40), ("a", 40), ("n1", 20)]
    assert metrics.precision_per_token(items, {"a"}, sizes={"a": 40}) == pytest.approx(0.4)
    # two different chunks of a 60-token page both count
    assert metrics.precision_per_token([("a", 30), ("a", 30)], {"a"}, sizes={"a": 60}) == 1.0


def test_noise_share_is_a_share_of_evidence_tokens():
    assert metrics.noise_share(WINDOW, {"n1", "x"}) == pytest.approx(0.3)  # (20 + 10) / 100
    assert metrics.noise_share([], {"n1"}) == 0.0


def test_distractor_and_superseded_are_per_window_flags():
    assert metrics.holds_any(DOCS, {"old", "zzz"}) is True
    assert metrics.holds_any(DOCS, {"zzz"}) is False


def test_prefix_cache_share_by_hand():
    # bytes/3 estimates: p1 = 12 bytes (4 tokens); p2 = 24 bytes (8 tokens) shares 12 bytes with
    # p1 (4 tokens); p3 = 18 bytes (6 tokens) shares "SYSTEM" = 6 bytes (2 tokens) with p2.
    p1 = "SYSTEMhist01"
    p2 = "SYSTEMhist01hist02query2"
    p3 = "SYSTEMxxxxxxxxxxxx"
    assert metrics.shared_prefix_tokens(None, p1) == (0, 4)
    assert metrics.shared_prefix_tokens(p1, p2) == (4, 8)
    assert metrics.shared_prefix_tokens(p2, p3) == (2, 6)
    # token-weighted over the follow-up calls: (4 + 2) / (8 + 6)
    assert metrics.prefix_cache_share([p1, p2, p3]) == pytest.approx(6 / 14)
    assert metrics.prefix_cache_share([p1]) is None


def test_common_prefix_is_character_exact():
    assert metrics.common_prefix("abc", "abd") == "ab"
    assert metrics.common_prefix("", "abc") == ""
    assert metrics.common_prefix("héllo wörld", "héllo world") == "héllo w"


def test_stable_prefix_reuse():
    assert metrics.stable_prefix_reuse(["h", "h", "h"]) == 1.0
    assert metrics.stable_prefix_reuse(["h", "g", "g", "h"]) == pytest.approx(1 / 3)
    assert metrics.stable_prefix_reuse(["h"]) is None


def call(config: str, session: str, turn: int, turns: int, **kw) -> CallRecord:
    base = dict(
        config=config,
        budget=750,
        mode="session",
        session=session,
        turn=turn,
        session_turns=turns,
        question=f"{session}-{turn}",
        qtype="paraphrase",
        lang="en",
        docs=[],
        items=[],
        tokens_used=0,
        prompt_tokens=100,
        candidate_tokens=300,
        shared_prefix_tokens=0,
        stable_hash="h",
        recall=1.0,
        precision=0.5,
        distractor=None,
        superseded=False,
        noise=0.0,
        offered_superseded=True,  # a superseded page among the candidates: the rate is measured
    )
    base.update(kw)
    return CallRecord(**base)  # type: ignore[arg-type]


def test_summary_aggregates_by_hand():
    records = [
        # a 10-turn session, abbreviated to its first three calls (session_turns says 10)
        call("c/cache", "long", 1, 10, recall=1.0, prompt_tokens=100, superseded=True),
        call("c/cache", "long", 2, 10, recall=0.5, prompt_tokens=200, shared_prefix_tokens=150, stable_hash="h"),
        call(
            "c/cache",
            "long",
            3,
            10,
            recall=None,
            precision=None,
            prompt_tokens=300,
            shared_prefix_tokens=240,
            stable_hash="g",
            distractor=True,
        ),
        # a short session
        call("c/cache", "short", 1, 2, recall=0.0, prompt_tokens=100, distractor=False),
        call("c/cache", "short", 2, 2, recall=1.0, prompt_tokens=100, shared_prefix_tokens=10),
    ]
    [row] = summarize(records)
    assert row.calls == 5
    assert row.recall == pytest.approx((1.0 + 0.5 + 0.0 + 1.0) / 4)  # the unanswerable call is left out
    assert row.superseded_rate == pytest.approx(1 / 5)
    assert row.distractor_rate == pytest.approx(1 / 2)  # only calls with labelled distractors count
    assert row.tokens_per_call == pytest.approx(160)
    # what each call sends outside the previous call's prefix: 100, 50, 60, 100, 90
    assert row.uncached_tokens == pytest.approx(400 / 5)
    # follow-up calls: (150 + 240 + 10) / (200 + 300 + 100); 10-turn sessions: (150 + 240) / 500
    assert row.cache_share == pytest.approx(400 / 600)
    assert row.cache_share_10 == pytest.approx(390 / 500)
    # stable hash pairs: long h->h (same), h->g (changed); short h->h (same): 2 of 3
    assert row.stable_prefix_reuse == pytest.approx(2 / 3)


def test_targets_fail_when_the_numbers_miss():
    good = [
        call("scored_knapsack/cache", "s", 1, 10, recall=0.9),
        call("scored_knapsack/cache", "s", 2, 10, recall=0.9, prompt_tokens=100, shared_prefix_tokens=85),
        call("fixed_slots/cache", "s", 1, 10, recall=0.8),
    ]
    lines = check_targets(summarize(good))
    assert all(line.startswith("PASS") for line in lines), lines
    bad = [
        call("scored_knapsack/cache", "s", 1, 10, recall=0.5, superseded=True),
        call("scored_knapsack/cache", "s", 2, 10, recall=0.5, shared_prefix_tokens=10),
        call("fixed_slots/cache", "s", 1, 10, recall=0.8),
    ]
    lines = check_targets(summarize(bad))
    assert [line.split()[0] for line in lines] == ["FAIL", "FAIL", "FAIL"], lines


def test_recall_by_question_type_and_language():
    records = [
        call("c/cache", "s", 1, 3, qtype="exact_id", recall=1.0),
        call("c/cache", "s", 2, 3, qtype="exact_id", recall=0.5, lang="es"),
        call("c/cache", "s", 3, 3, qtype="unanswerable", recall=None, lang="es"),
    ]
    names, table = recall_by_slice(records)
    assert names == ["exact_id", "lang:en", "lang:es"]
    assert table[("c/cache", 750)] == {"exact_id": 0.75, "lang:en": 1.0, "lang:es": 0.5}
