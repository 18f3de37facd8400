"""The kernels' limits at the edges (issue 12, finding 12): one definition
(``kernels.limits``), the same answer from both backends and from the public API on either.

Edges: 0, -1, ``MAX_COUNT`` and one above, 2**64 and above, bools, floats that look like ints,
numpy ints, ``beta`` at 0, ``MAX_BETA``, just above and at 400."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import _native, kernels
from ctxsieve.kernels import limits, reference

from .test_parity import agree

MAX = limits.MAX_COUNT
HUGE = [MAX, MAX + 1, 2**64 - 1, 2**64, 2**70, -(2**63), -(2**64), -1, 0, 1]
edge_ints = st.one_of(st.sampled_from(HUGE), st.integers(), st.integers(-3, 3), st.integers(MAX - 3, MAX + 3))
edge_scalars = st.one_of(
    edge_ints,
    st.booleans(),
    st.sampled_from([0.0, 1.0, 5.0, float("nan"), float("inf"), 2.0**63]),
    edge_ints.filter(lambda n: -(2**63) <= n < 2**63).map(np.int64),
    st.sampled_from([None, "5", b"5"]),
)


def public(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return ("ok", fn(*args, **kwargs))
    except (TypeError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


def test_one_definition() -> None:
    assert (_native.MAX_COUNT, _native.MAX_BETA) == (limits.MAX_COUNT, limits.MAX_BETA) == (2**63 - 1, 16.0)
    assert (kernels.MAX_COUNT, kernels.MAX_BETA) == (limits.MAX_COUNT, limits.MAX_BETA)


def test_the_reported_case_refuses_the_budget_and_fits_at_the_limit() -> None:
    big = [MAX] * 3
    with pytest.raises(ValueError, match=rf"^budget: must be <= {MAX}, got {2**64 - 1}$"):
        kernels.fill_budget(big, [1] * 3, ["a"] * 3, 2**64 - 1)
    assert kernels.fill_budget(big, [1] * 3, ["a"] * 3, MAX).reasons == ["selected", "budget", "budget"]
    # straight into the kernels (no front): the same refusal from both
    plain = ([0] * 3, [0] * 3, [0] * 3, ["a", "b", "c"])
    kind, message = agree("fill_budget", big, [1] * 3, *plain, 2**64 - 1, 0.0, None, [-1], [0], False)
    assert (kind, message) == ("ValueError", f"budget: must be <= {MAX}, got {2**64 - 1}")


def test_estimates_saturate_at_the_limit_on_both_backends() -> None:
    assert agree("estimate_tokens", ["x", "", "abc" * 10], 1e-300) == ("ok", [MAX, 0, MAX])
    # just below the limit the estimate is exact, not saturated
    assert agree("estimate_tokens", ["x" * 9], 1e-18) == ("ok", [math.ceil(9 / 1e-18)])
    assert math.ceil(9 / 1e-18) < MAX
    assert kernels.estimate_tokens(["x"], bytes_per_token=5e-324) == [MAX]


@given(edge_scalars)
def test_budget_edges(budget: Any) -> None:
    args = ([1, 2], [0.5, 0.4], [0, 0], [0, 0], [0, 0], ["a", "b"], budget, 0.0, None, [-1], [0], False)
    spec = agree("fill_budget", *args)
    ours = public(kernels.fill_budget, [1, 2], [0.5, 0.4], ["s", "s"], budget)
    assert ours[0] == spec[0]
    if spec[0] != "ok":
        assert ours[1] == spec[1] and ours[1].startswith("budget: ")
    elif isinstance(budget, (int, np.integer)) and not isinstance(budget, bool):
        assert 0 <= budget <= MAX


@given(edge_scalars, edge_scalars)
def test_cap_and_minimum_edges(cap: Any, minimum: Any) -> None:
    ours = public(kernels.fill_budget, [3, 4], [0.5, 0.4], ["s", "s"], 10, caps={"s": cap}, min_items={"s": minimum})
    if ours[0] == "ok":
        assert 0 <= cap <= MAX and 0 <= minimum <= MAX and not isinstance(cap, bool)
    else:
        assert ours[1].split(":")[0] in ("caps['s']", "min_items['s']")
    # the kernels themselves, with the raw values (caps allow -1 for "no cap")
    agree("fill_budget", [3, 4], [0.5, 0.4], [0, 0], [0, 0], [0, 0], ["a", "b"], 10, 0.0, None, [cap], [minimum], False)


@given(st.one_of(st.floats(), st.sampled_from([0, 16, 16.000001, 400, -0.0, 1e308, -1e-300]), edge_scalars))
def test_beta_edges(beta: Any) -> None:
    plain = ([0, 0], [0, 0], [0, 0], ["a", "b"])
    spec = agree("fill_budget", [MAX, 1], [1.0, 0.5], *plain, MAX, beta, None, [-1], [0], False)
    ours = public(kernels.fill_budget, [MAX, 1], [1.0, 0.5], ["s", "s"], MAX, beta=beta)
    if isinstance(beta, bool):  # a number to the kernels, refused by the public API
        assert ours == ("TypeError", "beta: expected a number, got bool")
        return
    assert ours[0] == spec[0]
    try:
        in_range = not isinstance(beta, (str, bytes)) and beta is not None and 0 <= float(beta) <= 16
    except OverflowError:
        in_range = False
    assert (spec[0] == "ok") == in_range
    if in_range:  # the denser item goes first: 1.0 / (2**63) ** beta against 0.5 / 1
        big_first = 1.0 / float(MAX) ** float(beta) >= 0.5
        assert ours[1].reasons == (["selected", "budget"] if big_first else ["budget", "selected"])


def test_beta_400_is_refused_by_both() -> None:
    msg = "beta: must be a number in [0, 16], got 400.0"
    assert agree("fill_budget", [20], [1.0], [0], [0], [0], ["a"], 100, 400.0, None, [-1], [0], False) == (
        "ValueError",
        msg,
    )
    with pytest.raises(ValueError, match=r"^beta: must be a number in \[0, 16\], got 400$"):
        kernels.fill_budget([20], [1.0], ["s"], 100, beta=400)


@given(edge_scalars)
def test_search_limit_edges(limit: Any) -> None:
    docs = ["refund policy", "refund", "shipping"]
    ours = public(_native.Bm25Index(docs).search, "refund", limit)
    spec = public(reference.Bm25Index(docs).search, "refund", limit)
    assert ours == spec
    if ours[0] == "ok":
        assert len(ours[1]) == min(2, int(limit))
    else:
        assert ours[1].startswith("limit: ")


@given(edge_scalars)
def test_max_matches_edges(max_matches: Any) -> None:
    ours = public(kernels.grep_lines, "a\nb\na", "a", max_matches)
    if ours[0] == "ok":
        assert ours[1] == [0, 2][: int(max_matches)]
    else:
        assert ours[1].startswith("max_matches: ")


@given(st.lists(edge_ints, min_size=1, max_size=4))
def test_token_and_rank_elements(values: list[int]) -> None:
    n = len(values)
    agree("fill_budget", values, [0.5] * n, [0] * n, [0] * n, [0] * n, ["a"] * n, MAX, 1.0, None, [-1], [0], False)
    agree("cache_order", [2] * n, [False] * n, [0.5] * n, values, [""] * n, ["a"] * n)


def test_numpy_ints_and_bools_are_read_by_value() -> None:
    r = kernels.fill_budget(np.array([3, 4]), [0.5, 0.4], ["s", "s"], np.int64(5), caps={"s": np.int32(4)})
    assert (r.reasons, r.tokens_used) == (["selected", "source_cap"], 3)
    assert type(r.tokens_used) is int
    with pytest.raises(TypeError, match=r"^budget: expected an int, got bool$"):
        kernels.fill_budget([1], [0.5], ["s"], True)
    with pytest.raises(TypeError, match=r"^budget: expected an int, got float$"):
        kernels.fill_budget([1], [0.5], ["s"], 5.0)
    assert kernels.bm25_index(["a b", "a"]).search("a", np.int64(1)) == kernels.bm25_index(["a b", "a"]).search("a", 1)
