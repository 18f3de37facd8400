"""The probe corpus (benches/data/probe.jsonl) is what its generator writes, byte for byte.

The generator reads installed files (vim's tutors, certifi, botocore, the Rust docs, ...), so
regenerating is only meaningful where every one of them is present with the bytes recorded in
``probe_sources.json``; elsewhere the comparison skips and names the first file that differs.
The shape checks always run. In CI the comparison leaves out the categories that need sympy or
pygments' parse (about 3 s of the 5); ``CTXSIEVE_PROBE_FULL=1`` compares every category.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "benches" / "data"
CORPUS = DATA / "probe.jsonl"
MANIFEST = DATA / "probe_sources.json"
SLOW = {"code_regex", "code_latex", "code_r", "code_octave", "code_julia"}


def _generator():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(DATA))
    try:
        import probe_corpus
    finally:
        sys.path.remove(str(DATA))
    return probe_corpus


def test_committed_corpus_has_the_documented_shape() -> None:
    lines = CORPUS.read_bytes().decode("utf-8").splitlines()
    docs = [json.loads(line) for line in lines]
    assert 600 <= len(docs) <= 900
    for i, d in enumerate(docs):
        assert set(d) == {"text", "category", "source"}, f"line {i + 1}: keys {sorted(d)}"
        assert 200 <= len(d["text"].encode("utf-8")) <= 20_000, f"line {i + 1}: {len(d['text'].encode())} bytes"
        assert d["source"], f"line {i + 1}: empty source"
    per_category = Counter(d["category"] for d in docs)
    assert len(per_category) >= 50 and min(per_category.values()) >= 8, per_category
    assert len({d["text"] for d in docs}) == len(docs), "duplicate documents"


def test_regenerating_reproduces_the_committed_corpus() -> None:
    gen = _generator()
    pytest.importorskip("rich")
    recorded: dict[str, str] = json.loads(MANIFEST.read_text())
    src = gen.Sources()
    for name, digest in recorded.items():
        path = src.path(name)
        if not path.is_file():
            pytest.skip(f"probe corpus source {name} ({path}) is not installed here")
        if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            pytest.skip(f"probe corpus source {name} ({path}) differs from the one the corpus was built from")
    full = os.environ.get("CTXSIEVE_PROBE_FULL") == "1"
    if full:
        pytest.importorskip("sympy")
        pytest.importorskip("pygments")
    only = None if full else {c for c, _, _ in gen.CATEGORIES} - SLOW
    docs, manifest = gen.build(only=only)
    committed = CORPUS.read_text(encoding="utf-8").splitlines(keepends=True)
    if only is not None:
        committed = [line for line in committed if json.loads(line)["category"] in only]
    regenerated = gen.render(docs).splitlines(keepends=True)
    assert len(regenerated) == len(committed)
    for i, (new, old) in enumerate(zip(regenerated, committed)):
        assert new == old, f"document {i} of the compared categories differs: {json.loads(new)['source']}"
    assert all(recorded.get(name) == digest for name, digest in manifest.items()), (
        "a source read is not in the manifest"
    )
    if full:
        assert manifest == recorded
