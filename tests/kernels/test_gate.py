"""The gate of ``kernels/gate.py``: held by a function of Python stages, let go around a kernel."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ctxsieve.kernels.gate import gated, join_gate, ungated


@gated
def call(fn: Callable[[], Any]) -> Any:
    return fn()


def test_without_a_gate_both_do_nothing():
    join_gate(None)
    with ungated():
        assert call(lambda: 7) == 7


def test_gated_holds_the_gate_once_and_ungated_lets_it_go_for_its_block():
    gate = threading.Lock()
    join_gate(gate)
    try:

        def stages() -> None:
            assert gate.locked()
            call(lambda: None)  # nested: held once, still held after the inner call
            assert gate.locked()
            with ungated():
                assert not gate.locked()
                assert gate.acquire(timeout=1), "another thread can take the gate meanwhile"
                gate.release()
            assert gate.locked()

        call(stages)
        assert not gate.locked()
    finally:
        join_gate(None)


def test_an_error_inside_ungated_still_leaves_the_gate_as_gated_expects():
    gate = threading.Lock()
    join_gate(gate)
    try:

        def kernel_fails() -> None:
            with ungated():
                raise KeyError("kernel")

        try:
            call(kernel_fails)
        except KeyError:
            pass
        assert not gate.locked(), "the gate is released once, by gated"
    finally:
        join_gate(None)
