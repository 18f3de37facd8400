"""Fuzzing the public kernel API (issue 12): every entry point of ``ctxsieve.kernels`` gets
arbitrary, often hostile, arguments and runs once per backend. Both must give the same result,
or the same exception type and message, and the only exceptions allowed are ``TypeError``,
``ValueError`` (and its subclasses) and ``BudgetExceededError`` (pinned items over the budget).

The example count follows the project's hypothesis profile; ``CTXSIEVE_FUZZ_EXAMPLES`` overrides
it (``make fuzz`` runs many more). Grep's dialect is another piece of work; grep is fuzzed here
only on its ``max_matches`` option.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from hypothesis import event, given, settings
from hypothesis import strategies as st

from ctxsieve import BudgetExceededError, _native, kernels
from ctxsieve.kernels import calibrated, reference

from .strategies import ids, texts

_EXAMPLES = os.environ.get("CTXSIEVE_FUZZ_EXAMPLES")
fuzz_settings = settings(max_examples=int(_EXAMPLES)) if _EXAMPLES else settings()
ALLOWED = (TypeError, ValueError, BudgetExceededError)


class Str(str):
    """A str subclass whose comparisons and hash lie: must be read by value."""

    def __lt__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return 0


class Num:
    """Converts to whatever it was built with, through ``__float__``/``__index__``/``__bool__``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __float__(self) -> float:
        return float(self.value)

    def __index__(self) -> int:
        return int(self.value)

    def __bool__(self) -> bool:
        return bool(self.value)

    def __repr__(self) -> str:
        return f"Num({self.value!r})"


def mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any], odds: int = 20) -> st.SearchStrategy[Any]:
    """``bad`` about once in ``odds`` draws, else ``good``: most calls must get past the argument
    checks to reach the kernels. (A plain ``one_of`` of many branches picks the last one far
    more often than its share; a wide integer taken modulo ``odds`` is close to uniform, and
    shrinks towards the good branch.)"""
    return st.tuples(st.integers(0, 1 << 12), good, bad).map(lambda t: t[2] if t[0] % odds == 1 else t[1])


EDGE_INTS = [0, 1, -1, 2**53, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30]
hostile_numbers = st.one_of(
    st.sampled_from(EDGE_INTS),
    st.booleans(),
    st.floats(),
    st.sampled_from([5e-324, 1e308, 16.0, 16.5, 400.0, -0.0]),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.floats(width=32).map(np.float32),
    st.sampled_from([*EDGE_INTS, 0.5, 2.5, float("nan")]).map(Num),
)
counts = mostly(st.integers(0, 40), hostile_numbers)
reals = mostly(st.one_of(st.floats(-2, 2), st.sampled_from([0.0, 0.5, 1.0])), hostile_numbers)
flags = mostly(st.booleans(), hostile_numbers)
strings = mostly(st.one_of(texts, ids), st.one_of(ids.map(Str), st.sampled_from([None, b"x", 3])))
stabilities = mostly(st.sampled_from(["stable", "session", "volatile"]), st.one_of(strings, counts))
scalars = st.one_of(hostile_numbers, strings, st.sampled_from([None, b"x", object()]))


def sequences(elements: st.SearchStrategy[Any], n: int) -> st.SearchStrategy[Any]:
    """Mostly lists of ``n`` elements (so the call gets past the length checks), sometimes
    tuples, numpy arrays, a different length or a non-sequence."""
    exact = st.lists(elements, min_size=n, max_size=n)
    odd = st.one_of(
        exact.map(tuple),
        st.lists(elements, max_size=n + 2),
        exact.map(lambda xs: np.array(xs) if _homogeneous(xs) else xs),
        scalars,
    )
    return mostly(exact, odd, odds=8)


def _homogeneous(xs: list[Any]) -> bool:
    return all(type(x) in (int, float) for x in xs) and all(abs(x) < 2**62 for x in xs if x == x)


@contextmanager
def backend(module: Any) -> Iterator[None]:
    """The public API with ``module`` as its live backend, for the length of the block."""
    saved = kernels._impl
    kernels._impl = module
    try:
        yield
    finally:
        kernels._impl = saved


def outcome(call: Callable[[], Any]) -> Any:
    try:
        result = call()
    except ALLOWED as exc:
        return (type(exc).__name__, str(exc))
    # anything else (KeyError, OverflowError, IndexError, a Rust panic) fails the test
    if isinstance(result, (kernels.FillResult, kernels.DedupeResult)):
        return ("ok", vars(result))
    return ("ok", result)


