"""Prefix-filtered dedupe (issue 15) decides exactly as the algorithm before it, on both backends.

Inputs are built to stress the filter: texts that share most of their shingles (one template
with words changed, a common footer), texts of 1 to 5 words (one shingle each), blank texts,
repeated ids, pinned and history items, and thresholds where ``threshold * size`` rounds
awkwardly. ``tests/kernels/dedupe_oracle.py`` is the old algorithm.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import _native
from ctxsieve.kernels import reference
from ctxsieve.kernels.reference import _min_overlap

from .dedupe_oracle import oracle_dedupe
from .strategies import unicode_text

WORDS = "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9".split()
FOOTER = "see the terms of use and privacy notice".split()
THRESHOLDS = [0.8, 0.5, 1.0, 0.01, 0.3, 0.7, 0.9, 0.99, 0.1 + 0.2, 2 / 3, 0.8000000000000002]


@st.composite
def related_text(draw: st.DrawFn, template: list[str]) -> str:
    kind = draw(st.sampled_from(["template", "short", "footer", "free", "blank", "unicode"]))
    if kind == "template":  # the template with a few words replaced, dropped or added
        ws = list(template)
        for _ in range(draw(st.integers(0, 4))):
            op, at = draw(st.sampled_from(["set", "del", "add"])), draw(st.integers(0, max(0, len(ws) - 1)))
            if op == "set" and ws:
                ws[at] = draw(st.sampled_from(WORDS))
            elif op == "del" and ws:
                del ws[at]
            else:
                ws.insert(at, draw(st.sampled_from(WORDS)))
    elif kind == "short":
        ws = draw(st.lists(st.sampled_from(WORDS + template[:3]), min_size=1, max_size=5))
    elif kind == "footer":
        ws = draw(st.lists(st.sampled_from(WORDS), max_size=12)) + FOOTER
    elif kind == "free":
        ws = draw(st.lists(st.sampled_from(WORDS), max_size=20))
    elif kind == "blank":
        return draw(st.sampled_from(["", " ", "\n\t", "...", "—"]))
    else:
        return draw(unicode_text)
    return " ".join(ws)


@st.composite
def related_input(draw: st.DrawFn) -> tuple[Any, ...]:
    template = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=16))
    n = draw(st.integers(0, 24))
    texts = draw(st.lists(related_text(template), min_size=n, max_size=n))
    ids = draw(st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h"]), min_size=n, max_size=n))
    scores = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), min_size=n, max_size=n))
    pinned = draw(st.lists(st.booleans().map(lambda b: b and draw(st.booleans())), min_size=n, max_size=n))
    history = draw(st.lists(st.booleans().map(lambda b: b and draw(st.booleans())), min_size=n, max_size=n))
    return texts, ids, scores, pinned, history, draw(st.sampled_from(THRESHOLDS))


@given(related_input())
def test_prefix_filter_decides_as_the_old_algorithm(args: tuple[Any, ...]) -> None:
    expected = oracle_dedupe(*args)
    assert reference.dedupe(*args) == expected
    assert _native.dedupe(*args) == expected


def test_footer_and_template_at_scale_match_the_oracle() -> None:
    # a few hundred items of each shape: the oracle is quadratic, so kept small
    template = [f"t{j}" for j in range(40)]
    texts = []
    for i in range(300):
        if i % 3 == 0:
            ws = list(template)
            ws[i % 40] = f"x{i}"  # one word changed: a near copy of the others
            if i % 9 == 0:
                ws[(i * 7) % 40] = f"y{i}"
                ws[(i * 11) % 40] = f"z{i}"
        else:
            ws = [f"b{i}_{j}" for j in range(i % 30)] + FOOTER  # a unique body (maybe none), one footer
        texts.append(" ".join(ws))
    ids = [f"id{i % 280}" for i in range(300)]  # a few repeated ids
    scores = [((i * 37) % 101) / 100 for i in range(300)]
    pinned = [i % 50 == 0 for i in range(300)]
    history = [i % 17 == 0 for i in range(300)]
    for threshold in (0.8, 0.5, 0.95, 1.0):
        args = (texts, ids, scores, pinned, history, threshold)
        expected = oracle_dedupe(*args)
        assert sum(d >= 0 for d in expected[0]) > 10  # the shapes do produce duplicates
        assert reference.dedupe(*args) == expected
        assert _native.dedupe(*args) == expected


@given(st.integers(1, 5000), st.sampled_from(THRESHOLDS))
def test_min_overlap_is_the_least_passing_count(m: int, threshold: float) -> None:
    c = _min_overlap(m, threshold)
    assert 1 <= c <= m
    assert c / m >= threshold or c == m  # a threshold of 1.0 always passes at c == m
    assert c == 1 or (c - 1) / m < threshold
