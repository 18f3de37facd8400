"""The build path's kernels (issue 15: ``kernels.build``): native and reference agree exactly,
with the renderer's own text, and bad input gets the same exception in both."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import _native
from ctxsieve.kernels import build, build_reference
from ctxsieve.stages.render import SEPARATOR, block, wrapper
from ctxsieve.types import ContextItem, Signals

from .strategies import any_char

# attribute values full of what must be escaped, and lone surrogates (no UTF-8 form)
attr_text = st.one_of(
    st.text(st.sampled_from('&"<>a\ud800é'), max_size=6),
    st.text(any_char, max_size=8),
)
kinds = st.sampled_from(["knowledge", "instruction", "memory", "tool_result", "image", "history"])
citations = st.one_of(st.none(), st.just(""), attr_text)


def outcome(fn: Any, *args: Any) -> Any:
    try:
        return ("ok", fn(*args))
    except (TypeError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


@given(st.lists(st.tuples(attr_text, attr_text, kinds, citations), max_size=12))
def test_wrapper_texts_agree_with_the_renderer(rows: list[tuple[str, str, str, str | None]]) -> None:
    cols = [list(c) for c in zip(*rows)] if rows else [[], [], [], []]
    spec = build_reference.wrapper_texts(*cols)
    assert build.wrapper_texts(*cols) == spec
    native = _native.wrapper_texts(*cols)
    # the native side leaves to Python only what has no UTF-8 form, and agrees on the rest
    for got, want, row in zip(native, spec, rows):
        if got is None:
            assert any("\ud800" <= ch <= "\udfff" for part in row if part for ch in part)
        else:
            assert got == want
    for (item_id, source, kind, cite), text in zip(rows, spec):
        if kind == "history":
            continue  # no ContextItem of kind history renders a wrapper; the text is still defined
        item = ContextItem(item_id or "x", "body", source or "s", kind, signals=Signals(citation=cite))  # type: ignore[arg-type]
        if item_id and source:
            head, tail = wrapper(item)
            assert text == head + tail + SEPARATOR
            if head:
                assert block(item) == head + "body" + tail


@pytest.mark.parametrize(
    ("cols", "kind", "message"),
    [
        ([[1], ["s"], ["tool"], [None]], TypeError, "ids[0]: expected str, got int"),
        ([["a"], [None], ["tool"], [None]], TypeError, "sources[0]: expected str, got NoneType"),
        ([["a"], ["s"], [b"tool"], [None]], TypeError, "kinds[0]: expected str, got bytes"),
        ([["a"], ["s"], ["tool"], [3.0]], TypeError, "citations[0]: expected str or None, got float"),
        ([["a", "b"], ["s"], ["tool"], [None]], ValueError, "sources: expected 2 items (one per ids), got 1"),
    ],
)
def test_bad_columns_fail_alike(cols: list[list[Any]], kind: type, message: str) -> None:
    for fn in (_native.wrapper_texts, build_reference.wrapper_texts):
        with pytest.raises(kind, match=re.escape(message)):
            fn(*cols)


# -- block_costs: estimate + rendered cost of a block in one pass (issue 15) ---------------------

given_tokens = st.one_of(st.none(), st.integers(0, 50), st.just(2**63 - 1))


@given(
    st.lists(st.tuples(attr_text, given_tokens, attr_text, attr_text, kinds, citations), max_size=12),
    st.sampled_from([1.0, 2.5, 3.0, 4.0]),
)
def test_block_costs_are_the_content_and_wrapper_estimates(rows: list[tuple[Any, ...]], bpt: float) -> None:
    cols = [list(c) for c in zip(*rows)] if rows else [[], [], [], [], [], []]
    texts, tokens, ids, sources, kinds_, cites = cols
    walls = build_reference.wrapper_texts(ids, sources, kinds_, cites)
    # the definition: what estimate and rendered_costs charged, one estimator call each
    content = [t if t is not None else c for t, c in zip(tokens, build_reference.estimate_tokens(texts, bpt))]
    want = [c + w for c, w in zip(content, build_reference.estimate_tokens(walls, bpt))]
    assert build_reference.block_costs(*cols, bpt) == want
    assert build.block_costs(*cols, bpt) == want
    native = _native.block_costs(*cols, bpt)
    for got, expected, row in zip(native, want, rows):
        if got is None:  # left to Python only where an attribute has no UTF-8 form
            assert any("\ud800" <= ch <= "\udfff" for part in row[2:] if isinstance(part, str) for ch in part)
        else:
            assert got == expected


@pytest.mark.parametrize(
    ("cols", "kind", "message"),
    [
        ([[1], [None], ["a"], ["s"], ["tool"], [None]], TypeError, "texts[0]: expected str, got int"),
        ([["t"], [True], ["a"], ["s"], ["tool"], [None]], TypeError, "tokens[0]: expected an int, got bool"),
        ([["t"], [-1], ["a"], ["s"], ["tool"], [None]], ValueError, "tokens[0]: must be >= 0, got -1"),
        ([["t"], [2.0], ["a"], ["s"], ["tool"], [None]], TypeError, "tokens[0]: expected an int, got float"),
        ([["t"], [None], [3], ["s"], ["tool"], [None]], TypeError, "ids[0]: expected str, got int"),
        ([["t"], [None], ["a"], ["s"], ["tool"], [1]], TypeError, "citations[0]: expected str or None, got int"),
        ([["t"], [None, 1], ["a"], ["s"], ["tool"], [None]], ValueError, "tokens: expected 1 items (one per texts)"),
    ],
)
def test_bad_cost_columns_fail_alike(cols: list[list[Any]], kind: type, message: str) -> None:
    for fn in (_native.block_costs, build_reference.block_costs):
        with pytest.raises(kind, match=re.escape(message)):
            fn(*cols, 3.0)


# -- calibrate_scores: every source's normalisation, weight and signals (issue 15) ---------------

raw_scores = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, 1.0, 1.0, 14.0, -3.0, 1e-300]),
    st.floats(-1e6, 1e6, allow_nan=False),
)
modes = st.sampled_from(list(build.MODES))


@st.composite
def calibration(draw: st.DrawFn) -> tuple[Any, ...]:
    nsrc = draw(st.integers(1, 4))
    n = draw(st.integers(0, 30))
    raw = draw(st.lists(raw_scores, min_size=n, max_size=n))
    ranks = draw(st.lists(st.integers(0, nsrc - 1), min_size=n, max_size=n))
    src_modes = draw(st.lists(modes, min_size=nsrc, max_size=nsrc))
    weights = draw(st.lists(st.sampled_from([0.0, 0.3, 1.0, 1.7]), min_size=nsrc, max_size=nsrc))
    marked = sorted(draw(st.sets(st.integers(0, n - 1), max_size=n))) if n else []
    masks = draw(st.lists(st.integers(0, 3), min_size=len(marked), max_size=len(marked)))
    return raw, ranks, src_modes, weights, marked, masks


def spec_calibrated(
    raw: list[float], ranks: list[int], src_modes: list[str], weights: list[float], marked: list[int], masks: list[int]
) -> list[float]:
    """The stage's definition before the kernel: numpy per source, then each signal's factor."""
    import numpy as np

    a = np.asarray(raw, dtype=np.float64)
    r = np.asarray(ranks, dtype=np.intp)
    out = np.empty(len(raw), dtype=np.float64)
    for k in np.unique(r).tolist():
        members = np.flatnonzero(r == k)
        out[members] = build_reference.normalise(a[members], src_modes[k]) * weights[k]
    scores = (out + 0.0).tolist()  # a zero as +0.0: numpy's min picks either zero by SIMD lane
    for i, m in zip(marked, masks):
        if m & 1:
            scores[i] *= build.STALE_FACTOR
        if m & 2:
            scores[i] *= build.HUMAN_REVIEWED_FACTOR
    return scores


@given(calibration())
def test_calibrate_scores_agree_bit_for_bit(args: tuple[Any, ...]) -> None:
    raw, ranks, src_modes, weights, marked, masks = args
    want = spec_calibrated(*args)
    got = build.calibrate_scores(*args)
    # bit for bit: -0.0 and 0.0 told apart too
    assert [float.hex(x) for x in got] == [float.hex(x) for x in want]
    codes = [build_reference.MODE_CODES.get(m, 3) for m in src_modes]
    if "zscore" not in src_modes:
        factors = (build.STALE_FACTOR, build.HUMAN_REVIEWED_FACTOR)
        native = _native.calibrate_scores(raw, ranks, codes, weights, marked, masks, *factors)
        spec = build_reference.calibrate_scores(raw, ranks, codes, weights, marked, masks, *factors)
        assert [float.hex(x) for x in native] == [float.hex(x) for x in spec] == [float.hex(x) for x in want]


@pytest.mark.parametrize(
    ("args", "kind", "message"),
    [
        (([1.0], [0, 0], [0], [1.0], [], []), ValueError, "source_rank: expected 1 items (one per raw), got 2"),
        (([1.0], [1], [0], [1.0], [], []), ValueError, "source_rank[0]: must be below 1, got 1"),
        (([1.0], [0], [4], [1.0], [], []), ValueError, "modes[0]: must be below 4, got 4"),
        (([float("inf")], [0], [0], [1.0], [], []), ValueError, "raw[0]: must be finite, got inf"),
        ((["x"], [0], [0], [1.0], [], []), TypeError, "raw[0]: expected a number, got str"),
        (([1.0], [0], [0], [1.0], [1], [1]), ValueError, "marked[0]: must be below 1, got 1"),
        (([1.0], [0], [0], [1.0], [0], [4]), ValueError, "masks[0]: must be below 4, got 4"),
        (([1.0], [0], [0], [1.0, 2.0], [], []), ValueError, "weights: expected 1 items (one per modes), got 2"),
    ],
)
def test_bad_calibration_fails_alike(args: tuple[Any, ...], kind: type, message: str) -> None:
    for fn in (_native.calibrate_scores, build_reference.calibrate_scores):
        with pytest.raises(kind, match=re.escape(message)):
            fn(*args, 0.7, 1.1)


def test_an_unknown_mode_fails_only_where_it_is_used() -> None:
    assert build.calibrate_scores([1.0], [0], ["rank", "cosine"], [1.0, 1.0]) == [1.0]
    with pytest.raises(ValueError, match="unknown calibration mode 'cosine'"):
        build.calibrate_scores([1.0], [1], ["rank", "cosine"], [1.0, 1.0])
