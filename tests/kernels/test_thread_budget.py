"""A thread's kernel budget (``kernels.threads``, ``rust/py_budget.rs``, issue 15): checked like
every option, kept per thread, and it changes how a kernel runs, never what it returns."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest

from ctxsieve import kernels
from ctxsieve.kernels import reference
from ctxsieve.kernels.threads import MAX_THREADS, current_budget, set_thread_budget, thread_budget

WORDS = [f"w{i}" for i in range(3000)]


def near_copies(n: int, seed: int = 3) -> list[str]:
    """Texts of 60 words, a fifth of them an earlier text with a few words changed."""
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(n):
        if out and rng.random() < 0.2:
            words = rng.choice(out).split()
            for _ in range(rng.randint(1, 6)):
                words[rng.randrange(len(words))] = rng.choice(WORDS)
        else:
            words = [rng.choice(WORDS) for _ in range(60)]
        out.append(" ".join(words))
    return out


def dedupe_of(texts: list[str]) -> kernels.DedupeResult:
    n = len(texts)
    return kernels.dedupe(texts, [str(i) for i in range(n)], [(i * 37 % 101) / 101 for i in range(n)], threshold=0.8)


def test_the_default_is_every_core_and_a_with_block_restores_it():
    assert current_budget() is None
    with thread_budget(1):
        assert current_budget() == 1
        with thread_budget(2):
            assert current_budget() == 2
        assert current_budget() == 1
    assert current_budget() is None


def test_a_budget_belongs_to_the_thread_that_set_it():
    seen: dict[str, int | None] = {}
    ready, done = threading.Event(), threading.Event()

    def worker() -> None:
        set_thread_budget(1)
        seen["worker"] = current_budget()
        ready.set()
        done.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert ready.wait(10)
        seen["main"] = current_budget()
    finally:
        done.set()
        t.join(10)
    assert seen == {"worker": 1, "main": None}


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (0, ValueError, f"threads: must be in [1, {MAX_THREADS}] (or None for all cores), got 0"),
        (MAX_THREADS + 1, ValueError, f"threads: must be in [1, {MAX_THREADS}] (or None for all cores), got 1025"),
        (-3, ValueError, f"threads: must be in [1, {MAX_THREADS}] (or None for all cores), got -3"),
        (True, TypeError, "threads: expected an int, got bool"),
        (1.0, TypeError, "threads: expected an int, got float"),
        ("2", TypeError, "threads: expected an int, got str"),
    ],
)
def test_a_bad_budget_is_refused_with_what_and_where(value, error, message):
    with pytest.raises(error) as exc:
        set_thread_budget(value)
    assert str(exc.value) == message
    assert current_budget() is None, "a refused budget leaves the thread's as it was"


@pytest.mark.skipif(kernels.backend() != "native", reason="the native module's own check")
@pytest.mark.parametrize(("value", "error"), [(0, ValueError), (MAX_THREADS + 1, ValueError), (True, TypeError)])
def test_the_native_module_checks_the_budget_as_the_python_layer_does(value, error):
    from ctxsieve import _native

    with pytest.raises(error) as native:
        _native.set_thread_budget(value)
    with pytest.raises(error) as python:
        set_thread_budget(value)
    assert str(native.value) == str(python.value)


@pytest.mark.parametrize("budget", [1, 2, None])
def test_dedupe_decides_the_same_within_any_budget(budget):
    texts = near_copies(600)
    expected = reference.dedupe(
        texts,
        [str(i) for i in range(600)],
        [(i * 37 % 101) / 101 for i in range(600)],
        [False] * 600,
        [False] * 600,
        0.8,
    )
    with thread_budget(budget):
        got = dedupe_of(texts)
    assert list(got.duplicate_of) == list(expected[0])
    assert sum(d >= 0 for d in got.duplicate_of) > 30, "the corpus must have near-copies for this to mean much"


def _kernel_threads() -> int:
    # thread names are cut to 15 characters in /proc: "ctxsieve-kernel"
    names = []
    for t in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            names.append((t / "comm").read_text().strip())
        except OSError:
            pass  # a thread that ended while we looked
    return names.count("ctxsieve-kernel")


def _settles_at(n: int) -> int:
    """The count of kernel threads once it reaches ``n`` (or after 5 s): a pool's thread
    names itself when it starts, and a dropped pool's thread exits on its own schedule."""
    deadline = time.monotonic() + 5
    while _kernel_threads() != n and time.monotonic() < deadline:
        time.sleep(0.01)
    return _kernel_threads()


@pytest.mark.skipif(kernels.backend() != "native", reason="the reference runs on the calling thread")
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc (Linux)")
def test_a_budget_of_one_runs_the_kernel_on_one_thread_of_its_own():
    before = _settles_at(0)  # the pools of earlier tests' threads may still be ending
    texts = near_copies(12_000, seed=5)
    with thread_budget(1):
        assert _settles_at(before + 1) == before + 1
        dedupe_of(texts[:100])  # warm up
        t0, c0 = time.perf_counter(), time.process_time()
        dedupe_of(texts)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    # one thread works at a time, so the process uses at most one core's time (under load less);
    # on every core (no budget) the shingling and grouping would take about two
    assert cpu < wall * 1.25 + 0.005, (cpu, wall)
    assert _settles_at(before) == before, "clearing the budget ends its pool's thread"
