"""One-thread speed of the calibrated estimator per kind of document of the held-out split, for
every shipped profile (docs/tokenizers.md, "Speed").

    python benches/speed_by_kind.py [--profile o200k ...] [--best 5] [--json]

Each kind's documents are cut into batches under 200 KB (below the native estimator's 256 KB
parallel threshold, so it stays on the calling thread); a timing is ``est.clear()`` then
``est.count(batch, cache=False)`` over every batch, repeated until it took 20 ms, in CPU time
(``time.process_time``) and wall time; the figure is the best of ``--best`` timings. To compare
two builds on a noisy machine, run this script alternately under each (``PYTHONPATH=<tree>/python``)
and keep the best of each.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
BATCH_BYTES = 200_000


def batches(texts: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    size = 0
    for t in texts:
        n = len(t.encode("utf-8", "surrogatepass"))
        if out[-1] and size + n > BATCH_BYTES:
            out.append([])
            size = 0
        out[-1].append(t)
        size += n
    return out


def best_mbs(run: Callable[[], object], nbytes: int, best: int) -> tuple[float, float]:
    """(CPU, wall) MB/s, each the best of ``best`` timings of at least 20 ms."""
    cpu = wall = 0.0
    for _ in range(best):
        loops = 0
        c0, w0 = time.process_time(), time.perf_counter()
        while True:
            run()
            loops += 1
            dc, dw = time.process_time() - c0, time.perf_counter() - w0
            if dw >= 0.02:
                break
        cpu = max(cpu, nbytes * loops / max(dc, 1e-9) / 1e6)
        wall = max(wall, nbytes * loops / dw / 1e6)
    return cpu, wall


def main(argv: list[str] | None = None) -> int:
    from ctxsieve import kernels
    from ctxsieve.tokenizers import get_estimator, shipped_profiles

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="append", help="only these profiles (default: every shipped one)")
    parser.add_argument("--kind", action="append", help="only these kinds (default: each, and all together)")
    parser.add_argument("--best", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args(argv)
    assert kernels.backend() == "native", "the native module is not loaded"
    with open(HERE / "data" / "heldout.jsonl", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    kinds = sorted({d["kind"] for d in docs})
    groups = {k: [d["text"] for d in docs if d["kind"] == k] for k in kinds}
    groups["all"] = [d["text"] for d in docs]
    if args.kind:
        groups = {k: v for k, v in groups.items() if k in args.kind}
    for name in args.profile or shipped_profiles():
        est = get_estimator(f"calibrated:{name}")
        row: dict[str, object] = {"profile": name}
        for kind, texts in groups.items():
            cut = batches(texts)
            nbytes = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)

            def run(cut: list[list[str]] = cut, est: Any = est) -> None:
                for b in cut:
                    est.clear()
                    est.count(b, cache=False)

            cpu, wall = best_mbs(run, nbytes, args.best)
            row[kind] = [round(cpu, 1), round(wall, 1)]
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            cells = "  ".join(f"{k} {v[0]:.0f}/{v[1]:.0f}" for k, v in row.items() if isinstance(v, list))
            print(f"{name}: {cells}  (MB/s CPU/wall)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
