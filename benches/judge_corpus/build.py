"""Build the judge corpus: ``python -m benches.judge_corpus.build`` (from the repository root)
writes ``benches/data/judge.jsonl`` and ``benches/data/judge.sources.json``.

One line per document: ``id`` (``<category>-<nn>``), ``category``, ``source`` (where its text
came from), ``text`` and ``tokens``, the exact count of every packaged tokenizer family
(``ctxsieve.tokenizers.packaged``; special tokens excluded). Each document's generator gets a
``random.Random`` seeded by its id and a log-uniform target size; the text is clipped to
``MAX_BYTES`` at a line end. ``judge.sources.json`` records the versions of Python and of the
packages whose files the corpus quotes, so a rebuild on another image can tell why it differs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .categories import CATEGORIES
from .common import MAX_BYTES, MIN_BYTES, clip, nbytes, target_size, versions

DOCS_PER_CATEGORY = 14
DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = DATA / "judge.jsonl"
SOURCES = DATA / "judge.sources.json"


def documents(categories: Sequence[str] | None = None) -> list[dict[str, str]]:
    """Every document (without counts), in file order."""
    out: list[dict[str, str]] = []
    for category in categories or CATEGORIES:
        gen = CATEGORIES[category]
        for i in range(DOCS_PER_CATEGORY):
            doc_id = f"{category}-{i:02d}"
            rng = random.Random(f"judge:{doc_id}")
            target = target_size(rng)
            source, text = gen(rng, target)
            text = clip(text)
            if not MIN_BYTES <= nbytes(text) <= MAX_BYTES:
                raise ValueError(f"{doc_id}: {nbytes(text)} bytes, outside {MIN_BYTES}-{MAX_BYTES} (source {source})")
            out.append({"id": doc_id, "category": category, "source": source, "text": text})
    return out


def exact_counters() -> dict[str, Callable[[list[str]], list[int]]]:
    from ctxsieve.tokenizers.packaged import available_families, packaged_tokenizer

    return {family: packaged_tokenizer(family).count for family in available_families()}


def line(doc: dict[str, str], tokens: dict[str, int]) -> str:
    return json.dumps({**doc, "tokens": tokens}, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    docs = documents()
    texts = [d["text"] for d in docs]
    counts = {family: count(texts) for family, count in exact_counters().items()}
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        for i, doc in enumerate(docs):
            f.write(line(doc, {family: c[i] for family, c in counts.items()}))
    meta = {"documents": len(docs), "categories": len(CATEGORIES), "families": sorted(counts), "versions": versions()}
    args.out.with_name(args.out.stem + ".sources.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(docs)} documents, {sum(map(nbytes, texts)):,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
