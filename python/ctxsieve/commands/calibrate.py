"""``ctxsieve calibrate``: fit a calibrated-estimator profile from a local tokenizer and a corpus.

    ctxsieve calibrate --tokenizer hf:path/to/tokenizer.json --corpus docs/ --name mymodel \\
        --out mymodel.json
    ctxsieve calibrate --tokenizer packaged:o200k --tokenizer packaged:llama3 --corpus fit.jsonl \\
        --name both

With several tokenizers the profile bounds the largest count of each document. The corpus is a
``.jsonl`` file (one object with a ``text`` field a line), any other text file (one document),
or a directory (each ``.txt``, ``.md``, ``.py``, ``.json``, ``.jsonl`` file below it, by the
same rules). Use it with ``tokenizer: calibrated:mymodel.json``.
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
        help="head-room over every fitting document (default 0.05, or chosen on --tune when given)",
    )
    p.add_argument(
        "--tune",
        action="append",
        metavar="PATH",
        help="a second corpus, disjoint from --corpus, on which to choose the smallest safe margin",
    )
    p.add_argument(
        "--no-known-words",
        action="store_true",
        help="leave out the known-word set (the words each tokenizer encodes as one token)",
    )
    p.add_argument("--out", type=Path, help="write the profile here (default: stdout)")
    p.set_defaults(run=run)


def load_corpus(path: str | Path) -> list[str]:
    p = Path(path).expanduser()
    if p.is_dir():
        return [t for f in sorted(p.rglob("*")) if f.is_file() and f.suffix in TEXT_SUFFIXES for t in load_corpus(f)]
    if not p.is_file():
        raise ConfigError(f"corpus {path}: no such file or directory")
    try:
        raw = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"corpus {path}: cannot read it as UTF-8 ({exc})") from None
    if p.suffix != ".jsonl":
        return [raw]
    texts = []
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
        texts.append(text)
    return texts


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


def run(args: argparse.Namespace) -> int:
    from ctxsieve.tokenizers.fit import fit_profile
    from ctxsieve.tokenizers.vocab import known_word_hashes

    texts = [t for path in args.corpus for t in load_corpus(path)]
    if not texts:
        raise ConfigError("the corpus holds no documents")
    tokenizers = [load_tokenizer(spec) for spec in args.tokenizer]
    truth = [max(col) for col in zip(*(tok.count(texts) for tok in tokenizers))]
    tune = None
    if args.tune:
        tune_texts = [t for path in args.tune for t in load_corpus(path)]
        tune = (tune_texts, [max(col) for col in zip(*(tok.count(tune_texts) for tok in tokenizers))])
    margin = args.margin if args.margin is not None or tune else 0.05
    known = None if args.no_known_words else known_word_hashes(tokenizers)
    try:
        profile = fit_profile(
            texts, truth, args.name, margin=margin, tokenizer=", ".join(args.tokenizer), tune=tune, known=known
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    text = json.dumps(profile.to_json(), indent=2) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
        fit = profile.meta["fit"]
        print(
            f"wrote {args.out}: {len(texts)} documents, {len(known or b'') // 4} known words, "
            f"margin {profile.meta['margin']:.1%}, under-counted "
            f"{fit['under_share']:.1%}, mean over-count {fit['mean_over']:.1%} on the fitting corpus",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(text)
    return 0
