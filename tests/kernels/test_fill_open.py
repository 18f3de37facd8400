"""``kernels.build.fill_open`` (issue 15): the built-in policy's fill straight over a build's
columns. Native and reference agree exactly, and both decide as ``fill_reasons`` over the pool
of the open rows (what ``ScoredKnapsack.select`` gets), with the same errors for bad input."""

from __future__ import annotations

import re
from itertools import compress
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import _native, kernels
from ctxsieve.errors import BudgetExceededError
from ctxsieve.kernels import FILL_REASONS, build, build_reference

NAMES = ["s0", "s1", "s2", "s3"]


@st.composite
def columns(draw: Any) -> dict[str, Any]:
    nsrc = draw(st.integers(1, len(NAMES)))
    # rows come source by source, as a build's do (the ranks never decrease)
    ranks = sorted(draw(st.lists(st.integers(0, nsrc - 1), max_size=24)))
    n = len(ranks)
    rows = st.lists
    return {
        "tokens": draw(rows(st.integers(0, 30), min_size=n, max_size=n)),
        # few values: ties, and -0.0 against 0.0, go to the id
        "scores": draw(rows(st.sampled_from([0.0, -0.0, 0.25, 0.5, 0.9, 1.0, -0.3]), min_size=n, max_size=n)),
        "ranks": ranks,
        "pinned": draw(rows(st.booleans().map(lambda b: b and draw(st.booleans())), min_size=n, max_size=n)),
        "deprecated": draw(rows(st.booleans(), min_size=n, max_size=n)),
        "ids": draw(rows(st.sampled_from(["a", "b", "c", "é", "b2"]), min_size=n, max_size=n)),
        "reasons": draw(rows(st.sampled_from([None, None, "duplicate_of:a", "in_transcript"]), min_size=n, max_size=n)),
        "budget": draw(st.integers(0, 120)),
        "caps": draw(rows(st.sampled_from([-1, -1, 0, 10, 40]), min_size=nsrc, max_size=nsrc)),
        "min_items": draw(rows(st.integers(0, 3), min_size=nsrc, max_size=nsrc)),
        "beta": draw(st.sampled_from([0.0, 0.5, 1.0])),
        "min_score": draw(st.sampled_from([None, 0.3, -1.0])),
        "include_deprecated": draw(st.booleans()),
    }


def via_pool(c: dict[str, Any]) -> tuple[list[str | None], list[int]] | str:
    """What the policy's Pool path decides: ``fill_reasons`` over the open rows by source name."""
    open_ = [r is None for r in c["reasons"]]
    pick = lambda col: list(compress(col, open_))  # noqa: E731
    rows = list(compress(range(len(open_)), open_))
    try:
        got = kernels.fill_reasons(
            pick(c["tokens"]),
            pick(c["scores"]),
            [NAMES[r] for r in pick(c["ranks"])],
            c["budget"],
            ids=pick(c["ids"]),
            pinned=pick(c["pinned"]),
            deprecated=pick(c["deprecated"]),
            beta=c["beta"],
            min_score=c["min_score"],
            caps={NAMES[r]: cap for r, cap in enumerate(c["caps"]) if cap >= 0},
            min_items={NAMES[r]: m for r, m in enumerate(c["min_items"])},
            include_deprecated=c["include_deprecated"],
        )
    except BudgetExceededError as exc:
        return str(exc)
    reasons = list(c["reasons"])
    for i, r in zip(rows, got):
        reasons[i] = r
    return reasons, [i for i, r in zip(rows, got) if r in kernels.FILL_INCLUDED]


def via_open(c: dict[str, Any]) -> tuple[list[str | None], list[int]] | str:
    reasons = list(c["reasons"])
    args = {k: v for k, v in c.items() if k != "reasons"}
    try:
        included = build.fill_open(
            *(args.pop(k) for k in ("tokens", "scores", "ranks", "pinned", "deprecated", "ids")),
            reasons,
            args.pop("budget"),
            **args,
        )
    except BudgetExceededError as exc:
        return str(exc)
    return reasons, included


