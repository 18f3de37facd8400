"""One lock that the Python stages of concurrent builds take in turn (``build_many``, issue 15).

Two builds on two threads share the GIL. When both are in their Python stages, CPython hands
the GIL from one to the other every 5 ms (``sys.getswitchinterval()``), so both advance at half
speed, reach their native dedupe at about the same time, come back at about the same time and
share the GIL again: they stay in step, and one core idles whenever both are in Python. With a
gate, a build's Python stages run whole while the other build waits on the gate (a wait that
releases the GIL and asks for nothing); the gate is let go around the native kernels, so the
waiting build's Python runs while this one's kernel runs: the builds fall out of step and the
two cores stay busy.

A thread joins a gate with ``join_gate`` (``build_many``'s workers do); a function decorated
``@gated`` runs holding the thread's gate (at no cost for a thread that joined none, as in a
single build), and ``with ungated():`` lets it go around a GIL-free kernel call. Only the stages
between gathering and the scorer's call are gated (``ContextEngine._prepare``/``_complete``):
a source or a scorer that waits for the network must not hold up the other builds.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_local = threading.local()


def join_gate(gate: threading.Lock | None) -> None:
    """The calling thread's Python stages take ``gate`` from now on (None: no gate)."""
    _local.gate = gate
    _local.held = False


def gated(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` holding the calling thread's gate, if it joined one and does not hold it yet."""

    @functools.wraps(fn)
    def holding(*args: P.args, **kwargs: P.kwargs) -> R:
        gate = getattr(_local, "gate", None)
        if gate is None or _local.held:
            return fn(*args, **kwargs)
        with gate:
            _local.held = True
            try:
                return fn(*args, **kwargs)
            finally:
                _local.held = False

    return holding


@contextmanager
def ungated() -> Iterator[None]:
    """Let the calling thread's gate go for the block (a long GIL-free kernel call), if it holds it."""
    gate = getattr(_local, "gate", None)
    if gate is None or not _local.held:
        yield
        return
    _local.held = False
    gate.release()
    try:
        yield
    finally:
        gate.acquire()
        _local.held = True


__all__ = ["gated", "join_gate", "ungated"]
