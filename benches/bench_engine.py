"""ContextEngine.build at 1k, 10k and 100k candidates, side by side with astromesh-context 0.1.0.

    pytest benches/bench_engine.py --benchmark-enable        # pytest-benchmark, group per size
    python benches/bench_engine.py                           # one run: medians and ratios table

Both engines get the same candidates (same ids, texts, raw scores, signals, sources, per-source
caps and minimums, budget) and estimate tokens themselves. Each benchmark asserts its result
before measuring it. "cold" clears ctxsieve's token cache and dedupe memo before every build,
so every text is estimated and deduplicated from scratch (the peer has no cache); "warm" is the
steady state of an agent loop whose candidates repeat between calls.
"""

from __future__ import annotations

import asyncio
import functools
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ctxsieve import ContextEngine, ContextItem, Signals, SourceConfig, StaticSource, backend

BUDGET = 8000
SOURCES = (("rag", 0.45), ("okf", 0.30), ("memory", 0.15), ("tools", 0.07), ("history", 0.03))
CAPS = {"rag": 4000, "tools": 1500}
MINS = {"history": 2}
_WORDS = [f"{a}{b}{c}" for a in "bcdfghklmnprstvz" for b in "aeiou" for c in ("n", "r", "s", "t", "l", "m", "x")]


