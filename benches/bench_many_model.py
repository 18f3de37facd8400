"""What ``build_many`` on two threads can gain over one, from a build's measured shares (issue 15).

    python benches/bench_many_model.py            # measure the shares at 10k, then the model

A build holds the GIL for P (its Python stages and every kernel's argument conversion) and runs
N without it (the dedupe kernel), N/s of wall time when the kernel has both cores. One thread
(``max_workers=1``) takes P + N/s a build. Two threads on two cores take at least
max(P, (P + N)/2): the GIL serialises every P, the cores bound P + N. So the ratio is at most
2 (P + N/s) / (P + N) while P <= N, and (P + N/s) / P beyond.

The shares are CPU times, so that a loaded machine (other work on the cores) disturbs them
little: under ``thread_budget(1)`` the dedupe kernel runs on its pool's thread, and the calling
thread's CPU time is exactly what holds the GIL. s is measured on the kernel alone, and it is
the one number here that the load does move (the second core must be free).

The bound assumes perfect overlap. ``simulate`` plays 8 builds on two threads as CPython runs
them: the GIL is handed over when its holder waits for a kernel, or taken from it after a 5 ms
switch interval (``sys.getswitchinterval()``) when another thread asks; with the gate of
``kernels/gate.py`` a build's Python stages run whole while the other waits. It counts the
start (the second build waits for the first's Python) and the end (one core idles while the
other finishes) that the bound leaves out.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SWITCH_MS = 5.0


def simulate(builds: int, p1: float, n: float, p2: float, gate: bool, step: float = 0.01) -> float:
    """Wall time (ms) of ``builds`` builds on two threads, each P1 (GIL) -> N (one core) -> P2 (GIL)."""
    phases: list[list[tuple[str, float]]] = [[], []]
    for b in range(builds):
        phases[b % 2] += [("py", p1), ("kernel", n), ("py", p2)]
    at, left = [0, 0], [phases[0][0][1], phases[1][0][1]]
    holder: int | None = None  # of the GIL, or of the gate
    asked: list[float | None] = [None, None]
    done, t = [False, False], 0.0
    while not all(done):
        for k in (0, 1):
            if done[k]:
                continue
            kind = phases[k][at[k]][0]
            if kind == "py":
                if holder is None:
                    holder, asked[k] = k, None
                if holder == k:
                    left[k] -= step
                elif not gate:
                    since = asked[k]
                    if since is None:
                        asked[k] = t
                    elif t - since >= SWITCH_MS:  # the holder is made to drop the GIL
                        holder, asked[k], asked[1 - k] = k, None, t
            else:
                left[k] -= step
            if left[k] <= 0:
                at[k] += 1
                nxt = phases[k][at[k]][0] if at[k] < len(phases[k]) else None
                # the GIL goes at the end of a Python phase; the gate is kept from one build's
                # last Python stage to the next build's first (no kernel between them)
                if kind == "py" and holder == k and not (gate and nxt == "py"):
                    holder = None
                if nxt is None:
                    done[k] = True
                else:
                    left[k] = phases[k][at[k]][1]
        t += step
    return t


def measure(n: int = 10_000, rounds: int = 15, memo: bool = False) -> tuple[float, float, float, float]:
    """Least CPU (ms; the least disturbed of ``rounds`` builds) of a build's Python before the
    kernel (P1), of the kernel (N) and of the Python after it (P2), and the kernel's speed-up
    on every core (s), at ``n`` candidates. ``memo``: the engine's dedupe memo is kept from
    build to build (its steady state, and what build_many's later builds of one engine see);
    else it is cleared before each build (the cold kernel)."""
    import ctxsieve.engine.core as core
    import ctxsieve.stages.dedupe as stage
    from benches.bench_engine import corpus, ours
    from ctxsieve.kernels.threads import thread_budget

    acc: dict[str, float] = {}
    kernel = stage.kernel

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*a: Any, **k: Any) -> Any:
            t, p = time.thread_time(), time.process_time()
            try:
                return fn(*a, **k)
            finally:
                acc[name + " thread"] = acc.get(name + " thread", 0) + time.thread_time() - t
                acc[name + " process"] = acc.get(name + " process", 0) + time.process_time() - p

        return run

    engine = ours(corpus(n))
    memos = engine._dedupe_memos
    rows: list[dict[str, float]] = []
    walls: dict[int | None, list[float]] = {1: [], None: []}
    complete = core.ContextEngine._complete
    core.ContextEngine._complete = timed("complete", complete)  # type: ignore[method-assign]
    stage.kernel = timed("kernel", kernel)  # type: ignore[assignment]
    try:
        with thread_budget(1):
            for r in range(rounds + 2):  # the memo's first two builds fill it
                if not memo:
                    memos.clear()
                acc.clear()
                t = time.thread_time()
                engine.build_sync(f"query {r}")
                if r >= 2:
                    rows.append({**acc, "build": time.thread_time() - t})
    finally:
        core.ContextEngine._complete, stage.kernel = complete, kernel  # type: ignore[method-assign]
    cands = engine._prepare(engine.gather_sync("q"))
    threshold = engine.dedupe_threshold or 0.8
    for _ in range(rounds):
        for budget in (1, None):
            if not memo:
                memos.clear()
            with thread_budget(budget):
                t = time.perf_counter()
                kernel(cands, threshold, memos.get(threshold))
                walls[budget].append(time.perf_counter() - t)

    def low(key: str) -> float:
        return min(r[key] for r in rows) * 1000

    kernel_n = low("kernel process") - low("kernel thread")
    # the calling thread's CPU inside the kernel call is its argument conversion: it holds the GIL
    p2 = low("complete thread")
    p1 = low("build") - p2
    s = min(walls[1]) / min(walls[None])
    return p1, kernel_n, p2, s


def report(p1: float, n: float, p2: float, s: float, builds: int = 8) -> None:
    p = p1 + p2
    one = builds * (p + n / s)
    bound = one / (builds * max(p, (p + n) / 2))
    print(
        f"shares (CPU ms a build): P = {p:.1f} (before the kernel {p1:.1f}, after {p2:.1f}), N = {n:.1f}, s = {s:.2f}"
    )
    print(f"one thread: {one:.0f} ms for {builds} builds; two threads at best {one / bound:.0f} ms: bound {bound:.2f}x")
    for gate in (False, True):
        two = simulate(builds, p1, n, p2, gate)
        name = "with the gate" if gate else "GIL only"
        print(f"simulated, two threads, {name}: {two:.0f} ms = {one / two:.2f}x")


def test_the_model_meets_its_bounds() -> None:
    # kernels only: both cores busy throughout; Python only: one build at a time, whatever the GIL
    assert abs(simulate(8, 0.0, 10.0, 0.0, gate=False) - 40) < 0.5  # a step per phase
    assert abs(simulate(8, 5.0, 0.0, 5.0, gate=True) - 80) < 0.5
    for gate in (False, True):  # never below the bound max(P, (P + N) / 2) a build
        assert simulate(8, 12.0, 36.0, 10.0, gate) >= 8 * max(22.0, 29.0) - 0.1
    assert simulate(8, 12.0, 36.0, 10.0, gate=True) < simulate(8, 12.0, 36.0, 10.0, gate=False)


if __name__ == "__main__":
    if len(sys.argv) == 5:  # P1 N P2 s given
        p1, n, p2, s = (float(a) for a in sys.argv[1:])
        report(p1, n, p2, s)
    else:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        for memo in (False, True):
            print("with the dedupe memo kept between builds:" if memo else "cold (the memo cleared before each build):")
            report(*measure(memo=memo))
        print(f"load average {load:.1f} (s needs a free second core; the CPU shares barely move with load)")
