"""Refit the shipped calibrated profiles on the agent corpus and the mixed corpus's fit and tune
splits, by category (``ctxsieve.tokenizers.fit_groups``).

    PYTHONPATH=python python benches/fit_profiles.py [--family cl100k ...] [--dry-run] [--tables-only]

Each family's true counts come from its packaged tokenizer; the known-word set is the shipped
profile's (it comes from the tokenizer's vocabulary, not from the corpus), and the character table
and digit group are read from the packaged tokenizer (``ctxsieve.tokenizers.vocab_chars``).
Weakly supported script classes cost one token a character (plus their characters' extra tokens),
piece features at least one token each, and the margin is the smallest that
leave-one-category-out says under-counts at most 1 % of the documents. ``any`` bounds the largest
count of all families.

``--tables-only`` keeps each profile's costs and rewrites only what comes from the tokenizer's
vocabulary: the CJK tokens (``cjk_tokens``) and the mark-keyed words. It converts a profile written
before ``cjk_tokens`` (its CJK tokens and their prefixes hashed into ``known_words``, with a
``cjk_pairs`` table): those hashes leave the known-word set, except any that equal the hash of a
word candidate of the vocabulary, which may be a real known word.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
PROFILES = HERE.parent / "python" / "ctxsieve" / "tokenizers" / "profiles"

from ctxsieve.kernels.calibrated import (  # noqa: E402
    features_batch,
    known_words,
    pack_hashes,
    pack_piece_tokens,
    word_hash,
)
from ctxsieve.tokenizers.fit_family import Tables as ProfileTables  # noqa: E402
from ctxsieve.tokenizers.fit_family import fit_grouped, probe_counts, probe_rows  # noqa: E402
from ctxsieve.tokenizers.fit_groups import Probes  # noqa: E402
from ctxsieve.tokenizers.packaged import available_families, packaged_tokenizer  # noqa: E402
from ctxsieve.tokenizers.profiles import Profile, load_profile  # noqa: E402
from ctxsieve.tokenizers.vocab import candidates  # noqa: E402
from ctxsieve.tokenizers.vocab_chars import char_extra_table, combine, digit_group, punct_pairs  # noqa: E402
from ctxsieve.tokenizers.vocab_pieces import cjk_hashes, piece_tables  # noqa: E402

CACHE = Path.home() / ".cache" / "ctxsieve-bench"


def fit_corpus() -> list[dict[str, str]]:
    """The agent corpus, then the mixed corpus's fit and tune splits as ``legacy_<kind>``."""
    docs = load(HERE / "data" / "agent.jsonl")
    for split in ("fit", "tune"):
        for d in load(HERE / "data" / f"{split}.jsonl"):
            docs.append({"category": "legacy_" + d["kind"], "source": f"mixed_corpus:{split}", "text": d["text"]})
    return docs


