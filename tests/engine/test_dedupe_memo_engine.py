"""The engine's dedupe memo (issue 15): warm builds give the windows and traces of cold ones.

An engine keeps a native ``DedupeMemo`` for its threshold (``stages.dedupe_memo``); each build
after the first joins only the texts it has not seen. These tests change an engine's
candidates between builds (texts replaced, added and removed, copies with signals to inherit,
scores and pins changed) and compare every window and trace entry with those of a fresh engine
built on the same candidates, whose memo is empty. On the reference backend there is no memo
and the same assertions hold trivially; the decisions themselves are compared across backends
in tests/kernels/test_dedupe_memo.py.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import ContextEngine, ContextItem, Signals, StaticSource, backend

FOOTER = "see the terms of use and the privacy notice for this page"
WORDS = [f"v{k}" for k in range(40)]


def make_item(rng: random.Random, n: int, pool: list[str]) -> ContextItem:
    r = rng.random()
    if r < 0.3 and pool:  # a near copy (or the same text) of an earlier one
        words = rng.choice(pool).split()
        for _ in range(rng.randrange(3)):
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        content = " ".join(words)
    else:
        content = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 30)))
        if r > 0.8:
            content += " " + FOOTER
    pool.append(content)
    return ContextItem(
        f"d{n}",
        content,
        "docs",
        "knowledge",
        "volatile",
        score=rng.random(),
        pinned=rng.random() < 0.05,
        signals=Signals(
            stale=rng.random() < 0.1, deprecated=rng.random() < 0.05, citation=f"c{n}" if r < 0.2 else None
        ),
    )


def engine_for(items: list[ContextItem], threshold: float) -> tuple[ContextEngine, StaticSource]:
    src = StaticSource(items, name="docs")
    return ContextEngine([src], budget=4000, dedupe_threshold=threshold), src


def outcome(engine: ContextEngine) -> tuple[list[str], list[tuple[object, ...]]]:
    w = engine.build_sync("which rules apply")
    entries = [(e.id, e.reason, e.included, e.final, e.tokens, e.adjustments) for e in w.trace.entries]
    return [i.id for i in w.items], entries


@given(st.integers(0, 10_000), st.sampled_from([0.8, 0.5, 1.0]))
def test_warm_builds_match_fresh_engines(seed, threshold):
    rng = random.Random(seed)
    pool: list[str] = []
    made = 0
    items = []
    for _ in range(rng.randint(20, 40)):
        made += 1
        items.append(make_item(rng, made, pool))
    engine, src = engine_for(items, threshold)
    for _ in range(5):
        assert outcome(engine) == outcome(engine_for(list(src.items), threshold)[0])
        for _ in range(rng.randint(1, 4)):
            made += 1
            op = rng.random()
            if op < 0.4 and src.items:
                src.items[rng.randrange(len(src.items))] = make_item(rng, made, pool)
            elif op < 0.6 and len(src.items) > 2:
                src.items.pop(rng.randrange(len(src.items)))
            elif op < 0.8 and src.items:  # the same text again, another id and score
                other = src.items[rng.randrange(len(src.items))]
                src.items.append(ContextItem(f"d{made}", other.content, "docs", "knowledge", "volatile", rng.random()))
            else:
                src.items.append(make_item(rng, made, pool))
    if backend() == "native":
        s = engine._dedupe_memos.stats()
        # the first build finds every text new and runs the cold kernel; the rest use the memo
        assert (s["builds"], s["cold_new"], s["warm"]) == (5, 1, 4)
        assert s["texts"] > 0


def test_the_memo_follows_the_threshold_and_cold_clears_it():
    rng = random.Random(5)
    pool: list[str] = []
    items = [make_item(rng, n, pool) for n in range(30)]
    engine, src = engine_for(items, 0.8)
    outcome(engine)
    first = engine._dedupe_memos.get(0.8)
    engine.dedupe_threshold = 0.5
    for _ in range(2):
        assert outcome(engine) == outcome(engine_for(list(src.items), 0.5)[0])
    if backend() != "native":
        assert first is None and engine._dedupe_memos.get(0.5) is None
        return
    memo = engine._dedupe_memos.get(0.5)
    assert memo is not first and memo.threshold == 0.5 and len(memo) > 0
    engine._dedupe_memos.clear()
    assert len(memo) == 0 and memo.stats()["builds"] == 2


def test_build_many_shares_one_memo_and_decides_as_cold_builds():
    rng = random.Random(9)
    pool: list[str] = []
    items = [make_item(rng, n, pool) for n in range(300)]
    engine, _ = engine_for(items, 0.8)
    want = outcome(engine_for(list(items), 0.8)[0])
    windows = engine.build_many(["which rules apply"] * 8, max_workers=4)
    for w in windows:
        got = [(e.id, e.reason, e.included, e.final, e.tokens, e.adjustments) for e in w.trace.entries]
        assert ([i.id for i in w.items], got) == want
    if backend() == "native":
        s = engine._dedupe_memos.stats()
        assert s["builds"] + s["busy"] == 8 and s["resets"] == 0
