"""The ``Tokenizer`` protocol and the error every loader raises for an unusable file.

An exact tokenizer here only counts: ``count(texts)`` returns one token count per text, with no
special tokens added (a BOS or chat framing belongs to the request, not to each piece of
content). Loaders read local files only; nothing is ever downloaded at run time.

The loaders here also have ``vocabulary()``, every token as text, from which
``ctxsieve.tokenizers.vocab`` finds the words a profile knows; it is optional, and a tokenizer
without it is fitted without known words.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from ctxsieve.errors import ContextError, MissingExtraError
from ctxsieve.kernels.reference import check_str_list, clean


class TokenizerFileError(ContextError, ValueError):
    """A tokenizer file is missing, unreadable or malformed; ``path`` names it."""

    def __init__(self, path: str | os.PathLike[str], problem: str):
        super().__init__(f"tokenizer file {os.fspath(path)!s}: {problem}")
        self.path = os.fspath(path)
        self.problem = problem


@runtime_checkable
class Tokenizer(Protocol):
    """Anything that counts tokens exactly for a batch of texts."""

    name: str

    def count(self, texts: Sequence[str]) -> list[int]:
        """One token count per text, no special tokens added; one call for the whole batch."""
        ...


def existing_file(path: str | os.PathLike[str]) -> Path:
    """``path`` as a ``Path`` when it is a readable regular file, else ``TokenizerFileError``."""
    p = Path(path).expanduser()
    if not p.exists():
        raise TokenizerFileError(path, "no such file (tokenizers are never downloaded; pass a local path)")
    if not p.is_file():
        raise TokenizerFileError(path, "not a regular file")
    if not os.access(p, os.R_OK):
        raise TokenizerFileError(path, "not readable")
    return p


def prepare(texts: Sequence[str]) -> list[str]:
    """Checks that every element is a str and replaces lone surrogates with U+FFFD.

    The tokenizer libraries reject (or silently mangle) lone surrogates; a provider receives
    such text as U+FFFD after JSON/UTF-8 encoding, so that is what we count.
    """
    out = texts if isinstance(texts, list) else list(texts)
    check_str_list("texts", out)
    return [clean(t) for t in out]


def require(module: str, extra: str = "tokenizers") -> None:
    """Raises ``MissingExtraError`` naming the extra when ``module`` cannot be imported."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingExtraError(extra, module)