def load(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def true_counts(family: str, texts: list[str]) -> np.ndarray:
    """The packaged tokenizer's counts, cached on disk by corpus digest (a count takes minutes)."""
    digest = hashlib.sha256("\0".join(texts).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    path = CACHE / f"truth-{family}-{digest}.npy"
    if path.exists():
        return np.load(path)
    truth = np.array(packaged_tokenizer(family).count(texts), dtype=np.int64)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, truth)
    return truth


Tables = tuple[bytes, int, bytes]  # char_extra, digit_group, punct_pairs


def family_tables(family: str) -> Tables:
    """The packaged tokenizer's character table, digit group and pairs of marks, cached on disk
    (the table counts 128k characters)."""
    path = CACHE / f"tables2-{family}.npz"
    if path.exists():
        z = np.load(path)
        return z["table"].tobytes(), int(z["group"]), z["pairs"].tobytes()
    tok = packaged_tokenizer(family)
    table, group, pairs = char_extra_table(tok), digit_group(tok), punct_pairs(tok)
    CACHE.mkdir(parents=True, exist_ok=True)
    u8 = np.uint8
    np.savez(path, table=np.frombuffer(table, dtype=u8), group=group, pairs=np.frombuffer(pairs, dtype=u8))
    return table, group, pairs


def tables_for(name: str) -> Tables:
    """A profile's tables: its family's, or for ``any`` every family's combined."""
    if name != "any":
        return family_tables(name)
    each = [family_tables(f) for f in available_families()]
    return combine([t[0] for t in each], [t[1] for t in each], [t[2] for t in each])


Pieces = tuple[set[int], list[str], set[int]]  # mark-keyed words' hashes, CJK tokens, legacy hashes


def pieces_for(name: str) -> Pieces:
    """From ``name``'s tokenizer, or for ``any`` from those every family holds: the hashes of the
    mark-keyed words, the CJK tokens, and the hashes a profile written before ``cjk_tokens``
    held for those tokens and their prefixes, less any that equal a word candidate's (spaced or
    bare: it may be a real known word); cached on disk."""
    path = CACHE / f"pieces3-{name}.json"
    if path.exists():
        z = json.loads(path.read_text(encoding="utf-8"))
        return set(z["marks"]), z["tokens"], set(z["legacy"])
    families = available_families() if name == "any" else [name]
    tokenizers = [packaged_tokenizer(f) for f in families]
    marks, tokens = piece_tables(tokenizers)
    assert tokens is not None, f"{name}: a packaged tokenizer cannot list its vocabulary"
    words = set()
    for tok in tokenizers:
        for w in candidates(tok.vocabulary()):
            words.update((word_hash(w.encode("utf-8")), word_hash((" " + w).encode("utf-8"))))
    legacy = cjk_hashes(tokens) - words - marks
    CACHE.mkdir(parents=True, exist_ok=True)
    out = {"marks": sorted(marks), "tokens": sorted(tokens), "legacy": sorted(legacy)}
    path.write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    return marks, sorted(tokens), legacy


def known_hashes(name: str) -> bytes:
    """The shipped profile's known words with the hashes of the mark-keyed words, without those a
    profile written before ``cjk_tokens`` held for its CJK tokens."""
    words = load_profile(name).known_words or b""
    held = {int.from_bytes(words[i : i + 4], "little") for i in range(0, len(words), 4)}
    marks, _, legacy = pieces_for(name)
    return pack_hashes((held - legacy) | marks)


def piece_tokens(name: str) -> bytes:
    """``name``'s ``cjk_tokens`` table."""
    return pack_piece_tokens(pieces_for(name)[1])


def family_rows(name: str, texts: list[str]) -> tuple[np.ndarray, Tables]:
    """The feature rows of ``texts`` with ``known_hashes(name)``, ``name``'s tables and its CJK
    tokens."""
    tables = tables_for(name)
    known = known_words(known_hashes(name), *tables, None, piece_tokens(name))
    return np.array(features_batch(texts, known), dtype=np.int64), tables


def profile_tables(name: str) -> ProfileTables:
    """``name``'s tables as ``fit_family.tokenizer_tables`` reads them, from the caches here, with
    the probe texts counted by its packaged tokenizer (for ``any``, the largest count of all)."""
    table, group, pairs = tables_for(name)
    tokenizers = [packaged_tokenizer(f) for f in (available_families() if name == "any" else [name])]
    return ProfileTables(known_hashes(name), table, group, pairs, piece_tokens(name), probe_counts(table, tokenizers))


def family_probes(name: str) -> Probes | None:
    """The probes of ``name``'s floors from the tokenizer (``fit_groups.tokenizer_floors``)."""
    return probe_rows(profile_tables(name))


def fit_family(name: str, texts: list[str], truth: np.ndarray, cats: np.ndarray) -> Profile:
    """``name`` fitted as ``ctxsieve calibrate`` fits (``fit_family.fit_grouped``), with the
    tables read once and cached here."""
    old = load_profile(name)
    tables = profile_tables(name)
    return fit_grouped(
        texts,
        truth,
        cats,
        name,
        tables,
        family=old.family,
        tokenizer=old.tokenizer,
        corpus=f"{len(texts)} documents in {len(set(cats.tolist()))} categories (benches/fit_profiles.py)",
    )


def tables_only(name: str) -> Profile:
    """The shipped profile with its costs and figures, and this version's vocabulary tables."""
    old = load_profile(name)
    return Profile(
        name,
        old.costs,
        family=old.family,
        tokenizer=old.tokenizer,
        meta=old.meta,
        known_words=known_hashes(name),
        char_extra=old.char_extra,
        digit_group=old.digit_group,
        punct_pairs=old.punct_pairs,
        cjk_tokens=piece_tokens(name),
        bounds=old.bounds,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", help="only these profiles (default: every family and any)")
    parser.add_argument("--dry-run", action="store_true", help="print the figures, write nothing")
    parser.add_argument("--tables-only", action="store_true", help="keep the costs, rewrite the vocabulary tables")
    args = parser.parse_args(argv)
    if args.tables_only:
        for name in args.family or [*available_families(), "any"]:
            profile = tables_only(name)
            n = len(profile.known_words or b"") // 4
            print(f"{name}: {n} known words, {len(pieces_for(name)[1])} CJK tokens", file=sys.stderr)
            if not args.dry_run:
                text = json.dumps(profile.to_json(), indent=2) + "\n"
                (PROFILES / f"{name}.json").write_text(text, encoding="utf-8")
        return 0
    docs = fit_corpus()
    texts = [d["text"] for d in docs]
    cats = np.array([d["category"] for d in docs])
    families = available_families()
    wanted = args.family or [*families, "any"]
    truths = {f: true_counts(f, texts) for f in families if f in wanted or "any" in wanted}
    for name in wanted:
        truth = np.max(np.stack(list(truths.values())), axis=0) if name == "any" else truths[name]
        profile = fit_family(name, texts, truth, cats)
        m = profile.meta
        print(f"{name}: margin {m['margin']:.0%}, fit {m['fit']}", file=sys.stderr)
        if not args.dry_run:
            (PROFILES / f"{name}.json").write_text(json.dumps(profile.to_json(), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
