"""``ctxsieve calibrate``: fit a calibrated-estimator profile from local tokenizers and a corpus.

    ctxsieve calibrate --tokenizer hf:path/to/tokenizer.json --corpus docs/ --name mymodel \\
        --out mymodel.json
    ctxsieve calibrate --tokenizer packaged:o200k --tokenizer packaged:llama3 --corpus fit.jsonl \\
        --name both

With several tokenizers the profile bounds the largest count of each document. The corpus is a
``.jsonl`` file (one object with a ``text`` field a line, and optionally a ``category``), any
other text file (one document), or a directory (each ``.txt``, ``.md``, ``.py``, ``.json``,
``.jsonl`` file below it, by the same rules). Use it with ``tokenizer: calibrated:mymodel.json``.

The profile is fitted as the shipped ones are (``ctxsieve.tokenizers.fit_family``): the
tokenizers' own tables (one-token words, CJK tokens, the extra tokens of each character, digit
groups, pairs of marks), costs that bound every document, and a margin chosen by leaving one
group of documents out: a JSONL line's ``category``, else the file it came from. ``--bounds N``
fits N cost vectors instead, one on each of N clusters of the groups (the estimate is the
smallest): closer on the kinds of text the corpus holds, less safe on others (docs/tokenizers.md,
"Several bounds"). Give the corpus
as several files or categories of different kinds of text (JSON, code, prose, each language) so
that the margin is judged on kinds of text the fit did not see; with fewer than three groups the
margin is 5 % unless ``--margin`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ctxsieve.errors import ConfigError

TEXT_SUFFIXES = (".txt", ".md", ".py", ".json", ".jsonl", ".rst", ".csv", ".yaml", ".yml")


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "calibrate",
        help="fit a calibrated token-estimator profile",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--tokenizer",
        action="append",
        required=True,
        metavar="SPEC",
        help="hf:<tokenizer.json>, tiktoken:<file>, sentencepiece:<model> or packaged:<family>; repeatable",
    )
    p.add_argument("--corpus", action="append", required=True, metavar="PATH", help="JSONL, text file or directory")
    p.add_argument("--name", required=True, help="profile name")
    p.add_argument(
        "--margin",
        type=float,
        help="head-room over every fitting document (default: chosen on --tune, else by leaving one group out, "
        "5 %% with fewer than three groups)",
    )
    p.add_argument(
        "--bounds",
        type=bounds_arg,
        default=1,
        metavar="N",
        help="cost vectors, one fitted on each of N clusters of the groups (default 1, at most one a group; 1 to 8)",
    )
    p.add_argument(
        "--tune",
        action="append",
        metavar="PATH",
        help="a second corpus, disjoint from --corpus, on which to choose the margin instead",
    )
    p.add_argument(
        "--no-known-words",
        action="store_true",
        help="leave out the word set (the words and CJK tokens each tokenizer encodes as one token)",
    )
    p.add_argument("--out", type=Path, help="write the profile here (default: stdout)")
    p.set_defaults(run=run)


def load_corpus(path: str | Path) -> list[tuple[str, str]]:
    """``(text, group)`` of each document under ``path``: a JSONL line's ``category`` when it has
    one, else the file's path."""
    p = Path(path).expanduser()
    if p.is_dir():
        return [d for f in sorted(p.rglob("*")) if f.is_file() and f.suffix in TEXT_SUFFIXES for d in load_corpus(f)]
    if not p.is_file():
        raise ConfigError(f"corpus {path}: no such file or directory")
    try:
        raw = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"corpus {path}: cannot read it as UTF-8 ({exc})") from None
    if p.suffix != ".jsonl":
        return [(raw, str(p))]
    docs = []
    for lineno, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            text = obj["text"] if isinstance(obj, dict) else obj
        except (json.JSONDecodeError, KeyError):
            raise ConfigError(f"corpus {path}: line {lineno} is not a JSON object with a 'text' field") from None
        if not isinstance(text, str):
            raise ConfigError(f"corpus {path}: line {lineno}: 'text' must be a string")
        category = obj.get("category") if isinstance(obj, dict) else None
        if category is not None and not isinstance(category, str):
            raise ConfigError(f"corpus {path}: line {lineno}: 'category' must be a string")
        docs.append((text, str(p) if category is None else category))
    return docs


def load_tokenizer(spec: str) -> Any:
    """An exact tokenizer for ``spec``: the ``get_estimator`` kinds, or ``packaged:<family>``."""
    from ctxsieve.tokenizers import get_estimator
    from ctxsieve.tokenizers.packaged import packaged_tokenizer

    kind, _, arg = spec.partition(":")
    if kind == "packaged":
        try:
            return packaged_tokenizer(arg)
        except LookupError as exc:
            raise ConfigError(str(exc)) from None
    est = get_estimator(spec)
    if est.tokenizer is None:
        raise ConfigError(f"--tokenizer {spec}: calibrate needs an exact tokenizer (hf:, tiktoken:, sentencepiece:)")
    return est.tokenizer


def bounds_arg(text: str) -> int:
    """``--bounds``, checked before any tokenizer counts the corpus."""
    from ctxsieve.tokenizers.fit_groups import check_bounds

    try:
        return check_bounds(int(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc) if "bounds" in str(exc) else f"not an int: {text!r}") from None


def run(args: argparse.Namespace) -> int:
    from ctxsieve.tokenizers.fit_family import fit_grouped, tokenizer_tables

    docs = [d for path in args.corpus for d in load_corpus(path)]
    if not docs:
        raise ConfigError("the corpus holds no documents")
    texts = [t for t, _ in docs]
    tokenizers = [load_tokenizer(spec) for spec in args.tokenizer]
    truth = [max(col) for col in zip(*(tok.count(texts) for tok in tokenizers))]
    tune = None
    if args.tune:
        tune_texts = [t for path in args.tune for t, _ in load_corpus(path)]
        tune = (tune_texts, [max(col) for col in zip(*(tok.count(tune_texts) for tok in tokenizers))])
    try:
        tables = tokenizer_tables(tokenizers, words=not args.no_known_words)
        profile = fit_grouped(
            texts,
            truth,
            [g for _, g in docs],
            args.name,
            tables,
            margin=args.margin,
            bounds=args.bounds,
            tokenizer=", ".join(args.tokenizer),
            tune=tune,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    text = json.dumps(profile.to_json(), indent=2) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
        fit = profile.meta["fit"]
        print(
            f"wrote {args.out}: {len(texts)} documents, {len(profile.cost_vectors())} bounds, "
            f"{len(tables.known_words or b'') // 4} known words and pieces, "
            f"margin {profile.meta['margin']:.1%} ({profile.meta['margin_chosen']}), under-counted "
            f"{fit['under_share']:.1%}, mean over-count {fit['mean_over']:.1%} on the fitting corpus",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(text)
    return 0
