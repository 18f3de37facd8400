"""Exact counts from a SentencePiece ``.model`` file (Llama 2, Mistral v1-v3, Gemma).

>>> import pytest; _ = pytest.importorskip("sentencepiece")
>>> SentencePieceTokenizer("/no/such/tokenizer.model")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ctxsieve.tokenizers.base.TokenizerFileError: tokenizer file /no/such/tokenizer.model: no such file ...
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ctxsieve.tokenizers.base import TokenizerFileError, existing_file, prepare, require


class SentencePieceTokenizer:
    """``sentencepiece.SentencePieceProcessor`` over a local model; no BOS/EOS added."""

    def __init__(self, path: str | os.PathLike[str], name: str | None = None):
        require("sentencepiece")
        import sentencepiece

        p = existing_file(path)
        sp: Any = sentencepiece.SentencePieceProcessor()
        try:
            ok = sp.Load(str(p))
        except (OSError, RuntimeError) as exc:
            raise TokenizerFileError(path, f"not a valid SentencePiece model ({exc})") from None
        if not ok:
            raise TokenizerFileError(path, "not a valid SentencePiece model")
        self._sp = sp
        self.path = str(p)
        self.name = name or f"sentencepiece:{p}"

    def count(self, texts: Sequence[str]) -> list[int]:
        batch = prepare(texts)
        return [len(ids) for ids in self._sp.encode(batch, num_threads=2)] if batch else []

    def vocabulary(self) -> list[str]:
        """Every piece, with SentencePiece's word-boundary mark U+2581 read as a space."""
        return [self._sp.id_to_piece(i).replace("\u2581", " ") for i in range(self._sp.get_piece_size())]

    def __repr__(self) -> str:
        return f"SentencePieceTokenizer({self.path!r})"
