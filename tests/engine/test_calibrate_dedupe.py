"""Calibration modes, weights and signals; dedupe with signal inheritance."""

from __future__ import annotations

import math

import pytest

from ctxsieve import ContextEngine, SourceConfig, StaticSource
from ctxsieve.stages.calibrate import normalise

from .helpers import item


@pytest.mark.parametrize(
    ("mode", "raw", "expected"),
    [
        # rank: 1 - r/n, ties share the best rank
        ("rank", [3.0, 9.0, 9.0, 1.0], [0.5, 1.0, 1.0, 0.25]),
        ("rank", [5.0], [1.0]),
        ("minmax", [2.0, 4.0, 3.0], [0.0, 1.0, 0.5]),
        ("minmax", [7.0, 7.0], [1.0, 1.0]),
        # mean 2, population std sqrt(2/3): logistic of -1.2247, 0, 1.2247
        ("zscore", [1.0, 2.0, 3.0], [1 / (1 + math.exp(1.5**0.5)), 0.5, 1 / (1 + math.exp(-(1.5**0.5)))]),
        ("zscore", [4.0, 4.0], [0.5, 0.5]),
        # blend: mean of rank (2/3, 1/3, 1) and minmax (0.5, 0, 1)
        ("blend", [2.0, 1.0, 3.0], [(2 / 3 + 0.5) / 2, (1 / 3 + 0) / 2, 1.0]),
        ("raw", [0.2, 0.7], [0.2, 0.7]),
    ],
)
def test_normalise(mode, raw, expected):
    assert normalise(raw, mode).tolist() == pytest.approx(expected)


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown calibration mode 'cosine'"):
        normalise([1.0], "cosine")


def test_weights_and_signals_in_the_trace():
    kb = [
        item("fresh", 10.0),
        item("old", 9.0, stale=True),
        item("reviewed", 8.0, trust="human-reviewed"),
        item("both", 7.0, stale=True, trust="human-reviewed"),
    ]
    engine = ContextEngine([SourceConfig(StaticSource(kb, name="kb"), weight=0.5)], budget=1000)
    trace = engine.build_sync("q").trace
    # rank 1, 0.75, 0.5, 0.25, times the weight 0.5, then the signal factors
    assert trace.entry("fresh").calibrated == pytest.approx(0.5)
    assert trace.entry("old").calibrated == pytest.approx(0.375 * 0.7)
    assert trace.entry("reviewed").calibrated == pytest.approx(0.25 * 1.1)
    assert trace.entry("both").calibrated == pytest.approx(0.125 * 0.7 * 1.1)
    assert trace.entry("both").adjustments == ("stale x0.7", "human-reviewed x1.1")
    assert trace.entry("fresh").adjustments == ()


def test_sources_become_comparable():
    # BM25 scores in the tens against cosines below 1: by rank, each source's best is 1.0
    bm25 = StaticSource([item("bm25-top", 14.0, tokens=50), item("bm25-2", 12.0, tokens=50)], name="bm25")
    vec = StaticSource([item("vec-top", 0.82, tokens=50), item("vec-2", 0.80, tokens=50)], name="vec")
    # room for two of the four (their wrappers and the context message's framing included)
    window = ContextEngine([bm25, vec], budget=150).build_sync("q")
    assert {i.id for i in window.items} == {"bm25-top", "vec-top"}


def test_dedupe_keeps_the_best_copy_and_the_copy_inherits_signals():
    policy = "Refunds on annual plans are accepted within thirty days of purchase for every workspace"
    concept = item("kb/refund", 1.0, content=policy, trust="human-reviewed", citation="kb/refund.md")
    chunk = item("refund.md#0", 1.0, content=policy + ".", stale=True, deprecated=True)
    engine = ContextEngine(
        [StaticSource([concept], name="okf"), SourceConfig(StaticSource([chunk], name="rag"), weight=2.0)],
        budget=1000,
    )
    window = engine.build_sync("q")
    # the chunk's final (2.0, deprecated and stale x0.7 = 1.4) beats the concept's 1.1: the
    # chunk is visited first and kept, the concept is dropped, and the chunk takes its trust
    # (x1.1) and citation; its own deprecation keeps it out of the window
    assert window.trace.entry("kb/refund").reason == "duplicate_of:refund.md#0"
    kept = window.trace.entry("refund.md#0")
    assert kept.reason == "deprecated"
    assert kept.adjustments == (
        "stale x0.7",
        "deprecated",
        "inherited:trust:kb/refund",
        "inherited:citation:kb/refund",
        "human-reviewed x1.1",
    )
    assert kept.final == pytest.approx(2.0 * 0.7 * 1.1)
    assert window.items == []


def test_inherited_deprecation_takes_the_kept_copy_out():
    text = "The legacy export endpoint returns CSV files with one row per note and attachment"
    rag = item("chunk", 0.9, content=text)
    okf = item("legacy-export", 0.5, content=text + " (v1)", deprecated=True)
    engine = ContextEngine([StaticSource([rag], name="rag"), StaticSource([okf], name="okf")], budget=1000)
    window = engine.build_sync("q")
    # both rank 1.0 in their source; tie broken by id: "chunk" < "legacy-export"
    assert window.trace.entry("legacy-export").reason == "duplicate_of:chunk"
    assert window.trace.entry("chunk").reason == "deprecated"
    assert window.trace.entry("chunk").adjustments == ("inherited:deprecated:legacy-export",)


def test_inherited_stale_lowers_the_kept_copy_and_is_rendered_with_its_citation():
    text = "Two-factor recovery codes are shown once and each code can be used a single time"
    kept = item("a", 0.9, content=text)
    dropped = item("b", 0.5, content=text, stale=True, citation="kb/2fa.md")
    window = ContextEngine([StaticSource([kept, dropped], name="kb")], budget=1000).build_sync("q")
    entry = window.trace.entry("a")
    assert entry.final == pytest.approx(1.0 * 0.7)
    assert entry.calibrated == pytest.approx(1.0)
    assert window.items[0].signals.stale and window.items[0].signals.citation == "kb/2fa.md"
    assert 'citation="kb/2fa.md"' in window.to_text()


def test_history_is_never_deduplicated():
    same = "user: please repeat the refund policy"
    hist = [item(f"h{i}", i, content=same, kind="history", order_key=str(i)) for i in range(3)]
    window = ContextEngine([StaticSource(hist, name="hist")], budget=1000).build_sync("q")
    assert [e.reason for e in window.trace] == ["selected"] * 3


def test_dedupe_can_be_disabled():
    a, b = (
        item("a", content="same words in both of these texts here"),
        item("b", content="same words in both of these texts here"),
    )
    window = ContextEngine([StaticSource([a, b], name="kb")], budget=1000, dedupe_threshold=None).build_sync("q")
    assert len(window.items) == 2
