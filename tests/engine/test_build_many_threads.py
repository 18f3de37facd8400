"""``ContextEngine.build_many`` on threads (issue 15): the windows of sequential builds, each
worker's kernels kept to its share of the cores, errors raised to the caller, no deadlock."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import ctxsieve.engine.core as core
import ctxsieve.kernels.gate as gate_module
from ctxsieve import CallableSource, ContextEngine, ContextItem, Signals, StaticSource
from ctxsieve.kernels.threads import current_budget, thread_budget
from ctxsieve.stages.policies import ScoredKnapsack

WORDS = [f"v{i}" for i in range(2000)]


def corpus(n: int, seed: int = 9) -> list[ContextItem]:
    """``n`` items of 30-60 words, a quarter of them an earlier item with a word or two
    changed and signals of their own, so dedupe drops copies and the kept ones inherit."""
    rng = random.Random(seed)
    out: list[ContextItem] = []
    for i in range(n):
        if out and rng.random() < 0.25:
            words = rng.choice(out).content.split()
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        else:
            words = [rng.choice(WORDS) for _ in range(rng.randint(30, 60))]
        sig = Signals(stale=rng.random() < 0.1, trust="human-reviewed" if rng.random() < 0.1 else None)
        out.append(ContextItem(f"d{i}", " ".join(words), score=rng.random(), signals=sig))
    return out


class Recording:
    """The default policy, noting the calling thread's kernel budget at every build."""

    name = "recording"

    def __init__(self, fail_on: int | None = None):  # fail_on: the call that raises (1 the first)
        self.inner = ScoredKnapsack()
        self.seen: list[tuple[str, int | None]] = []
        self.fail_on = fail_on
        self._lock = threading.Lock()

    def select(self, pool: Any, budget: Any) -> list[str]:
        with self._lock:
            self.seen.append((threading.current_thread().name, current_budget()))
            call = len(self.seen)
        if call == self.fail_on:
            raise RuntimeError(f"policy refuses build {call}")
        return self.inner.select(pool, budget)


