"""Hostile element objects (issue 12, finding 11): a score's ``__float__`` or a flag's
``__bool__`` that mutates a sibling list while the kernel converts its input must not panic
(``PanicException`` is a BaseException that ``except Exception`` misses) and must not make the
backends disagree. Both backends snapshot their lists before converting any element, so the
mutation only reaches the caller's list and the result is the one for the input as passed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ctxsieve import _native, kernels
from ctxsieve.kernels import reference


class Shrinking:
    """A number or flag whose conversion empties ``victim`` (once) and then answers ``value``."""

    def __init__(self, victim: list[Any], value: Any) -> None:
        self.victim = victim
        self.value = value

    def _strike(self) -> None:
        self.victim.clear()

    def __float__(self) -> float:
        self._strike()
        return float(self.value)

    def __bool__(self) -> bool:
        self._strike()
        return bool(self.value)


class Growing(Shrinking):
    def _strike(self) -> None:
        self.victim.extend([0] * 5)


STRIKES = [Shrinking, Growing]
BACKENDS = {"native": _native, "python": reference}


def call(fn: Callable[..., Any], *args: Any) -> Any:
    """The result, or the exception kind and message; any BaseException that is not an
    Exception (a Rust panic) fails the test instead of being caught."""
    try:
        return ("ok", fn(*args))
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def dedupe_args(strike: type[Shrinking], where: str) -> tuple[Any, ...]:
    texts = ["alpha beta gamma delta", "alpha beta gamma delta", "other words here"]
    ids = ["a", "b", "c"]
    pinned: list[Any] = [False, False, False]
    history: list[Any] = [False, False, False]
    scores: list[Any] = [0.5, 0.9, 0.1]
    if where == "scores":  # a score empties the flags read after it
        scores[0] = strike(history, 0.5)
    else:  # a pinned flag empties the history flags read after it
        pinned[0] = strike(history, False)
    return (texts, ids, scores, pinned, history, 0.8)


@pytest.mark.parametrize("strike", STRIKES)
@pytest.mark.parametrize("where", ["scores", "pinned"])
def test_dedupe_survives_sibling_mutation(strike: type[Shrinking], where: str) -> None:
    results = {name: call(mod.dedupe, *dedupe_args(strike, where)) for name, mod in BACKENDS.items()}
    assert results["native"] == results["python"]
    assert results["python"] == ("ok", ([1, -1, -1], [1, 0, 2]))


def fill_args(strike: type[Shrinking], where: str) -> tuple[Any, ...]:
    tokens: list[Any] = [3, 4, 5]
    scores: list[Any] = [0.3, 0.2, 0.1]
    pinned: list[Any] = [False, False, False]
    deprecated: list[Any] = [False, False, False]
    ids = ["a", "b", "c"]
    if where == "scores":
        scores[1] = strike(ids, 0.2)  # ids are read last
    else:
        pinned[2] = strike(deprecated, False)
    return (tokens, scores, [0, 0, 0], pinned, deprecated, ids, 8, 0.0, None, [-1], [0], False)


@pytest.mark.parametrize("strike", STRIKES)
@pytest.mark.parametrize("where", ["scores", "pinned"])
def test_fill_budget_survives_sibling_mutation(strike: type[Shrinking], where: str) -> None:
    results = {name: call(mod.fill_budget, *fill_args(strike, where)) for name, mod in BACKENDS.items()}
    assert results["native"] == results["python"]
    assert results["python"] == ("ok", [2, 2, 6])


def order_args(strike: type[Shrinking], where: str) -> tuple[Any, ...]:
    stability = [2, 2, 0]
    history: list[Any] = [False, False, False]
    scores: list[Any] = [0.1, 0.9, 0.5]
    ranks: list[Any] = [0, 0, 0]
    keys = ["", "", ""]
    ids = ["a", "b", "c"]
    if where == "scores":
        scores[0] = strike(ranks, 0.1)  # source ranks are read after the scores
    else:
        history[1] = strike(scores, False)
    return (stability, history, scores, ranks, keys, ids)


@pytest.mark.parametrize("strike", STRIKES)
@pytest.mark.parametrize("where", ["scores", "history"])
def test_cache_order_survives_sibling_mutation(strike: type[Shrinking], where: str) -> None:
    results = {name: call(mod.cache_order, *order_args(strike, where)) for name, mod in BACKENDS.items()}
    assert results["native"] == results["python"]
    assert results["python"] == ("ok", [2, 1, 0])


@pytest.mark.parametrize("strike", STRIKES)
def test_public_api_survives_sibling_mutation(strike: type[Shrinking]) -> None:
    texts, ids, scores, pinned, history, _ = dedupe_args(strike, "scores")
    assert kernels.dedupe(texts, ids, scores, pinned=pinned, history=history).duplicate_of == [1, -1, -1]
    tokens, scores, _s, pinned, deprecated, ids, *_ = fill_args(strike, "pinned")
    r = kernels.fill_budget(tokens, scores, ["s", "s", "s"], 8, ids=ids, pinned=pinned, deprecated=deprecated)
    assert (r.reasons, r.tokens_used) == (["selected", "selected", "budget"], 7)


class Raising:
    def __float__(self) -> float:
        raise KeyError("from __float__")

    def __bool__(self) -> bool:
        raise KeyError("from __bool__")


@pytest.mark.parametrize("name", ["native", "python"])
def test_errors_raised_by_conversions_propagate_unchanged(name: str) -> None:
    mod = BACKENDS[name]
    with pytest.raises(KeyError, match="from __float__"):
        mod.dedupe(["x"], ["a"], [Raising()], [False], [False], 0.8)
    with pytest.raises(KeyError, match="from __bool__"):
        mod.cache_order([0], [Raising()], [0.0], [0], [""], ["a"])


def test_a_remaining_panic_is_an_exception_with_a_clear_message() -> None:
    with pytest.raises(_native.InternalError) as info:
        _native._panic_for_tests("boom")
    assert isinstance(info.value, RuntimeError)
    assert str(info.value) == "ctxsieve._native._panic_for_tests: internal error, please report it: boom"


class LyingStr(str):
    """Claims to sort after everything: the kernels must order ids by value, as the native side
    does with their bytes (the reference used to call these overrides)."""

    def __lt__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return True


@pytest.mark.parametrize("name", ["native", "python"])
def test_str_subclasses_are_read_by_value(name: str) -> None:
    mod = BACKENDS[name]
    ids = [LyingStr("b"), LyingStr("a"), LyingStr("c")]
    texts = ["x one", "y two", "z three"]
    assert mod.dedupe(texts, ids, [0.5] * 3, [0] * 3, [0] * 3, 0.8) == ([-1, -1, -1], [1, 0, 2])
    assert mod.cache_order([2] * 3, [0] * 3, [0.5] * 3, [0] * 3, [""] * 3, ids) == [1, 2, 0]
    # ties by id: "a" and "b" fit the budget of 2, "c" does not
    assert mod.fill_budget([1] * 3, [0.5] * 3, [0] * 3, [0] * 3, [0] * 3, ids, 2, 0.0, None, [-1], [0], False) == [
        2,
        2,
        6,
    ]
