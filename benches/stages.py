"""Where a cold build's time goes (issue 15): each stage of ``ContextEngine.build_sync`` as a
share of the build, at 10k and 100k candidates (bench_engine's corpus), and the floor: the
bytes/s of shingling alone, native (``benches/native/shingle_floor.rs``, run with cargo).

    python benches/stages.py            # 10k and 100k
    python benches/stages.py 20000      # other sizes
    python benches/stages.py --warm 10000   # warm builds: 5 % of the candidates new each

Each stage entry point the engine calls is wrapped with a timer for the measured builds only
(the wrappers cost well under 1 % of a build); "gather and the rest" is the build less the
stages: gathering the sources, the event loop, the Window and trace. "garbage collection" is
the time of Python's collections during the builds (``gc.callbacks``), inside whichever stage
set them off. ``--warm`` replaces 5 % of the candidates before each build, untimed
(``bench_steady.Churn``), and keeps the engine's memos: the steady state of an agent loop.
"""

from __future__ import annotations

import gc
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from ctxsieve import backend
from ctxsieve.engine import selection
from ctxsieve.stages import columns_memo
from ctxsieve.stages import dedupe as dedupe_stage

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benches.bench_engine import build_ours, check, corpus, ours
else:
    from .bench_engine import build_ours, check, corpus, ours

ROOT = Path(__file__).resolve().parent.parent
# (module, name, label): what the build calls, in the order it calls it
STAGES = [
    # a cold build clears the engine's columns memo, so every item goes through these two
    (columns_memo, "columns_of", "columns (read from the items)"),
    (columns_memo, "costs", "costs (estimate, rendered)"),  # another estimator's
    (columns_memo, "byte_costs", "costs (estimate, rendered)"),  # bytes/<n>'s, straight from the columns
    (selection, "calibrate", "calibrate"),
    (dedupe_stage, "kernel", "dedupe: kernel"),  # the memo's call or kernels.dedupe
    (selection, "dedupe", "dedupe: stage (incl. kernel)"),
    (selection, "inherited_citations", "inherited citations"),
    (selection, "select", "select (fill)"),
    (selection, "order", "order"),
    (selection, "stable_block", "stable block"),
    (selection, "framing", "framing"),
]


def timed(spent: dict[str, float], cpu: dict[str, float], label: str, fn: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - t0
            cpu[label] += time.process_time() - c0

    return wrapper


def breakdown(n: int, rounds: int, warm: bool = False) -> None:
    engine = ours(corpus(n))
    check(build_ours(engine, cold=True), n)
    churn = None
    if warm:
        from benches.bench_steady import Churn

        churn = Churn(engine)
        build_ours(engine, cold=False)  # fills the memo
    collecting: list[float] = []
    started: list[float] = []

    def on_gc(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            collecting.append(time.perf_counter() - started.pop())

    spent: dict[str, float] = defaultdict(float)
    cpu: dict[str, float] = defaultdict(float)
    originals = [(mod, name, getattr(mod, name)) for mod, name, _ in STAGES]
    totals, cpu_totals = [], []
    try:
        for (mod, name, fn), (_, _, label) in zip(originals, STAGES):
            setattr(mod, name, timed(spent, cpu, label, fn))
        for _ in range(rounds):
            if churn is not None:
                churn.apply(churn.plan())
            gc.callbacks.append(on_gc)
            t0, c0 = time.perf_counter(), time.process_time()
            build_ours(engine, cold=not warm)
            totals.append(time.perf_counter() - t0)
            cpu_totals.append(time.process_time() - c0)
            gc.callbacks.remove(on_gc)
    finally:
        for mod, name, fn in originals:
            setattr(mod, name, fn)
    total, cpu_total = sum(totals), sum(cpu_totals)
    kind = "warm, 5 % new" if warm else "cold"
    print(
        f"\n{n // 1000}k candidates, {kind}, {rounds} builds: median {statistics.median(totals) * 1e3:.1f} ms wall,"
        f" {statistics.median(cpu_totals) * 1e3:.1f} ms CPU (all threads; the share of a loaded machine's"
        " wall time is noisy, CPU time less so)"
    )
    print(f"  {'stage':<30} {'wall':>11} {'share':>6}  {'CPU':>11} {'share':>6}")
    staged = staged_cpu = 0.0
    for label in dict.fromkeys(label for _, _, label in STAGES):  # a label two entries share, once
        if not label.startswith("dedupe: kernel"):
            staged += spent[label]
            staged_cpu += cpu[label]
        print(
            f"  {label:<30} {spent[label] / rounds * 1e3:8.2f} ms {spent[label] / total:6.1%}"
            f"  {cpu[label] / rounds * 1e3:8.2f} ms {cpu[label] / cpu_total:6.1%}"
        )
    rest, rest_cpu = total - staged, cpu_total - staged_cpu
    print(
        f"  {'gather and the rest':<30} {rest / rounds * 1e3:8.2f} ms {rest / total:6.1%}"
        f"  {rest_cpu / rounds * 1e3:8.2f} ms {rest_cpu / cpu_total:6.1%}"
    )
    collected = sum(collecting)
    print(
        f"  {'garbage collection (in the above)':<30} {collected / rounds * 1e3:8.2f} ms {collected / total:6.1%}"
        f"  ({len(collecting) / rounds:.1f} collections a build)"
    )


def floor(n: int) -> None:
    texts = [r["text"].replace("\n", " ") for r in corpus(n)]
    cargo = shutil.which("cargo")
    if cargo is None:
        print(f"floor {n // 1000}k: cargo not found, skipped")
        return
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as f:
        f.write("\n".join(texts))
    try:
        cmd = [cargo, "run", "-q", "--release", "--example", "shingle_floor", "--", f.name]
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        print(f"floor {n // 1000}k (shingling alone, native): {out}")
    finally:
        Path(f.name).unlink()


def main(sizes: list[int], warm: bool = False) -> None:
    print(f"ctxsieve backend: {backend()}")
    for n in sizes:
        if warm:
            breakdown(n, rounds=21 if n <= 10_000 else 5, warm=True)
            continue
        breakdown(n, rounds=11 if n <= 10_000 else 3)
        floor(n)


if __name__ == "__main__":
    args = sys.argv[1:]
    warm = "--warm" in args
    main([int(a) for a in args if a != "--warm"] or [10_000, 100_000], warm=warm)
