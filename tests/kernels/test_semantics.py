"""Kernel semantics through the public API, on whichever backend is live (the suite runs once
per backend). Expected values here are worked out by hand from DESIGN.md section 2."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import BudgetExceededError, kernels

from .strategies import ids as id_strategy
from .strategies import word_text


def test_estimate_is_ceil_of_utf8_bytes() -> None:
    # "é" is 2 bytes, "東" 3, "😀" 4, a lone surrogate counts 3
    assert kernels.estimate_tokens(["", "a", "abc", "abcd", "é", "東", "😀", "\ud800"]) == [0, 1, 1, 2, 1, 1, 2, 1]
    assert kernels.estimate_tokens(["abcdefgh"], bytes_per_token=4) == [2]
    assert kernels.estimate_tokens(["abcdefghi"], bytes_per_token=2.5) == [4]
    assert kernels.estimate_tokens(("x" * 10, "y" * 11)) == [4, 4]


@pytest.mark.parametrize("bad", [0, -3, float("nan"), float("inf")])
def test_estimate_rejects_bad_divisor(bad: float) -> None:
    with pytest.raises(ValueError, match="bytes_per_token"):
        kernels.estimate_tokens(["x"], bytes_per_token=bad)


def test_estimate_rejects_a_bare_string() -> None:
    with pytest.raises(TypeError, match="texts: expected a sequence, got str"):
        kernels.estimate_tokens("hello")


def test_words_definition() -> None:
    assert kernels.words("Hello, WORLD_2 día-a-día 東京 ½ x²") == [
        "hello",
        "world_2",
        "día",
        "a",
        "día",
        "東京",
        "½",
        "x²",
    ]
    # combining marks stay in their word; U+0130 lowers to i + U+0307
    assert kernels.words("cafe\u0301 İZMİR") == ["cafe\u0301", "i\u0307zmi\u0307r"]
    assert kernels.words("👩‍💻 !!! \ud800") == []


def test_shingles() -> None:
    five = kernels.shingle_hashes("a b c d e")
    assert len(five) == 1
    assert kernels.shingle_hashes("A  B, c d E") == five  # case and separators do not matter
    assert len(kernels.shingle_hashes("a b c d e f g")) == 3
    assert kernels.shingle_hashes("... ---") == []
    assert kernels.shingle_hashes("b c d e f") != five


def test_content_hash_equivalence() -> None:
    assert kernels.content_hash("Refund\tPolicy\n") == kernels.content_hash("refund policy")
    assert kernels.content_hash("refund policy") != kernels.content_hash("refund  policy.")
    assert kernels.content_hash(" \n ") is None


LONG = "customers on the team plan may request a refund within thirty days of purchase"


def test_dedupe_keeps_best_and_reports_inheritance() -> None:
    texts = [LONG, LONG.upper(), LONG + " and more words here", "totally different text about shipping rates"]
    r = kernels.dedupe(texts, ["a", "b", "c", "d"], [0.5, 0.9, 0.7, 0.1])
    # visit: b(0.9), c(0.7), a(0.5), d(0.1); a is an exact copy of b, c contains all of b's shingles
    assert r.kept_ids(["a", "b", "c", "d"]) == ["b", None, "b", None]
    assert r.inheritance == [(1, 2), (1, 0)]


def test_dedupe_pinned_first_and_history_exempt() -> None:
    texts = [LONG, LONG, LONG]
    r = kernels.dedupe(
        texts, ["p", "x", "h"], [0.0, 1.0, 2.0], pinned=[True, False, False], history=[False, False, True]
    )
    assert r.duplicate_of == [-1, 0, -1]


def test_dedupe_threshold_is_inclusive() -> None:
    base = "w1 w2 w3 w4 w5 w6 w7 w8 w9"  # 5 shingles
    four_of_five = "w1 w2 w3 w4 w5 w6 w7 w8 zz"  # shares 4 of its 5 shingles
    r = kernels.dedupe([base, four_of_five], ["a", "b"], [1.0, 0.5], threshold=0.8)
    assert r.duplicate_of == [-1, 0]
    r = kernels.dedupe([base, four_of_five], ["a", "b"], [1.0, 0.5], threshold=0.81)
    assert r.duplicate_of == [-1, -1]


def test_dedupe_accepts_numpy() -> None:
    r = kernels.dedupe(np.array([LONG, LONG]), ["a", "b"], np.array([0.2, 0.3]))
    assert r.duplicate_of == [1, -1]


@given(st.lists(word_text(), min_size=1, max_size=10), st.randoms())
def test_dedupe_does_not_depend_on_input_order(texts: list[str], rnd: random.Random) -> None:
    ids = [f"id{i}" for i in range(len(texts))]
    scores = [float(len(t) % 3) for t in texts]
    first = kernels.dedupe(texts, ids, scores).kept_ids(ids)
    perm = list(range(len(texts)))
    rnd.shuffle(perm)
    shuffled = kernels.dedupe([texts[i] for i in perm], [ids[i] for i in perm], [scores[i] for i in perm])
    again = shuffled.kept_ids([ids[i] for i in perm])
    assert {ids[i]: first[i] for i in range(len(ids))} == {ids[p]: again[j] for j, p in enumerate(perm)}


def test_fill_phases_by_hand() -> None:
    r = kernels.fill_budget(
        tokens=[10, 30, 20, 20, 5, 40],
        scores=[0.0, 0.9, 0.8, 0.7, 0.05, 0.99],
        sources=["sys", "rag", "rag", "mem", "hist", "rag"],
        budget=70,
        pinned=[True, False, False, False, False, False],
        deprecated=[False, False, False, False, False, True],
        min_score=0.1,
        caps={"rag": 40},
        min_items={"hist": 1},
    )
    # sys pinned (10); deprecated out; hist minimum ignores the floor (15 used);
    # rag 0.9 (45, rag 30); rag 0.8 would put rag at 50 > 40: source_cap; mem 0.7 fits (65)
    assert r.reasons == ["pinned", "selected", "source_cap", "selected", "min_items", "deprecated"]
    assert r.tokens_used == 65
    assert r.included == [0, 1, 3, 4]


def test_fill_skip_and_continue_and_beta() -> None:
    assert kernels.fill_budget([60, 50, 40], [0.9, 0.8, 0.7], ["s"] * 3, 100).reasons == [
        "selected",
        "budget",
        "selected",
    ]
    # beta=1 ranks by score per token: 0.7/10 beats 0.9/90
    r = kernels.fill_budget([90, 10], [0.9, 0.7], ["s", "s"], 95, beta=1.0)
    assert r.reasons == ["budget", "selected"]


def test_fill_pinned_over_budget_names_each_item() -> None:
    with pytest.raises(BudgetExceededError) as info:
        kernels.fill_budget(
            [60, 50, 1], [0, 0, 0], ["s"] * 3, 100, ids=["sys", "index", "x"], pinned=[True, True, False]
        )
    assert info.value.items == [("sys", 60), ("index", 50)]
    assert "sys (60 tokens)" in str(info.value) and "index (50 tokens)" in str(info.value)


@given(
    st.lists(st.tuples(st.integers(0, 50), st.floats(-1, 1), st.sampled_from("abc"), st.booleans()), max_size=25),
    st.integers(0, 200),
    st.sampled_from([0.0, 0.5, 1.0]),
)
def test_fill_never_exceeds_budget_and_keeps_pinned(
    rows: list[tuple[int, float, str, bool]], budget: int, beta: float
) -> None:
    tokens = [r[0] for r in rows]
    pinned = [r[3] for r in rows]
    if sum(t for t, p in zip(tokens, pinned) if p) > budget:
        with pytest.raises(BudgetExceededError):
            kernels.fill_budget(tokens, [r[1] for r in rows], [r[2] for r in rows], budget, pinned=pinned)
        return
    r = kernels.fill_budget(
        tokens, [r[1] for r in rows], [r[2] for r in rows], budget, pinned=pinned, beta=beta, min_items={"a": 2}
    )
    assert r.tokens_used <= budget
    assert all(r.reasons[i] == "pinned" for i, p in enumerate(pinned) if p)
    # nothing left out for "budget" would have fitted in what remained
    for i, reason in enumerate(r.reasons):
        if reason == "budget":
            assert tokens[i] > 0


def test_cache_order_by_hand() -> None:
    order = kernels.cache_order(
        ["volatile", "stable", "session", "volatile", "stable", "volatile", "volatile"],
        [0.5, 0.0, 0.0, 0.9, 0.0, 0.7, 0.1],
        history=[False, False, False, False, False, False, True],
        source_rank=[2, 1, 0, 2, 0, 2, 3],
        order_keys=["", "", "", "", "", "", "0001"],
        ids=["v1", "s1", "m", "v2", "s0", "v3", "h"],
    )
    # stable by source rank (s0 then s1), session, volatile ranked v2 v3 v1 -> v2, v1, v3; history
    assert order == [4, 1, 2, 3, 0, 5, 6]


@given(
    st.lists(
        st.tuples(st.sampled_from(["stable", "session", "volatile"]), id_strategy, st.integers(0, 3)), max_size=15
    ),
    st.randoms(),
)
def test_stable_block_ignores_query_and_arrival_order(rows: list[tuple[str, str, int]], rnd: random.Random) -> None:
    def stable_ids(rows: list[tuple[str, str, int]], scores: list[float]) -> list[tuple[str, int]]:
        order = kernels.cache_order(
            [r[0] for r in rows], scores, source_rank=[r[2] for r in rows], ids=[r[1] for r in rows]
        )
        return [(rows[i][1], rows[i][2]) for i in order if rows[i][0] == "stable"]

    first = stable_ids(rows, [rnd.random() for _ in rows])
    shuffled = rows[:]
    rnd.shuffle(shuffled)
    assert stable_ids(shuffled, [rnd.random() for _ in rows]) == first
    n_stable = sum(r[0] == "stable" for r in rows)
    order = kernels.cache_order([r[0] for r in rows], [0.0] * len(rows))
    assert all(rows[i][0] == "stable" for i in order[:n_stable])


def test_grep_and_bm25() -> None:
    assert kernels.grep_lines("error E-4217\nok\nerror E-1\n", r"E-\d{4}") == [0]
    assert kernels.grep_lines("a\na\na", "a", max_matches=2) == [0, 1]
    with pytest.raises(ValueError, match="invalid pattern"):
        kernels.grep_lines("x", "(")
    index = kernels.bm25_index(["refund policy for teams", "shipping policy", "unrelated"])
    hits = index.search("team refund", 10)
    assert [d for d, _ in hits] == [0]
    assert len(index) == 3
    s = index.search("policy", 10)
    assert [d for d, _ in s] == [1, 0] and math.isclose(s[0][1], s[0][1])
