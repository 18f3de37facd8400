"""The steady state of an agent loop (issue 15): warm rebuilds whose candidates are 95 % the
same as the previous build's, ``build_many`` on one and two threads, and memory (peak RSS of a
100k build, RSS across many consecutive builds).

    pytest benches/bench_steady.py --benchmark-enable --benchmark-group-by=group
    python benches/bench_steady.py               # one run: the rows of bench_engine's table

"warm 95 %": the same engine builds again after 5 % of its candidates (spread over every
source) were replaced by new ones (a new id, a new text, a new score), as a loop's retrieval
changes a little between turns; "cold" is bench_engine's (token cache and dedupe memo cleared
every build). The replacements are made before the clock starts. The dedupe row times the
dedupe kernel call inside those builds (``stages.dedupe.kernel``: the memo's on a warm build,
the cold kernel on a cold one), and the one build that fills the memo: the second build of a
candidate set, which joins all its texts (the first runs the cold kernel and notes the texts).
``CTXSIEVE_STEADY_BUILDS`` sets how many consecutive builds the memory row makes (default
10,000 in the table, 200 in the pytest test).
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ctxsieve import CallableSource, ContextEngine, ContextItem, Signals, StaticSource, backend
from ctxsieve.kernels.threads import set_thread_budget
from ctxsieve.stages import dedupe as dedupe_stage

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benches.bench_engine import _WORDS, BUDGET, SYSTEM, build_ours, check, corpus, ours
else:
    from .bench_engine import _WORDS, BUDGET, SYSTEM, build_ours, check, corpus, ours

CHANGED = 0.05  # the share of candidates a warm rebuild gets new
QUERIES = [f"which refund rules apply to plan {k}" for k in range(8)]
ROOT = Path(__file__).resolve().parent.parent


class Churn:
    """Replaces ``CHANGED`` of an engine's candidates between builds, from texts made ahead."""

    def __init__(self, engine: ContextEngine, seed: int = 11):
        self.rng = random.Random(seed)
        # the lists StaticSource proposes as they are: replacing an element changes the proposal
        self.lists = [c.source.items for c in engine.configs if c.name != "system"]
        self.slots = [(k, j) for k, lst in enumerate(self.lists) for j in range(len(lst))]
        self.made = 0

    def fresh(self, like: ContextItem) -> ContextItem:
        self.made += 1
        words = [self.rng.choice(_WORDS) for _ in range(self.rng.randint(40, 120))]
        r = self.rng.random()
        return ContextItem(
            f"{like.source}-new{self.made}",
            " ".join(words),
            like.source,
            like.kind,
            like.stability,
            self.rng.random() * (14 if like.source == "okf" else 1),
            signals=Signals(stale=r < 0.05),
            order_key=f"n{self.made:08d}",
        )

    def plan(self) -> list[tuple[int, int, ContextItem]]:
        picks = self.rng.sample(self.slots, max(1, int(len(self.slots) * CHANGED)))
        return [(k, j, self.fresh(self.lists[k][j])) for k, j in picks]

    def apply(self, plan: list[tuple[int, int, ContextItem]]) -> None:
        for k, j, item in plan:
            self.lists[k][j] = item


def warm_ms(n: int, rounds: int) -> tuple[float, float, float, float]:
    """Median cold and warm-95 % build times at ``n`` candidates: wall, then CPU (all threads)."""
    engine = ours(corpus(n))
    check(build_ours(engine, cold=True), n)
    churn = Churn(engine)

    def timed(cold: bool) -> tuple[float, float]:
        walls, cpus = [], []
        for _ in range(rounds):
            if not cold:
                churn.apply(churn.plan())  # before the clock
            t0, c0 = time.perf_counter(), time.process_time()
            build_ours(engine, cold=cold)
            walls.append((time.perf_counter() - t0) * 1000)
            cpus.append((time.process_time() - c0) * 1000)
        return statistics.median(walls), statistics.median(cpus)

    cold_wall, cold_cpu = timed(True)
    build_ours(engine, cold=False)
    warm_wall, warm_cpu = timed(False)
    return cold_wall, warm_wall, cold_cpu, warm_cpu