def corpus(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` candidates as plain records: 40-120 words each, 15% near-copies of an earlier
    candidate (a few words changed), a few stale, deprecated and human-reviewed ones."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    names = [s for s, _ in SOURCES]
    weights = [w for _, w in SOURCES]
    for i in range(n):
        if out and rng.random() < 0.15:
            words = rng.choice(out)["text"].split()
            for _ in range(max(1, len(words) // 25)):
                words[rng.randrange(len(words))] = rng.choice(_WORDS)
        else:
            words = [rng.choice(_WORDS) for _ in range(rng.randint(40, 120))]
        src = rng.choices(names, weights)[0]
        r = rng.random()
        out.append(
            {
                "id": f"{src}-{i}",
                "text": " ".join(words),
                "source": src,
                "score": rng.random() * (14 if src == "okf" else 1),
                "stale": r < 0.05,
                "deprecated": 0.05 <= r < 0.07,
                "trust": "human-reviewed" if 0.07 <= r < 0.12 else None,
                "kind": "history" if src == "history" else "knowledge",
                "stability": "session" if src in ("memory", "history") else "volatile",
                "order_key": f"{i:08d}",
            }
        )
    return out


SYSTEM = "You are a careful assistant. Answer from the context and cite the ids you used."


def ours(records: list[dict[str, Any]]) -> ContextEngine:
    by_source: dict[str, list[ContextItem]] = {name: [] for name, _ in SOURCES}
    for r in records:
        sig = Signals(trust=r["trust"], stale=r["stale"], deprecated=r["deprecated"])
        by_source[r["source"]].append(
            ContextItem(
                r["id"],
                r["text"],
                r["source"],
                r["kind"],
                r["stability"],
                r["score"],
                signals=sig,
                order_key=r["order_key"],
            )
        )
    configs = [SourceConfig(StaticSource(SYSTEM, name="system", pinned=True))]
    for name, items in by_source.items():
        configs.append(
            SourceConfig(StaticSource(items, name=name), max_tokens=CAPS.get(name), min_items=MINS.get(name))
        )
    return ContextEngine(configs, budget=BUDGET)


def _same(items: list[Any], query: str, ctx: Any) -> list[Any]:
    return items


def peer(records: list[dict[str, Any]]) -> Any:
    import astromesh_context as am
    from astromesh_context.types import ContextItem as PeerItem
    from astromesh_context.types import Signals as PeerSignals

    by_source: dict[str, list[Any]] = {name: [] for name, _ in SOURCES}
    for r in records:
        sig = PeerSignals(trust=r["trust"], stale=r["stale"], deprecated=r["deprecated"])
        by_source[r["source"]].append(
            PeerItem(
                id=r["id"],
                content=r["text"],
                source=r["source"],
                kind=r["kind"],
                stability=r["stability"],
                score=r["score"],
                signals=sig,
                order_key=r["order_key"],
            )
        )
    configs = [am.SourceConfig(am.StaticSource(SYSTEM, name="system", pinned=True))]
    for name, items in by_source.items():
        src = am.CallableSource(functools.partial(_same, items), name=name)
        # the peer's default calibration is "blend"; ours is "rank": give it the same as ours
        configs.append(am.SourceConfig(src, max_tokens=CAPS.get(name), min_items=MINS.get(name, 0), mode="rank"))
    return am.ContextEngine(configs, budget=BUDGET)


def build_ours(engine: ContextEngine, cold: bool) -> Any:
    if cold:
        engine.estimator._cache.clear()
        engine._dedupe_memos.clear()  # a cold build starts from an empty dedupe memo too
        engine._columns.clear()  # the previous build's per-item columns (stages.columns_memo)
    return engine.build_sync("which refund rules apply to the team plan")


def build_peer(engine: Any) -> Any:
    return asyncio.run(engine.build("which refund rules apply to the team plan"))


def check(window: Any, n: int) -> None:
    """What every build must produce, whichever engine made it."""
    assert len(window.trace.entries) == n + 1
    assert 0 < window.tokens_used <= BUDGET
    included = {e.item_id if hasattr(e, "item_id") else e.id for e in window.trace.entries if e.included}
    assert included == {i.id for i in window.items}
    dup = [e for e in window.trace.entries if (e.reason or "").startswith("duplicate_of:")]
    assert len(dup) >= n // 20, "the corpus has 15% near-copies: dedupe must find them"


# -- pytest-benchmark ----------------------------------------------------------------------------

SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}


@pytest.fixture(scope="module")
def corpora() -> dict[str, list[dict[str, Any]]]:
    return {k: corpus(n) for k, n in SIZES.items()}


@pytest.mark.benchmark(group="build-1k")
def test_build_1k_ours(benchmark, corpora):
    engine = ours(corpora["1k"])
    check(build_ours(engine, cold=True), 1_000)
    benchmark(build_ours, engine, True)


@pytest.mark.benchmark(group="build-1k")
def test_build_1k_peer(benchmark, corpora):
    pytest.importorskip("astromesh_context", reason="the peer is a bench-only dev dependency")
    engine = peer(corpora["1k"])
    check(build_peer(engine), 1_000)
    benchmark.pedantic(build_peer, args=(engine,), rounds=3, iterations=1)


@pytest.mark.benchmark(group="build-10k")
def test_build_10k_ours(benchmark, corpora):
    engine = ours(corpora["10k"])
    check(build_ours(engine, cold=True), 10_000)
    benchmark(build_ours, engine, True)


@pytest.mark.benchmark(group="build-100k")
def test_build_100k_ours(benchmark, corpora):
    engine = ours(corpora["100k"])
    check(build_ours(engine, cold=True), 100_000)
    benchmark.pedantic(build_ours, args=(engine, True), rounds=3, iterations=1)


# -- one run, one table ----------------------------------------------------------------------------


def median_ms(rounds: int, fn: Any, *args: Any) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn(*args)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def median_cpu_ms(rounds: int, fn: Any, *args: Any) -> float:
    """Median CPU time (all threads of this process): on a machine other work loads, wall time
    also counts the waits for a core, CPU time mostly not."""
    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        fn(*args)
        times.append((time.process_time() - t0) * 1000)
    return statistics.median(times)


def table(peer_rounds: int = 3) -> None:
    """Medians of one run: ctxsieve cold and warm at 1k/10k/100k, the peer at 1k."""
    print(f"ctxsieve backend: {backend()}   budget {BUDGET} tokens   python {sys.version.split()[0]}")
    rows = []
    results: dict[str, dict[str, float]] = {}
    for label, n in SIZES.items():
        records = corpus(n)
        engine = ours(records)
        check(build_ours(engine, cold=True), n)
        rounds = 21 if n <= 10_000 else 5
        cold = median_ms(rounds, build_ours, engine, True)
        cold_cpu = median_cpu_ms(rounds, build_ours, engine, True)
        warm = median_ms(rounds, build_ours, engine, False)
        results[label] = {"cold": cold, "warm": warm, "cpu": cold_cpu}
        peer_ms = None
        if n == 1_000:
            p = peer(records)
            check(build_peer(p), n)
            peer_ms = median_ms(peer_rounds, build_peer, p)
        rows.append((label, cold, cold_cpu, warm, peer_ms))
    print(
        f"{'candidates':>10}  {'ctxsieve cold':>14}  {'cold, CPU':>12}  {'ctxsieve warm':>14}  {'astromesh 0.1.0':>16}"
        f"  {'peer/cold':>10}"
    )
    for label, cold, cold_cpu, warm, peer_ms in rows:
        p = f"{peer_ms:13.1f} ms" if peer_ms else f"{'-':>16}"
        ratio = f"{peer_ms / cold:9.0f}x" if peer_ms else f"{'-':>10}"
        print(f"{label:>10}  {cold:11.2f} ms  {cold_cpu:9.2f} ms  {warm:11.2f} ms  {p}  {ratio}")
    for key, what in (("cold", "wall"), ("cpu", "CPU")):
        growth = results["100k"][key] / results["10k"][key]
        print(f"growth 10k -> 100k (cold, {what}): {growth:.1f}x for 10x the candidates")


if __name__ == "__main__":
    table()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    # issue 15: warm with 5 % new candidates, build_many on 1 and 2 threads, memory; then each
    # stage's share of a cold build and the shingling floor
    from benches import stages
    from benches.bench_steady import table as steady_table

    steady_table()
    stages.main([10_000, 100_000])
    # the shared-boilerplate rows (issue 15): the same engine, 20k and 40k, footer and template
    from benches.bench_boilerplate import table as boilerplate_table

    boilerplate_table()
