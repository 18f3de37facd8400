"""The native kernels release the GIL while they work: another Python thread keeps running
during a long call. (With the GIL held it could not execute a single bytecode meanwhile.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from ctxsieve import _native

WORDS = [f"w{i}" for i in range(5000)]


def big_texts(n: int) -> list[str]:
    return [" ".join(WORDS[(i * 7919 + k * 31) % 5000] for k in range(200)) for i in range(n)]


def share_of_time_other_thread_ran(call: Callable[[], Any]) -> float:
    """Progress a busy Python thread made while ``call`` ran in this thread, as a share of the
    progress it makes in the same time while this thread sleeps. Near 0 when ``call`` holds the
    GIL (the spinner only runs until the call takes the GIL), near 1 when it releases it."""
    count = 0
    stop = threading.Event()

    def spin() -> None:
        nonlocal count
        while not stop.is_set():
            count += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.02)
        c0, t0 = count, time.perf_counter()
        time.sleep(0.2)
        rate = (count - c0) / (time.perf_counter() - t0)
        c0, t0 = count, time.perf_counter()
        call()
        during, elapsed = count - c0, time.perf_counter() - t0
    finally:
        stop.set()
        t.join()
    return during / (rate * elapsed)


def test_the_probe_sees_a_held_gil() -> None:
    texts = big_texts(2_000) * 3_000  # estimate_tokens holds the GIL: it reads every str object
    assert share_of_time_other_thread_ran(lambda: _native.estimate_tokens(texts, 3.0)) < 0.1


@pytest.mark.parametrize("kernel", ["dedupe", "bm25"])
def test_other_threads_run_during_native_work(kernel: str) -> None:
    texts = big_texts(20_000)
    n = len(texts)
    if kernel == "dedupe":
        args = (texts, [str(i) for i in range(n)], [0.5] * n, [False] * n, [False] * n, 0.8)
        share = share_of_time_other_thread_ran(lambda: _native.dedupe(*args))
    else:
        share = share_of_time_other_thread_ran(lambda: _native.Bm25Index(texts, 1.2, 0.75))
    assert share > 0.2, f"the spinning thread ran {share:.0%} of the time: was the GIL held?"
