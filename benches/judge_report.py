"""How the shipped token estimators do on the judge corpus (benches/data/judge.jsonl).

    PYTHONPATH=python python benches/judge_report.py [--recount] [--categories] [--corpus PATH]

The judge corpus was written apart from the fit corpora and the estimator's features (docs/
tokenizers.md, "The judge corpus"); every category in it is held out. For each tokenizer family
it prints, for the family's own profile (``calibrated:<family>``) and for ``calibrated:any``: the
share of documents under-counted, the worst under-count (as a fraction of the true count), the
mean over-count, and the three categories with the worst under-count, each with the id of its
worst document. True counts are the ones stored in the corpus (``tokens``); ``--recount``
recomputes them with the installed exact tokenizers and stops if any differs. ``--categories``
adds a table of each family's worst under-count per category.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ctxsieve import kernels
from ctxsieve.tokenizers import get_estimator, shipped_profiles
from ctxsieve.tokenizers.fit import measure

CORPUS = Path(__file__).parent / "data" / "judge.jsonl"


def load(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def recount(docs: list[dict]) -> None:
    """Stops (SystemExit) when an installed tokenizer disagrees with a stored count."""
    from ctxsieve.tokenizers.packaged import available_families, packaged_tokenizer

    texts = [d["text"] for d in docs]
    for family in available_families():
        counts = packaged_tokenizer(family).count(texts)
        bad = [d["id"] for d, n in zip(docs, counts) if d["tokens"].get(family) != n]
        if bad:
            raise SystemExit(
                f"{family}: stored counts differ from the tokenizer for {len(bad)} documents, e.g. {bad[:3]}"
            )


def under_by_category(docs: list[dict], est: list[int], family: str) -> dict[str, tuple[float, str, int]]:
    """Per category: (worst under-count, id of that document, documents under-counted)."""
    out: dict[str, tuple[float, str, int]] = {}
    for d, e in zip(docs, est):
        t = d["tokens"][family]
        short = (t - e) / t if t and e < t else 0.0
        worst, wid, n = out.get(d["category"], (0.0, "", 0))
        out[d["category"]] = (max(worst, short), d["id"] if short > worst else wid, n + (short > 0))
    return out


def judge(docs: list[dict]) -> tuple[list[dict], dict[str, dict[str, tuple[float, str, int]]]]:
    texts = [d["text"] for d in docs]
    families = sorted({f for d in docs for f in d["tokens"]})
    profiles = set(shipped_profiles())
    rows: list[dict] = []
    cells: dict[str, dict[str, tuple[float, str, int]]] = {}
    any_est = get_estimator("calibrated:any").count(texts, cache=False) if "any" in profiles else None
    for family in families:
        truth = [d["tokens"][family] for d in docs]
        for name, est in ((f"calibrated:{family}", None), ("calibrated:any", any_est), ("bytes/3", None)):
            if name.startswith("calibrated:") and name.split(":", 1)[1] not in profiles:
                continue
            if est is None:
                est = get_estimator(name).count(texts, cache=False)
            m = measure(est, truth)
            by_cat = under_by_category(docs, est, family)
            worst3 = sorted((c for c in by_cat.items() if c[1][0] > 0), key=lambda c: -c[1][0])[:3]
            rows.append({"family": family, "estimator": name, **m, "worst": worst3})
            if name == f"calibrated:{family}":
                cells[family] = by_cat
    return rows, cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--recount", action="store_true", help="check the stored counts against the installed tokenizers"
    )
    parser.add_argument(
        "--categories", action="store_true", help="also print each family's worst under-count per category"
    )
    args = parser.parse_args(argv)
    docs = load(args.corpus)
    if args.recount:
        recount(docs)
    rows, cells = judge(docs)
    ncat = len({d["category"] for d in docs})
    print(
        f"corpus: {args.corpus.name}, {len(docs)} documents, {ncat} categories; kernels backend: {kernels.backend()}\n"
    )
    print(
        "| family | estimator | under-counted docs | worst under-count | mean over-count "
        "| worst categories (worst under-count, docs under, worst doc) |"
    )
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for r in rows:
        worst = "; ".join(f"{c} {w:.1%} ({n}, `{i}`)" for c, (w, i, n) in r["worst"]) or "none"
        figures = f"{r['under_share']:.1%} | {r['worst_under']:.1%} | {r['mean_over']:.1%}"
        print(f"| {r['family']} | {r['estimator']} | {figures} | {worst} |")
    if args.categories:
        fams = list(cells)
        print("\nWorst under-count of each family's own profile per category (documents under-counted)\n")
        print("| category | " + " | ".join(fams) + " |")
        print("| --- |" + " ---: |" * len(fams))
        for cat in dict.fromkeys(d["category"] for d in docs):
            print(
                f"| {cat} | "
                + " | ".join(f"{cells[f][cat][0]:.1%} ({cells[f][cat][2]})" if cells[f][cat][0] else "-" for f in fams)
                + " |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
