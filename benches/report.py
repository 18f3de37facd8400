"""One table of kernel medians and ratios, measured in one run on the same candidates.

    python benches/report.py            # 1k and 10k items, with astromesh-context 0.1.0 at 1k
    python benches/report.py --quick --check   # CI smoke: 1k only, fails if native is not faster

Absolute times on shared machines are noisy; the ratios, measured side by side, are the result.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benches.bench_kernels import dedupe_args, fill_args, order_args, peer_items
from benches.workload import candidates
from ctxsieve import _native
from ctxsieve.kernels import reference

# --check floors: far below the measured ratios (see README) so noise cannot flip them
FLOORS = {"estimate": 2.0, "dedupe": 10.0, "fill": 2.0, "order": 2.0}


def median_seconds(fn: Callable[[], Any], rounds: int) -> float:
    fn()  # warm up (and fill caches such as CPython's UTF-8 form of each str)
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def kernel_calls(n: int) -> dict[str, Callable[[Any], Callable[[], Any]]]:
    c = candidates(n)
    d, f, o = dedupe_args(n), fill_args(n), order_args(n)
    return {
        "estimate": lambda m: lambda: m.estimate_tokens(c.texts, 3.0),
        "dedupe": lambda m: lambda: m.dedupe(*d),
        "fill": lambda m: lambda: m.fill_budget(*f),
        "order": lambda m: lambda: m.cache_order(*o),
    }


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e3:.3f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="1k items only, fewer rounds, no peer")
    parser.add_argument("--check", action="store_true", help="exit 1 unless native beats the reference by FLOORS")
    args = parser.parse_args()
    sizes = [1000] if args.quick else [1000, 10000]
    rounds = 3 if args.quick else 7

    rows = []
    failures = []
    for n in sizes:
        c = candidates(n)
        for name, make in kernel_calls(n).items():
            native = median_seconds(make(_native), rounds * 3)
            ref = median_seconds(make(reference), 1 if n >= 10000 and name == "dedupe" else rounds)
            peer = None
            if name == "dedupe" and n == 1000 and not args.quick:
                from astromesh_context.dedupe import dedupe as peer_dedupe

                items = peer_items(n)
                peer = median_seconds(lambda items=items: peer_dedupe(items), 2)
            extra = f"{c.total_bytes / native / 1e6:,.0f} MB/s" if name == "estimate" else ""
            rows.append((name, n, native, ref, peer, extra))
            if args.check and ref / native < FLOORS[name]:
                failures.append(f"{name} at {n}: native only {ref / native:.1f}x the reference (floor {FLOORS[name]}x)")

    header = ("kernel", "items", "native", "reference", "ref/native", "astromesh-context", "peer/native", "note")
    table = [header]
    for name, n, native, ref, peer, extra in rows:
        table.append(
            (
                name,
                f"{n:,}",
                fmt(native),
                fmt(ref),
                f"{ref / native:,.0f}x",
                fmt(peer),
                f"{peer / native:,.0f}x" if peer else "-",
                extra,
            )
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for k, r in enumerate(table):
        print("| " + " | ".join(v.ljust(w) for v, w in zip(r, widths)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