def kernel_args(c: dict[str, Any], reasons: list[Any], fn: Any) -> Any:
    return fn(
        *(c[k] for k in ("tokens", "scores", "ranks", "pinned", "deprecated", "ids")),
        reasons,
        list(FILL_REASONS),
        c["budget"],
        c["beta"],
        c["min_score"],
        c["caps"],
        c["min_items"],
        c["include_deprecated"],
    )


@given(columns())
def test_the_fill_over_columns_is_the_pools(c: dict[str, Any]) -> None:
    assert via_open(c) == via_pool(c)


@given(columns())
def test_native_and_reference_write_the_same_reasons(c: dict[str, Any]) -> None:
    if isinstance(via_pool(c), str):
        return  # pinned rows over the budget: refused before either kernel runs
    native, spec = list(c["reasons"]), list(c["reasons"])
    assert kernel_args(c, native, _native.fill_open) == kernel_args(c, spec, build_reference.fill_open)
    assert native == spec
    # the names are the very objects given (the trace's reasons are FILL_REASONS' strings)
    assert all(r is FILL_REASONS[FILL_REASONS.index(r)] for r in native if r in FILL_REASONS)


def test_source_minimums_go_in_rank_order_when_the_budget_runs_out() -> None:
    # two sources each with a minimum of one, room for one item: the first source's wins, as
    # the pool's first-appearance numbering gives it
    c = {
        "tokens": [5, 5],
        "scores": [0.1, 0.9],
        "ranks": [0, 1],
        "pinned": [False, False],
        "deprecated": [False, False],
        "ids": ["a", "b"],
        "reasons": [None, None],
        "budget": 5,
        "caps": [-1, -1],
        "min_items": [1, 1],
        "beta": 0.0,
        "min_score": None,
        "include_deprecated": False,
    }
    assert via_open(c) == via_pool(c) == (["min_items", "budget"], [0])


def test_pinned_open_rows_over_the_budget_are_refused_and_decided_ones_are_not() -> None:
    cols = ([7, 7], [0.5, 0.5], [0, 0], [True, True], [False, False], ["p", "q"])
    with pytest.raises(BudgetExceededError, match=re.escape("pinned items need 14 tokens but the budget is 10")):
        build.fill_open(*cols, [None, None], 10, caps=[-1], min_items=[0])
    reasons: list[str | None] = ["in_transcript", None]
    assert build.fill_open(*cols, reasons, 10, caps=[-1], min_items=[0]) == [1]
    assert reasons == ["in_transcript", "pinned"]


GOOD = {
    "tokens": [1, 2],
    "scores": [0.5, 0.25],
    "ranks": [0, 0],
    "pinned": [False, False],
    "deprecated": [False, False],
    "ids": ["a", "b"],
}


@pytest.mark.parametrize(
    ("change", "kind", "message"),
    [
        ({"tokens": [1, -2]}, ValueError, "tokens[1]: must be >= 0, got -2"),
        ({"tokens": [1, "2"]}, TypeError, "tokens[1]: expected an int, got str"),
        ({"scores": [0.5, float("nan")]}, ValueError, "scores[1]: must be finite, got nan"),
        ({"ranks": [0, 1]}, ValueError, "ranks[1]: no source 1 (caps has 1)"),
        ({"ids": ["a", 3]}, TypeError, "ids[1]: expected str, got int"),
        ({"ids": ["a"]}, ValueError, "ids: expected 2 items (one per tokens), got 1"),
        ({"scores": (0.5, 0.25)}, TypeError, "scores: expected a list, got tuple"),
    ],
)
def test_bad_columns_fail_alike(change: dict[str, Any], kind: type, message: str) -> None:
    cols = {**GOOD, **change}
    for fn in (_native.fill_open, build_reference.fill_open):
        reasons: list[str | None] = [None, None]
        with pytest.raises(kind, match=re.escape(message)):
            fn(*cols.values(), reasons, list(FILL_REASONS), 10, 0.0, None, [-1], [0], False)
        assert reasons == [None, None]  # nothing written before the checks passed


def test_the_reasons_must_be_a_list_to_be_written_into() -> None:
    with pytest.raises(TypeError, match=re.escape("reasons: expected a list, got tuple")):
        build.fill_open(*GOOD.values(), (None, None), 10, caps=[-1], min_items=[0])  # type: ignore[arg-type]