def dedupe_ms(n: int, rounds: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) ms of the dedupe kernel call in cold and warm-95 % builds at ``n``,
    and of the build that fills the memo; plus the memo's counters after."""
    engine = ours(corpus(n))
    churn = Churn(engine)
    spent: list[tuple[float, float]] = []
    kernel = dedupe_stage.kernel

    def timed(*args: Any) -> Any:
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return kernel(*args)
        finally:
            spent.append(((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000))

    def medians(cold: bool) -> tuple[float, float]:
        del spent[:]
        for _ in range(rounds):
            if not cold:
                churn.apply(churn.plan())
            build_ours(engine, cold=cold)
        return statistics.median(w for w, _ in spent), statistics.median(c for _, c in spent)

    dedupe_stage.kernel = timed
    try:
        out = {"cold": medians(True)}
        del spent[:]
        build_ours(engine, cold=False)  # the second build of these candidates: all joined
        out["fill"] = spent[-1]
        out["warm"] = medians(False)
    finally:
        dedupe_stage.kernel = kernel
    stats = engine._dedupe_memos.stats()
    assert backend() != "native" or stats["warm"] >= rounds, stats
    return out


def memo_rss_mb(n: int) -> tuple[float, int]:
    """RSS (MiB) the dedupe memo of an engine holds after its candidates were built three times
    (cold, the fill, warm), against the same engine before; and how many texts it holds."""
    engine = ours(corpus(n))
    check(build_ours(engine, cold=True), n)
    engine._dedupe_memos.clear()
    gc.collect()
    before = rss_kb()
    for _ in range(3):
        build_ours(engine, cold=False)
    gc.collect()
    return (rss_kb() - before) / 1024, engine._dedupe_memos.stats().get("texts", 0)


def retrieval(n: int, pool: int = 4) -> ContextEngine:
    """An engine whose one source proposes, for each query, its own ``n`` of ``pool * n``
    candidates (a retrieval source: queries share a quarter of their candidates on average),
    where ``ours`` proposes the same ``n`` to every query."""
    # one source, named as the items say (else gathering relabels each item on every build)
    items = [
        dataclasses.replace(i, source="kb")
        for c in ours(corpus(pool * n)).configs
        if c.name != "system"
        for i in c.source.items
    ]

    def search(query: str) -> list[ContextItem]:
        return random.Random(query).sample(items, n)

    sources = [StaticSource(SYSTEM, name="system", pinned=True), CallableSource(search, name="kb", blocking=False)]
    return ContextEngine(sources, budget=BUDGET)


def build_many_ms(n: int, rounds: int, engine: ContextEngine | None = None) -> dict[str, tuple[float, float]]:
    """Median wall and CPU time (ms, all threads) of ``build_many(QUERIES)`` on 1 and 2 workers
    and of one ``build_sync`` ("sequential": the queries' ``build_sync`` one after another, the
    work build_many spreads over its threads), rounds interleaved so that each sees the same load: a 2-core
    machine shared with other work gives two threads less than two cores, and the ratio of
    runs minutes apart measures the load more than the library. ``engine``: ``ours``'s by
    default (the same candidates for every query: after the first builds the dedupe memo
    answers for all of them), or e.g. ``retrieval(n)``."""
    engine = engine or ours(corpus(n))
    runs: dict[str, Any] = {
        "1 thread": functools.partial(engine.build_many, QUERIES, max_workers=1),
        "2 threads": functools.partial(engine.build_many, QUERIES, max_workers=2),
        "one build": functools.partial(engine.build_sync, QUERIES[0]),
        # the same queries one after another: what build_many's threads must beat (with each
        # query its own candidates, "one build" repeats one query, which the memo answers warm)
        "sequential": lambda: [engine.build_sync(q) for q in QUERIES],
        # the same, every kernel on one thread: what "one thread" means when a build's kernels
        # do not spread over the cores themselves
        "one core": lambda: on_one_core(lambda: [engine.build_sync(q) for q in QUERIES]),
    }
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
    windows = engine.build_many(QUERIES, max_workers=2)
    assert [w.query for w in windows] == QUERIES and all(0 < w.tokens_used <= BUDGET for w in windows)
    for fn in runs.values():
        fn()  # warm up: the same state for every row
    for _ in range(rounds):
        for name, fn in runs.items():
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            times[name].append(((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000))
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()}


def on_one_core(fn: Any) -> Any:
    """``fn()`` with the calling thread's kernels on one thread."""
    set_thread_budget(1)
    try:
        return fn()
    finally:
        set_thread_budget(None)


def rss_kb() -> int:
    """Resident set size now, from /proc (Linux); 0 where there is none."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except OSError:
        return 0


def rss_over_builds(n: int, builds: int) -> list[tuple[int, int]]:
    """(build number, RSS in KiB) at a few points of ``builds`` consecutive warm-95 % builds."""
    engine = ours(corpus(n))
    churn = Churn(engine)
    marks = sorted({builds // 100, builds // 10, builds // 2, builds} - {0})
    out = []
    for b in range(1, builds + 1):
        churn.apply(churn.plan())
        build_ours(engine, cold=False)
        if b in marks:
            gc.collect()
            out.append((b, rss_kb()))
    return out


PEAK = """
import os, resource, sys, threading
sys.path.insert(0, {root!r})
from benches.bench_engine import build_ours, check, corpus, ours
from benches.bench_steady import rss_kb
engine = ours(corpus({n}))
before, peak, done = rss_kb(), [0], threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss_kb())
        done.wait(0.001)
