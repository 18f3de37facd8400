"""Exact counts from tiktoken-style BPE ranks on the local disk.

Two file shapes: a ``.tiktoken`` file (one ``base64 rank`` pair per line, as OpenAI publishes
cl100k/o200k and Qwen ships its vocabulary) and Mistral's ``tekken.json`` (ranks plus the
pre-tokenizer pattern). A ``.tiktoken`` file carries no pattern, so it is named by the caller or
inferred from a known file name. We parse the files ourselves instead of calling
``tiktoken.load``: that function also caches copies under a temporary directory and reports a
bad line as a bare ``ValueError`` without the path.

>>> import pytest; _ = pytest.importorskip("tiktoken")
>>> TiktokenTokenizer("/no/such/cl100k_base.tiktoken")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ctxsieve.tokenizers.base.TokenizerFileError: tokenizer file /no/such/cl100k_base.tiktoken: no such file ...
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxsieve.tokenizers.base import TokenizerFileError, existing_file, prepare, require

# The pre-tokenizer patterns of the public encodings (from tiktoken_ext.openai_public and the
# Qwen tokenizer); the ranks alone do not define a tokenizer.
_R50K = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
_CL100K = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|"""
    r"""\s+(?!\S)|\s"""
)
_O200K = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_QWEN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|"""
    r"""\s+(?!\S)|\s+"""
)
_QWEN35 = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|"""
    r"""\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# file-name stem (lower-cased) -> pattern; checked longest first, so "qwen3_6" wins over "qwen"
PATTERNS = {
    "r50k_base": _R50K,
    "p50k_base": _R50K,
    "cl100k_base": _CL100K,
    "o200k_base": _O200K,
    "qwen3_6": _QWEN35,
    "qwen3_5": _QWEN35,
    "qwen": _QWEN,
}


def pattern_for(path: str | os.PathLike[str]) -> str:
    stem = Path(path).name.lower()
    for key in sorted(PATTERNS, key=len, reverse=True):
        if key in stem:
            return PATTERNS[key]
    known = ", ".join(sorted(PATTERNS))
    raise TokenizerFileError(
        path, f"cannot tell its pre-tokenizer pattern from the name; pass pattern= (known: {known})"
    )


def read_tiktoken_ranks(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """The ``base64 rank`` lines of a ``.tiktoken`` file; any bad line names the path and line."""
    p = existing_file(path)
    ranks: dict[bytes, int] = {}
    with open(p, "rb") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            try:
                token, rank = parts
                ranks[base64.b64decode(token, validate=True)] = int(rank)
            except (ValueError, binascii.Error):
                raise TokenizerFileError(path, f"line {lineno} is not '<base64> <rank>'") from None
    if not ranks:
        raise TokenizerFileError(path, "holds no ranks")
    return ranks


def read_tekken(path: str | os.PathLike[str]) -> tuple[dict[bytes, int], str]:
    """Ranks and pattern of a Mistral ``tekken.json``, cut to the vocabulary the models use."""
    p = existing_file(path)
    try:
        with open(p, encoding="utf-8") as f:
            data = json.load(f)
        config = data["config"]
        pattern = config["pattern"]
        # mistral-common keeps default_vocab_size - default_num_special_tokens ranks
        n = int(config.get("default_vocab_size", len(data["vocab"]))) - int(config.get("default_num_special_tokens", 0))
        ranks = {base64.b64decode(v["token_bytes"]): int(v["rank"]) for v in data["vocab"][:n]}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TokenizerFileError(path, f"not valid JSON ({exc})") from None
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise TokenizerFileError(path, f"not a tekken tokenizer (bad or missing field: {exc})") from None
    return ranks, pattern


class TiktokenTokenizer:
    """A ``tiktoken.Encoding`` built from local ranks; ``encode_ordinary`` (special-token text
    is counted as ordinary text, which is what untrusted content is)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        pattern: str | None = None,
        name: str | None = None,
        *,
        ranks: dict[bytes, int] | None = None,
    ):
        require("tiktoken")
        import tiktoken

        if ranks is None:
            if str(path).lower().endswith(".json"):
                ranks, file_pattern = read_tekken(path)
                pattern = pattern or file_pattern
            else:
                ranks = read_tiktoken_ranks(path)
        pattern = pattern or pattern_for(path)
        try:
            self._enc: Any = tiktoken.Encoding(
                name=Path(path).stem, pat_str=pattern, mergeable_ranks=ranks, special_tokens={}
            )
        except ValueError as exc:
            raise TokenizerFileError(path, f"cannot build an encoding ({exc})") from None
        self.path = str(path)
        self.name = name or f"tiktoken:{path}"

    def count(self, texts: Sequence[str]) -> list[int]:
        batch = prepare(texts)
        return [len(ids) for ids in self._enc.encode_ordinary_batch(batch, num_threads=2)] if batch else []

    def vocabulary(self) -> list[str]:
        """Every token's bytes as text (tokens that are not whole UTF-8 characters are left out)."""
        out = []
        for raw in self._enc.token_byte_values():
            try:
                out.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                continue
        return out

    def __repr__(self) -> str:
        return f"TiktokenTokenizer({self.path!r})"
