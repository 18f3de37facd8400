"""How many threads the calling thread's kernels may use (``rust/py_budget.rs``).

The native kernels that run on several cores (dedupe's shingling and grouping, the calibrated
estimator) use every core by default: right for one build at a time. Several builds at once on
Python threads (``ContextEngine.build_many``) would then each spread over every core while the
others' Python stages, which hold the GIL, want one too. A thread that sets a budget runs its
kernels on a pool of that many threads of its own, kept until the thread ends or the budget is
cleared. It changes how fast a kernel runs, never what it returns. The reference kernels run
on the calling thread anyway; they keep the budget only so both backends answer alike.

>>> with thread_budget(1):
...     current_budget()
1
>>> current_budget() is None
True
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ctxsieve import kernels
from ctxsieve.kernels.limits import as_int

MAX_THREADS = 1024  # rust/py_budget.rs has the same bound

_reference = threading.local()


def _impl() -> Any:
    return kernels._impl if kernels.BACKEND == "native" else None  # the backend chosen at import


def check_threads(threads: Any) -> int | None:
    """``threads`` as a budget: None (every core) or an int in ``[1, MAX_THREADS]``."""
    if threads is None:
        return None
    n = as_int("threads", threads)
    if not 1 <= n <= MAX_THREADS:
        raise ValueError(f"threads: must be in [1, {MAX_THREADS}] (or None for all cores), got {n}")
    return n


def set_thread_budget(threads: int | None) -> None:
    """Give the calling thread's kernels ``threads`` threads (None: every core, the default)."""
    n = check_threads(threads)
    native = _impl()
    if native is not None:
        native.set_thread_budget(n)
    else:
        _reference.threads = n


def current_budget() -> int | None:
    """The calling thread's budget, or None when its kernels may use every core."""
    native = _impl()
    if native is not None:
        out: int | None = native.thread_budget()
        return out
    return getattr(_reference, "threads", None)


@contextmanager
def thread_budget(threads: int | None) -> Iterator[None]:
    """``set_thread_budget(threads)`` for the ``with`` block, then the budget before it."""
    before = current_budget()
    set_thread_budget(threads)
    try:
        yield
    finally:
        set_thread_budget(before)


__all__ = ["MAX_THREADS", "check_threads", "current_budget", "set_thread_budget", "thread_budget"]
