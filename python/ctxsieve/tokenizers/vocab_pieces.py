"""The multi-character sequences a tokenizer holds as one token, for the lookups of the calibrated
estimator that see past one character (``ctxsieve.kernels.calibrated``):

* ``cjk_tokens(vocabulary)``: every token of 2 to ``MAX_PIECE_CHARS`` CJK characters (kana,
  ideographs, CJK punctuation, Hangul syllables; ``is_piece_char``). The estimator cuts a run of
  such characters greedily into the longest tokens of this set (``cjk_piece``): a tokenizer that
  merges a common Simplified Chinese word into one token and a rare Traditional one not at all
  gives one piece for the first and two or more for the second, which no cost per character can
  tell apart. A profile stores the tokens themselves (``cjk_tokens``, ``encode_tokens``); the
  estimator builds its table of their prefixes when it loads them (``KnownWords``). Profiles
  written before held them as hashes in the known-word set instead, each token (``word_hash``)
  and each of its prefixes of two characters or more (``prefix_hash``), with a ``cjk_pairs``
  table (``cjk_hashes``, ``cjk_pair_table``: that layout is still read, and built here only to
  take those hashes out of an old set).
* ``mark_word_keys(tok, vocabulary)``: the words that follow a mark a byte-level pre-tokenizer
  joins to them (``is_mark_before_word``: U+00A0, curly quotes, zero-width characters, ...) and
  that the tokenizer still encodes, mark included, as one token. Without one, ``"\\u00a0word"``
  was looked up as ``"word"`` and priced as one token where every tokenizer here spends two.

Both come from the tokenizer's own vocabulary, counted at fit time; nothing from a corpus.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ctxsieve.kernels.calibrated import (
    MAX_PIECE_CHARS,
    is_mark_before_word,
    is_piece_char,
    is_word_char,
    piece_pair_table,
    prefix_hash,
    word_hash,
)
from ctxsieve.tokenizers.base import Tokenizer
from ctxsieve.tokenizers.packed import deflate, inflate_bounded

TOKENS_ENCODING = "zlib-utf8-lines-base64"
MAX_TOKENS_BYTES = 64 << 20  # a profile's cjk_tokens inflating to more is refused (a zip bomb)


def cjk_tokens(vocabulary: Iterable[str]) -> set[str]:
    """The tokens made of 2 to ``MAX_PIECE_CHARS`` piece characters."""
    return {t for t in vocabulary if 2 <= len(t) <= MAX_PIECE_CHARS and all(is_piece_char(ord(c)) for c in t)}


def cjk_hashes(tokens: Iterable[str]) -> set[int]:
    """Each token's ``word_hash`` and the ``prefix_hash`` of each of its prefixes of two
    characters or more: what a profile written before ``cjk_tokens`` held in its known-word set
    (``benches/fit_profiles.py --tables-only`` takes them out)."""
    out = set()
    for t in tokens:
        out.add(word_hash(t.encode("utf-8")))
        out.update(prefix_hash(t[:k].encode("utf-8")) for k in range(2, len(t) + 1))
    return out


def cjk_pair_table(tokens: Iterable[str]) -> bytes:
    """The ``cjk_pairs`` table of a profile written before ``cjk_tokens``: the bit of each
    token's first two characters (``piece_pair_bit``; the table ``KnownWords`` now builds from
    ``cjk_tokens`` itself, ``piece_pair_table``)."""
    return piece_pair_table(tokens)


def mark_word_keys(tok: Tokenizer, vocabulary: Iterable[str]) -> set[str]:
    """The tokens ``mark + word`` (a mark of ``is_mark_before_word``, then letters) that ``tok``
    encodes as one token after a newline."""
    found = sorted(
        {
            t
            for t in vocabulary
            if len(t) >= 2 and is_mark_before_word(ord(t[0])) and all(is_word_char(ord(c)) for c in t[1:])
        }
    )
    if not found:
        return set()
    (base,) = tok.count(["\n"])
    return {t for t, n in zip(found, tok.count(["\n" + t for t in found])) if n - base == 1}


def piece_tables(tokenizers: Sequence[Any]) -> tuple[set[int], set[str] | None]:
    """For a profile of ``tokenizers`` (the sequences every one of them holds as one token, so a
    profile bounding several stays an upper bound): the hashes of the mark-keyed words, for the
    known-word set, and the CJK tokens (``cjk_tokens``); nothing when one cannot list its
    vocabulary."""
    cjk: set[str] | None = None
    marks: set[str] | None = None
    for tok in tokenizers:
        vocabulary = getattr(tok, "vocabulary", None)
        if vocabulary is None:
            return set(), None
        words = vocabulary()
        c, m = cjk_tokens(words), mark_word_keys(tok, words)
        cjk, marks = (c, m) if cjk is None or marks is None else (cjk & c, marks & m)
    if cjk is None or marks is None:
        return set(), None
    return {word_hash(t.encode("utf-8")) for t in marks}, cjk


def encode_tokens(packed: bytes) -> str:
    """A ``cjk_tokens`` table (``pack_piece_tokens``) as a profile stores it."""
    return deflate(packed)


def decode_tokens(data: str) -> bytes:
    """``encode_tokens`` undone; ``ValueError`` naming the field for anything that is not."""
    raw, whole = inflate_bounded(data, MAX_TOKENS_BYTES, "cjk_tokens", TOKENS_ENCODING)
    if len(raw) > MAX_TOKENS_BYTES:
        raise ValueError(f"cjk_tokens: more than {MAX_TOKENS_BYTES} bytes after decompression")
    if not whole:
        raise ValueError(f"cjk_tokens: not {TOKENS_ENCODING} data (truncated, or data after the stream)")
    return raw