t = threading.Thread(target=sample)
t.start()
check(build_ours(engine, cold=True), {n})
done.set()
t.join()
print(before, max(peak[0], rss_kb()), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss_mb(n: int) -> tuple[float, float, float]:
    """In a fresh interpreter holding the corpus and engine: RSS (MiB) before one cold build,
    the highest RSS sampled every millisecond during it, and the process's peak RSS
    (``ru_maxrss``, which also covers making the corpus)."""
    out = subprocess.run(
        [sys.executable, "-c", PEAK.format(root=str(ROOT), n=n)], capture_output=True, text=True, check=True
    ).stdout.split()
    before, during, peak = (int(v) / 1024 for v in out)
    return before, during, peak


# -- pytest-benchmark ----------------------------------------------------------------------------


@pytest.mark.benchmark(group="steady-10k")
def test_warm_95_10k(benchmark):
    engine = ours(corpus(10_000))
    churn = Churn(engine)
    check(build_ours(engine, cold=False), 10_000)

    def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
        churn.apply(churn.plan())
        return (engine, False), {}

    benchmark.pedantic(build_ours, setup=setup, rounds=7, iterations=1)


@pytest.mark.benchmark(group="steady-10k")
@pytest.mark.parametrize("workers", [1, 2])
def test_build_many_10k(benchmark, workers):
    engine = ours(corpus(10_000))
    queries = QUERIES[:4]
    windows = engine.build_many(queries, max_workers=workers)
    assert [w.query for w in windows] == queries
    for w in windows:
        check(w, 10_000)
    benchmark.pedantic(engine.build_many, args=(queries,), kwargs={"max_workers": workers}, rounds=3, iterations=1)


def test_rss_flat_over_builds():
    """No growth across consecutive builds: after the first tenth, RSS stays within 8 MiB
    (caches are bounded; a leak of one small object per candidate would pass 8 MiB well
    before the last build at 1k candidates)."""
    builds = int(os.environ.get("CTXSIEVE_STEADY_BUILDS", "200"))
    points = rss_over_builds(1_000, builds)
    if points[-1][1] == 0:
        pytest.skip("no /proc/self/statm on this platform")
    settled = points[1][1] if len(points) > 1 else points[0][1]
    assert points[-1][1] - settled < 8 * 1024, points


# -- one run -------------------------------------------------------------------------------------


def table() -> None:
    print(f"\nsteady state (backend {backend()}):")
    cold, warm, cold_cpu, warm_cpu = warm_ms(10_000, 21)
    print(f"  10k warm, 95 % unchanged: {warm:.2f} ms = {warm / cold:.2f} of cold ({cold:.2f} ms);", end=" ")
    print(f"CPU {warm_cpu:.2f} ms = {warm_cpu / cold_cpu:.2f} of cold ({cold_cpu:.2f} ms)")
    d = dedupe_ms(10_000, 21)
    print(f"  10k dedupe kernel call, wall/CPU ms: cold {d['cold'][0]:.2f}/{d['cold'][1]:.2f},", end=" ")
    print(f"warm {d['warm'][0]:.2f}/{d['warm'][1]:.2f} ({d['warm'][1] / d['cold'][1]:.2f} of cold by CPU);", end=" ")
    print(f"the build that fills the memo {d['fill'][0]:.2f}/{d['fill'][1]:.2f}")
    memo_mb, memo_texts = memo_rss_mb(10_000)
    print(f"  dedupe memo at 10k: {memo_texts} texts, +{memo_mb:.1f} MiB RSS")
    for what, engine in (("the same candidates", None), ("its own candidates", retrieval(10_000))):
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        many = build_many_ms(10_000, 7, engine)
        (one, one_cpu), (two, two_cpu), (single, single_cpu) = many["1 thread"], many["2 threads"], many["one build"]
        seq, seq_cpu = many["sequential"]
        print(f"  build_many, {len(QUERIES)} queries at 10k, each {what}: 1 thread {one:.1f} ms", end=" ")
        print(f"(CPU {one_cpu:.1f}), 2 threads {two:.1f} ms (CPU {two_cpu:.1f}): {one / two:.2f}x;", end=" ")
        print(f"{len(QUERIES)} build_sync one after another {seq:.1f} ms (CPU {seq_cpu:.1f}):", end=" ")
        print(f"2 threads {seq / two:.2f}x that, 1 thread {one / seq:.2f} of it;", end=" ")
        print(f"one build_sync {single:.1f} ms (CPU {single_cpu:.1f}); load average {load:.1f} before,", end=" ")
        print(f"{os.getloadavg()[0]:.1f} after")
        # two workers cannot beat the sequential builds by more than their wall time over half
        # their CPU time: a build whose kernels already use both cores leaves less to win
        core, core_cpu = many["one core"]
        print(f"    bound for 2 threads over them, wall / (CPU / 2): {2 * seq / seq_cpu:.2f}x;", end=" ")
        print(f"the same builds with every kernel on one thread: {core:.1f} ms (CPU {core_cpu:.1f}),", end=" ")
        print(f"2 threads {core / two:.2f}x that")
    before, during, peak = peak_rss_mb(100_000)
    print(
        f"  RSS, 100k cold build: {before:.0f} MiB before (corpus and engine), {during:.0f} MiB at most during"
        f" (+{during - before:.0f}); process peak {peak:.0f} MiB"
    )
    builds = int(os.environ.get("CTXSIEVE_STEADY_BUILDS", "10000"))
    points = rss_over_builds(1_000, builds)
    shown = ", ".join(f"{b}: {kb / 1024:.1f}" for b, kb in points)
    print(f"  RSS (MiB) over {builds} warm-95 % builds at 1k, after build n: {shown}")


if __name__ == "__main__":
    table()