def engine_over(docs: list[ContextItem], policy: Any = None) -> ContextEngine:
    def search(q: str) -> list[ContextItem]:
        rng = random.Random(q)
        return rng.sample(docs, len(docs) // 2)

    sources = [
        StaticSource("Answer briefly.", pinned=True, name="sys"),
        CallableSource(search, name="kb", blocking=False),
    ]
    return ContextEngine(sources, budget=1500, policy=policy)


def finishes(fn: Callable[[], Any], timeout: float = 60) -> Any:
    """``fn()``'s result or exception, failing the test if it has not returned in ``timeout``."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = fn()
        except BaseException as exc:  # handed back to the test, whatever it is
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), f"did not return in {timeout} s: deadlock?"
    if "error" in out:
        raise out["error"]
    return out["result"]


def same_windows(got: list[Any], want: list[Any]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.query == w.query and g.to_text() == w.to_text() and g.tokens_used == w.tokens_used
        assert [(e.id, e.reason, e.final, e.adjustments) for e in g.trace] == [
            (e.id, e.reason, e.final, e.adjustments) for e in w.trace
        ]


@pytest.mark.parametrize("workers", [2, 3, 8])
def test_windows_equal_sequential_builds(workers):
    engine = engine_over(corpus(800))
    queries = [f"question {i}" for i in range(12)]
    got = finishes(lambda: engine.build_many(queries, max_workers=workers))
    same_windows(got, [engine.build_sync(q) for q in queries])
    dropped = [e for w in got for e in w.trace if (e.reason or "").startswith("duplicate_of:")]
    inherited = [a for w in got for e in w.trace for a in e.adjustments if a.startswith("inherited:")]
    assert len(dropped) > 100 and inherited, "dedupe must have dropped copies and passed signals on"


@pytest.mark.parametrize(("cores", "workers", "budget"), [(2, 2, 1), (8, 2, 4), (8, 3, 2), (8, 8, 1), (2, 16, 1)])
def test_each_worker_gets_its_share_of_the_cores(monkeypatch, cores, workers, budget):
    monkeypatch.setattr(core.os, "cpu_count", lambda: cores)
    policy = Recording()
    engine = engine_over(corpus(200), policy)
    with thread_budget(None):
        engine.build_many([f"q{i}" for i in range(6)], max_workers=workers)
        assert current_budget() is None, "the caller's own thread keeps every core"
    assert len(policy.seen) == 6
    assert {b for _, b in policy.seen} == {budget}
    assert all(name.startswith("ctxsieve-build") for name, _ in policy.seen)


def test_one_worker_is_the_single_build_path_on_every_core(monkeypatch):
    monkeypatch.setattr(core.os, "cpu_count", lambda: 2)
    policy = Recording()
    engine_over(corpus(200), policy).build_many(["a", "b", "c"], max_workers=1)
    assert {b for _, b in policy.seen} == {None}


def test_an_error_in_one_build_reaches_the_caller_and_the_pool_is_left_clean():
    docs = corpus(300)
    policy = Recording(fail_on=3)
    engine = engine_over(docs, policy)
    with pytest.raises(RuntimeError, match="policy refuses build 3"):
        finishes(lambda: engine.build_many([f"q{i}" for i in range(5)], max_workers=2))
    with pytest.raises(TypeError, match="query: expected str, got int"):
        finishes(lambda: engine_over(docs).build_many(["a", 5, "c"], max_workers=2))  # type: ignore[list-item]
    assert not [t for t in threading.enumerate() if t.name.startswith("ctxsieve-build")]


def test_two_callers_at_once_on_one_engine():
    engine = engine_over(corpus(500))
    queries = [f"question {i}" for i in range(8)]
    want = [engine.build_sync(q) for q in queries]
    results: list[Any] = [None, None]

    def caller(k: int) -> None:
        results[k] = engine.build_many(queries, max_workers=2)

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(2)]

    def both() -> None:
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    finishes(both)
    for got in results:
        same_windows(got, want)


def test_in_memory_sources_start_no_event_loop(monkeypatch):
    def no_loop(coro: Any) -> Any:
        coro.close()
        raise AssertionError("an event loop was started for sources that answer from memory")

    monkeypatch.setattr(core, "run", no_loop)
    windows = engine_over(corpus(200)).build_many(["a", "b", "c", "d"], max_workers=2)
    assert [w.query for w in windows] == ["a", "b", "c", "d"]


class Overlap:
    """The default policy, counting how many builds are inside it at once (it sleeps, which
    lets the GIL go: without a gate the other worker's build walks right in)."""

    name = "overlap"

    def __init__(self) -> None:
        self.inner = ScoredKnapsack()
        self.inside = self.most = 0
        self._lock = threading.Lock()

    def select(self, pool: Any, budget: Any) -> list[str]:
        with self._lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
        time.sleep(0.01)
        with self._lock:
            self.inside -= 1
        return self.inner.select(pool, budget)


def test_the_python_stages_of_concurrent_builds_take_turns():
    policy = Overlap()
    engine = engine_over(corpus(300), policy)
    queries = [f"q{i}" for i in range(8)]
    got = finishes(lambda: engine.build_many(queries, max_workers=4))
    assert policy.most == 1, "two builds were in their Python stages at once"
    same_windows(got, [engine.build_sync(q) for q in queries])


class Meeting:
    """A scorer whose calls wait until ``parties`` of them are in flight at once."""

    top_n, alpha = 5, 0.5

    def __init__(self, parties: int) -> None:
        self.barrier = threading.Barrier(parties, timeout=20)

    async def score(self, query: str, texts: list[str]) -> list[float]:
        self.barrier.wait()  # raises BrokenBarrierError, a fallback event, if alone too long
        return [0.5] * len(texts)


def test_a_scorer_call_does_not_hold_up_the_other_builds():
    # two builds must be inside their scorer calls at once: a gate held across the call would
    # keep the second out, and the first would wait out the barrier and fall back
    docs = corpus(200)
    engine = ContextEngine(
        [StaticSource("Answer briefly.", pinned=True, name="sys"), StaticSource(docs, name="kb")],
        budget=1500,
        scorer=Meeting(2),
    )
    windows = finishes(lambda: engine.build_many(["a", "b"], max_workers=2))
    assert [w.trace.events for w in windows] == [[], []]
    assert all(any(a.startswith("llm ") for e in w.trace for a in e.adjustments) for w in windows)


class GateSeen:
    """The default policy, noting whether the build's thread joined a gate."""

    name = "gate_seen"

    def __init__(self) -> None:
        self.inner = ScoredKnapsack()
        self.seen: list[bool] = []

    def select(self, pool: Any, budget: Any) -> list[str]:
        self.seen.append(getattr(gate_module._local, "gate", None) is not None)
        return self.inner.select(pool, budget)


@pytest.mark.parametrize(
    ("estimator", "gated"),
    [(None, True), ("bytes/4", True), (lambda texts: [len(t) // 4 for t in texts], False)],
)
def test_only_a_shipped_cheap_estimator_runs_behind_the_gate(estimator, gated):
    # a counter of one's own may wait on a service: other builds must not wait behind it
    policy = GateSeen()
    sources = [StaticSource("Answer briefly.", pinned=True, name="sys"), StaticSource(corpus(100), name="kb")]
    engine = ContextEngine(sources, budget=1500, policy=policy, estimator=estimator)
    engine.build_many(["a", "b", "c"], max_workers=2)
    assert policy.seen == [gated] * 3
