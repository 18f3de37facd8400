"""Kernel benchmarks: native vs reference at 1k and 10k candidates, and dedupe against
astromesh-context 0.1.0 on the same items. Each benchmark checks its result before timing it.

    pytest benches/bench_kernels.py --benchmark-only --benchmark-group-by=group
    python benches/report.py          # one table of medians and ratios from one run
"""

from __future__ import annotations

from typing import Any

import pytest

from ctxsieve import _native
from ctxsieve.kernels import reference

from .workload import candidates

IMPLS = {"native": _native, "reference": reference}
SIZES = [1000, 10000]


def dedupe_args(n: int) -> tuple[Any, ...]:
    c = candidates(n)
    return (c.texts, c.ids, c.scores, c.pinned, c.history, 0.8)


def fill_args(n: int) -> tuple[Any, ...]:
    c = candidates(n)
    codes = {s: i for i, s in enumerate(dict.fromkeys(c.sources))}
    nsrc = len(codes)
    return (
        c.tokens,
        c.scores,
        [codes[s] for s in c.sources],
        c.pinned,
        [i % 50 == 0 for i in range(n)],
        c.ids,
        sum(c.tokens) // 10,
        0.0,
        0.05,
        [sum(c.tokens) // 20] + [-1] * (nsrc - 1),
        [0] * (nsrc - 1) + [1],
        False,
    )


def order_args(n: int) -> tuple[Any, ...]:
    c = candidates(n)
    codes = {"stable": 0, "session": 1, "volatile": 2}
    return ([codes[s] for s in c.stability], c.history, c.scores, [i % 5 for i in range(n)], c.ids, c.ids)


def rounds(impl: str, n: int, slow: int) -> int:
    return 3 if impl == "reference" and n >= slow else 10


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("impl", IMPLS)
def test_estimate(benchmark: Any, impl: str, n: int) -> None:
    c = candidates(n)
    fn = IMPLS[impl].estimate_tokens
    assert fn(c.texts, 3.0) == c.tokens
    benchmark.group = f"estimate-{n}"
    benchmark.extra_info["bytes"] = c.total_bytes
    benchmark(fn, c.texts, 3.0)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("impl", IMPLS)
def test_dedupe(benchmark: Any, impl: str, n: int) -> None:
    args = dedupe_args(n)
    fn = IMPLS[impl].dedupe
    dup, _ = fn(*args)
    dropped = sum(d >= 0 for d in dup)
    assert 0.1 * n < dropped < 0.3 * n  # the 20 % near-duplicates, less the exempt history items
    benchmark.group = f"dedupe-{n}"
    benchmark.pedantic(fn, args, rounds=rounds(impl, n, 10000), iterations=1)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("impl", IMPLS)
def test_fill(benchmark: Any, impl: str, n: int) -> None:
    args = fill_args(n)
    fn = IMPLS[impl].fill_budget
    reasons = fn(*args)
    included = sum(args[0][i] for i, r in enumerate(reasons) if r <= 2)
    assert 0 < included <= args[6]
    benchmark.group = f"fill-{n}"
    benchmark(fn, *args)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("impl", IMPLS)
def test_order(benchmark: Any, impl: str, n: int) -> None:
    args = order_args(n)
    fn = IMPLS[impl].cache_order
    assert sorted(fn(*args)) == list(range(n))
    benchmark.group = f"order-{n}"
    benchmark(fn, *args)


def peer_items(n: int) -> list[Any]:
    from astromesh_context.types import ContextItem, ScoredItem

    c = candidates(n)
    kinds = {"history": "history", "memory": "memory", "tools": "tool_result"}
    return [
        ScoredItem(
            ContextItem(
                id=c.ids[i],
                content=c.texts[i],
                source=c.sources[i],
                kind=kinds.get(c.sources[i], "knowledge"),  # type: ignore[arg-type]
                stability="volatile",
                score=c.scores[i],
                pinned=c.pinned[i],
            ),
            calibrated=c.scores[i],
            final=c.scores[i],
        )
        for i in range(n)
    ]


def test_dedupe_peer(benchmark: Any) -> None:
    """astromesh-context 0.1.0's dedupe (pure Python, pairwise) on the 1k items."""
    from astromesh_context.dedupe import dedupe as peer_dedupe

    items = peer_items(1000)
    _kept, dropped = peer_dedupe(items)
    assert 100 < len(dropped) < 300
    benchmark.group = "dedupe-1000"
    benchmark.pedantic(peer_dedupe, (items,), rounds=2, iterations=1)