def both(call: Callable[[], Any]) -> Any:
    with backend(_native):
        ours = outcome(call)
    with backend(reference):
        spec = outcome(call)
    assert ours == spec, f"native={ours!r} reference={spec!r}"
    event(spec[0] if spec[0] == "ok" else f"{spec[0]}: {spec[1].split(':')[0]}")
    return spec


@fuzz_settings
@given(st.integers(0, 6).flatmap(lambda n: sequences(strings, n)), mostly(st.floats(0.1, 8), hostile_numbers))
def test_estimate_tokens(texts_: Any, divisor: Any) -> None:
    both(lambda: kernels.estimate_tokens(texts_, divisor))


@fuzz_settings
@given(st.one_of(strings, scalars))
def test_text_functions(text: Any) -> None:
    for fn in (kernels.words, kernels.shingle_hashes, kernels.content_hash):
        both(lambda fn=fn: fn(text))  # type: ignore[misc]


@fuzz_settings
@given(st.data())
def test_dedupe(data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 6))
    args = [data.draw(sequences(el, n)) for el in (strings, strings, reals)]
    opts = {k: data.draw(st.one_of(st.none(), sequences(flags, n))) for k in ("pinned", "history")}
    threshold = data.draw(mostly(st.sampled_from([0.8, 0.5, 1.0, 0.01]), hostile_numbers))
    both(lambda: kernels.dedupe(*args, threshold=threshold, **opts))


@fuzz_settings
@given(st.data())
def test_fill_budget(data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 6))
    tokens, scores = data.draw(sequences(counts, n)), data.draw(sequences(reals, n))
    sources = data.draw(sequences(mostly(st.sampled_from("abc"), strings), n))
    budget = data.draw(mostly(st.integers(0, 120), hostile_numbers))
    opts: dict[str, Any] = {}
    for key, value in (
        ("ids", sequences(strings, n)),
        ("pinned", sequences(mostly(st.just(False), flags), n)),
        ("deprecated", sequences(flags, n)),
        ("beta", mostly(st.sampled_from([0.0, 0.5, 1.0, 2.0]), hostile_numbers)),
        ("min_score", mostly(st.floats(-1, 1), hostile_numbers)),
        ("caps", st.dictionaries(mostly(st.sampled_from("abc"), strings), counts, max_size=3)),
        ("min_items", st.dictionaries(mostly(st.sampled_from("abc"), strings), counts, max_size=3)),
        ("include_deprecated", flags),
    ):
        if data.draw(st.booleans()):
            opts[key] = data.draw(value)
    both(lambda: kernels.fill_budget(tokens, scores, sources, budget, **opts))


@fuzz_settings
@given(st.data())
def test_cache_order(data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 6))
    stability, scores = data.draw(sequences(stabilities, n)), data.draw(sequences(reals, n))
    opts: dict[str, Any] = {}
    for key, el in (("history", flags), ("source_rank", counts), ("order_keys", strings), ("ids", strings)):
        if data.draw(st.booleans()):
            opts[key] = data.draw(sequences(el, n))
    both(lambda: kernels.cache_order(stability, scores, **opts))


@fuzz_settings
@given(
    st.integers(0, 5).flatmap(lambda n: sequences(strings, n)),
    mostly(st.floats(0.1, 3), hostile_numbers),
    mostly(st.floats(0, 1), hostile_numbers),
    strings,
    counts,
)
def test_bm25(docs: Any, k1: Any, b: Any, query: Any, limit: Any) -> None:
    both(lambda: kernels.bm25_index(docs, k1, b).search(query, limit))


@fuzz_settings
@given(counts)
def test_grep_max_matches(max_matches: Any) -> None:
    both(lambda: kernels.grep_lines("a\nb\na", "a", max_matches))


@fuzz_settings
@given(
    st.integers(0, 4).flatmap(lambda n: sequences(strings, n)),
    mostly(st.lists(mostly(st.integers(0, 3000), hostile_numbers, 30), min_size=32, max_size=32), scalars),
)
def test_calibrated(texts_: Any, costs: Any) -> None:
    spec = outcome(lambda: calibrated.estimate_reference(texts_, costs))
    ours = outcome(lambda: _native.calibrated_estimate(texts_, costs))
    assert ours == spec
    event(spec[0] if spec[0] == "ok" else f"{spec[0]}: {spec[1].split(':')[0]}")
