"""Exact counts from a Hugging Face ``tokenizer.json`` on the local disk.

>>> import pytest; _ = pytest.importorskip("tokenizers")
>>> HFTokenizer("/no/such/tokenizer.json")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ctxsieve.tokenizers.base.TokenizerFileError: tokenizer file /no/such/tokenizer.json: no such file ...
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ctxsieve.tokenizers.base import TokenizerFileError, existing_file, prepare, require


class HFTokenizer:
    """A ``tokenizers.Tokenizer`` loaded with ``from_file`` (never ``from_pretrained``).

    Truncation and padding stored in the file are switched off: a file saved with
    ``max_length=128`` would otherwise report 128 for every long text (and pad short ones).
    """

    def __init__(self, path: str | os.PathLike[str], name: str | None = None):
        require("tokenizers")
        from tokenizers import Tokenizer as _HF

        p = existing_file(path)
        try:
            tok = _HF.from_file(str(p))
        except Exception as exc:  # the Rust side raises a bare Exception for bad JSON or schema
            raise TokenizerFileError(path, f"not a valid Hugging Face tokenizer.json ({exc})") from None
        tok.no_truncation()
        tok.no_padding()
        self._tok: Any = tok
        # encode_batch_fast (tokenizers >= 0.20) skips offset tracking, about 2x faster
        self._encode = getattr(tok, "encode_batch_fast", tok.encode_batch)
        self.path = str(p)
        self.name = name or f"hf:{p}"

    def count(self, texts: Sequence[str]) -> list[int]:
        batch = prepare(texts)
        if not batch:
            return []
        return [len(e.ids) for e in self._encode(batch, add_special_tokens=False)]

    def vocabulary(self) -> list[str]:
        """Every token id decoded on its own (byte-level tokens with a partial UTF-8 character
        decode to U+FFFD; they are never words)."""
        return list(self._tok.decode_batch([[i] for i in range(self._tok.get_vocab_size())]))

    def __repr__(self) -> str:
        return f"HFTokenizer({self.path!r})"
