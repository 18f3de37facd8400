"""The tokenizer's own tables that the calibrated estimator reads (the reference of the native
``KnownWords``): the hashes of the words it holds as one token, the tokens each character costs
alone (``char_extra``), its digit group and the pairs of ASCII marks some token holds side by side."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import xxhash

from ctxsieve.kernels.calibrated_classes import (
    EXTRA_LIMIT,
    EXTRA_TABLE_BYTES,
    MAX_DIGIT_GROUP,
    PAIR_TABLE_BYTES,
    PIECE_PAIR_BITS,
    PIECE_PAIR_TABLE_BYTES,
)


def word_hash(key: bytes) -> int:
    """The 32-bit hash a ``KnownWords`` set holds for a word's key (its UTF-8 bytes, with the
    space before it when there is one)."""
    return xxhash.xxh3_64_intdigest(key) & 0xFFFFFFFF


def prefix_hash(key: bytes) -> int:
    """The 32-bit hash a ``KnownWords`` set holds for a prefix (two characters or more) of a
    multi-character CJK token, the token itself included: XXH3-64 with seed 1, so a prefix is
    never taken for a word (barring a collision of 32-bit hashes)."""
    return xxhash.xxh3_64_intdigest(key, seed=1) & 0xFFFFFFFF


def pack_hashes(hashes: Iterable[int]) -> bytes:
    """Hashes as ``KnownWords`` takes them: sorted, distinct, little-endian u32."""
    return b"".join(h.to_bytes(4, "little") for h in sorted(set(hashes)))


class KnownWords:
    """The set of word hashes the ``known_word`` feature looks up (the reference of the native
    ``KnownWords``). ``hashes`` is a ``bytes`` of little-endian u32 values, any order.

    >>> from ctxsieve.kernels.calibrated import KNOWN_WORD, features
    >>> k = KnownWords(pack_hashes([word_hash(b" the")]))
    >>> len(k), features(" the cat", k)[KNOWN_WORD]
    (1, 1)
    """

    __slots__ = ("_set", "char_extra", "cjk_pairs", "digit_group", "packed", "punct_pairs")

    def __init__(
        self,
        hashes: bytes,
        char_extra: bytes | None = None,
        digit_group: int | None = 0,
        punct_pairs: bytes | None = None,
        cjk_pairs: bytes | None = None,
    ):
        if not isinstance(hashes, bytes):
            raise TypeError(f"known words: expected bytes, got {type(hashes).__name__}")
        if len(hashes) % 4:
            raise ValueError(f"known words: expected a multiple of 4 bytes (little-endian u32), got {len(hashes)}")
        tables = check_tables(char_extra, digit_group, punct_pairs, cjk_pairs)
        self.char_extra, self.digit_group, self.punct_pairs, self.cjk_pairs = tables
        self.packed = hashes
        self._set = frozenset(int.from_bytes(hashes[i : i + 4], "little") for i in range(0, len(hashes), 4))

    def may_start_piece(self, a: int, b: int) -> bool:
        """Whether some multi-character token may start with the CJK characters ``a``, ``b``
        (their hashed pair's bit in ``cjk_pairs``; without a table, any may)."""
        if self.cjk_pairs is None:
            return True
        bit = piece_pair_bit(a, b)
        return bool(self.cjk_pairs[bit >> 3] >> (bit & 7) & 1)

    def extra(self, cp: int) -> int:
        """``char_extra`` of one non-ASCII code point."""
        return char_extra(cp, self.char_extra)

    def __len__(self) -> int:
        return len(self._set)

    def __contains__(self, h: object) -> bool:
        return isinstance(h, int) and not isinstance(h, bool) and h in self._set


def check_tables(
    char_extra: Any, digit_group: Any, punct_pairs: Any = None, cjk_pairs: Any = None
) -> tuple[bytes | None, int, bytes | None, bytes | None]:
    """The character tables of a ``KnownWords`` set, checked in this order (the native side
    checks the same); a ``digit_group`` of None is 0."""
    if char_extra is not None:
        if not isinstance(char_extra, bytes):
            raise TypeError(f"known words: char_extra: expected bytes or None, got {type(char_extra).__name__}")
        if len(char_extra) != EXTRA_TABLE_BYTES:
            raise ValueError(
                f"known words: char_extra: expected {EXTRA_TABLE_BYTES} bytes (2 bits per code point below "
                f"U+20000), got {len(char_extra)}"
            )
    digit_group = 0 if digit_group is None else digit_group
    if isinstance(digit_group, bool) or not isinstance(digit_group, int):
        raise TypeError(f"known words: digit_group: expected an int, got {type(digit_group).__name__}")
    if not 0 <= digit_group <= MAX_DIGIT_GROUP:
        raise ValueError(f"known words: digit_group: must be in [0, {MAX_DIGIT_GROUP}], got {digit_group}")
    if punct_pairs is not None:
        if not isinstance(punct_pairs, bytes):
            raise TypeError(f"known words: punct_pairs: expected bytes or None, got {type(punct_pairs).__name__}")
        if len(punct_pairs) != PAIR_TABLE_BYTES:
            raise ValueError(
                f"known words: punct_pairs: expected {PAIR_TABLE_BYTES} bytes (a bit per pair of ASCII "
                f"characters), got {len(punct_pairs)}"
            )
    if cjk_pairs is not None:
        if not isinstance(cjk_pairs, bytes):
            raise TypeError(f"known words: cjk_pairs: expected bytes or None, got {type(cjk_pairs).__name__}")
        if len(cjk_pairs) != PIECE_PAIR_TABLE_BYTES:
            raise ValueError(
                f"known words: cjk_pairs: expected {PIECE_PAIR_TABLE_BYTES} bytes (a bit per hashed pair of CJK "
                f"characters), got {len(cjk_pairs)}"
            )
    return char_extra, digit_group, punct_pairs, cjk_pairs


def piece_pair_bit(a: int, b: int) -> int:
    """The bit of the pair of CJK code points ``a``, ``b`` in a ``cjk_pairs`` table: the top
    ``PIECE_PAIR_BITS`` of ``(a << 16 | b)`` times a golden-ratio constant, in 32 bits."""
    return ((((a << 16) | (b & 0xFFFF)) * 0x9E3779B1) & 0xFFFFFFFF) >> (32 - PIECE_PAIR_BITS)


def holds_pair(a: int, b: int, pairs: bytes | None) -> bool:
    """Whether some token of the tokenizer holds the ASCII characters ``a``, ``b`` side by side
    (without a table: none does)."""
    bit = a << 7 | b
    return pairs is not None and bool(pairs[bit >> 3] >> (bit & 7) & 1)


def char_extra(cp: int, table: bytes | None) -> int:
    """The extra tokens a tokenizer spends on code point ``cp`` (>= U+0080) alone: 2 bits of
    ``table`` below ``EXTRA_LIMIT``; else (and without a table) its UTF-8 length less one, the
    byte-level worst case."""
    if table is not None and cp < EXTRA_LIMIT:
        return table[cp >> 2] >> ((cp & 3) * 2) & 3
    return (2 if cp < 0x800 else 3 if cp < 0x10000 else 4) - 1


def digit_pieces(length: int, group: int) -> int:
    """Pre-tokenizer pieces of a run of ``length`` ASCII digits, ``group`` digits a piece
    (0: the whole run is one)."""
    return 1 if group == 0 else -(-length // group)
