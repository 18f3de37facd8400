"""The gate of ``kernels/gate.py``: held for a block of Python stages, let go around a kernel."""

from __future__ import annotations

import threading

from ctxsieve.kernels.gate import gated, join_gate, ungated


def test_without_a_gate_both_blocks_do_nothing():
    join_gate(None)
    with gated(), ungated():
        pass


def test_gated_holds_the_gate_once_and_ungated_lets_it_go_for_its_block():
    gate = threading.Lock()
    join_gate(gate)
    try:
        with gated():
            assert gate.locked()
            with gated():  # nested: held once, still held after the inner block
                pass
            assert gate.locked()
            with ungated():
                assert not gate.locked()
                assert gate.acquire(timeout=1), "another thread can take the gate meanwhile"
                gate.release()
            assert gate.locked()
        assert not gate.locked()
    finally:
        join_gate(None)


def test_an_error_inside_ungated_still_leaves_the_gate_as_gated_expects():
    gate = threading.Lock()
    join_gate(gate)
    try:
        try:
            with gated(), ungated():
                raise KeyError("kernel")
        except KeyError:
            pass
        assert not gate.locked(), "the gate is released once, by gated"
    finally:
        join_gate(None)
