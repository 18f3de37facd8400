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
    MAX_PIECE_CHARS,
    PAIR_TABLE_BYTES,
    PIECE_FINGERPRINT_BITS,
    PIECE_HASH_MULT,
    PIECE_HASH_SEED,
    PIECE_LONGER,
    PIECE_PAIR_BITS,
    PIECE_PAIR_TABLE_BYTES,
    PIECE_TOKEN,
    is_piece_char,
)


def word_hash(key: bytes) -> int:
    """The 32-bit hash a ``KnownWords`` set holds for a word's key (its UTF-8 bytes, with the
    space before it when there is one)."""
    return xxhash.xxh3_64_intdigest(key) & 0xFFFFFFFF


def prefix_hash(key: bytes) -> int:
    """The 32-bit hash a ``KnownWords`` set holds for a prefix (two characters or more) of a
    multi-character CJK token, the token itself included: XXH3-64 with seed 1, so a prefix is
    never taken for a word (barring a collision of 32-bit hashes). Only profiles written before
    ``cjk_tokens`` hold these (``KnownWords``' legacy lookup)."""
    return xxhash.xxh3_64_intdigest(key, seed=1) & 0xFFFFFFFF


_MASK64 = (1 << 64) - 1
PIECE_FINGERPRINT_SHIFT = 64 - PIECE_FINGERPRINT_BITS


def piece_step(h: int, cp: int) -> int:
    """The hash of a run of piece characters extended by code point ``cp``: ``(h ^ cp) *
    PIECE_HASH_MULT`` mod 2**64; a run's hash is its code points stepped in from
    ``PIECE_HASH_SEED``, so each extension by one character costs one multiply."""
    return ((h ^ cp) * PIECE_HASH_MULT) & _MASK64


def piece_fingerprint(text: str) -> int:
    """The fingerprint ``cjk_tokens`` tables key ``text`` by: the top ``PIECE_FINGERPRINT_BITS``
    of its ``piece_step`` hash."""
    h = PIECE_HASH_SEED
    for ch in text:
        h = piece_step(h, ord(ch))
    return h >> PIECE_FINGERPRINT_SHIFT


def piece_entries(tokens: Iterable[str]) -> dict[int, int]:
    """The ``cjk_tokens`` table of ``tokens``: for each token's prefix of two characters or more
    (the token included), its fingerprint -> ``PIECE_TOKEN`` when the prefix is a token,
    ``PIECE_LONGER`` when a longer token starts with it (or both; fingerprints that collide
    share their flags)."""
    out: dict[int, int] = {}
    for t in tokens:
        h = piece_step(PIECE_HASH_SEED, ord(t[0]))
        for k in range(1, len(t)):
            h = piece_step(h, ord(t[k]))
            fp = h >> PIECE_FINGERPRINT_SHIFT
            out[fp] = out.get(fp, 0) | (PIECE_TOKEN if k == len(t) - 1 else PIECE_LONGER)
    return out


def piece_pair_table(tokens: Iterable[str]) -> bytes:
    """The bits (``piece_pair_bit``) of each token's first two characters: where a token may
    start (the ``cjk_pairs`` layout; built from ``cjk_tokens`` when they are given)."""
    bits = bytearray(PIECE_PAIR_TABLE_BYTES)
    for t in tokens:
        bit = piece_pair_bit(ord(t[0]), ord(t[1]))
        bits[bit >> 3] |= 1 << (bit & 7)
    return bytes(bits)


def pack_piece_tokens(tokens: Iterable[str]) -> bytes:
    """Tokens as ``KnownWords`` takes them (``cjk_tokens``): sorted, distinct, UTF-8, one a line."""
    return "\n".join(sorted(set(tokens))).encode("utf-8")


def check_piece_tokens(data: Any) -> list[str]:
    """The tokens of a ``cjk_tokens`` table: UTF-8, newline-separated (no trailing newline; empty:
    none), each of 2 to ``MAX_PIECE_CHARS`` piece characters (the native side checks the same)."""
    if not isinstance(data, bytes):
        raise TypeError(f"known words: cjk_tokens: expected bytes or None, got {type(data).__name__}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"known words: cjk_tokens: not UTF-8 (at byte {exc.start})") from None
    tokens = text.split("\n") if text else []
    for i, t in enumerate(tokens):
        if not 2 <= len(t) <= MAX_PIECE_CHARS or not all(is_piece_char(ord(c)) for c in t):
            raise ValueError(
                f"known words: cjk_tokens: token {i}: expected 2 to {MAX_PIECE_CHARS} characters of "
                "U+3000-U+9FFF or U+AC00-U+D7A3, one token a line"
            )
    return tokens


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

    __slots__ = (
        "_set",
        "char_extra",
        "cjk_pairs",
        "cjk_tokens",
        "digit_group",
        "packed",
        "piece_flags",
        "piece_pairs",
        "punct_pairs",
    )

    def __init__(
        self,
        hashes: bytes,
        char_extra: bytes | None = None,
        digit_group: int | None = 0,
        punct_pairs: bytes | None = None,
        cjk_pairs: bytes | None = None,
        cjk_tokens: bytes | None = None,
    ):
        if not isinstance(hashes, bytes):
            raise TypeError(f"known words: expected bytes, got {type(hashes).__name__}")
        if len(hashes) % 4:
            raise ValueError(f"known words: expected a multiple of 4 bytes (little-endian u32), got {len(hashes)}")
        tables = check_tables(char_extra, digit_group, punct_pairs, cjk_pairs)
        self.char_extra, self.digit_group, self.punct_pairs, self.cjk_pairs = tables
        self.cjk_tokens = cjk_tokens
        # the cjk_tokens table (fingerprint -> flags) and the pairs its tokens start with, or None
        self.piece_flags: dict[int, int] | None = None
        self.piece_pairs: bytes | None = None
        if cjk_tokens is not None:
            tokens = check_piece_tokens(cjk_tokens)
            if cjk_pairs is not None:
                raise ValueError(
                    "known words: cjk_pairs: not with cjk_tokens (the pair table is built from the tokens; "
                    "cjk_pairs is the table of profiles written before cjk_tokens)"
                )
            self.piece_flags, self.piece_pairs = piece_entries(tokens), piece_pair_table(tokens)
        self.packed = hashes
        self._set = frozenset(int.from_bytes(hashes[i : i + 4], "little") for i in range(0, len(hashes), 4))

    def may_start_piece(self, a: int, b: int) -> bool:
        """Whether some multi-character token may start with the CJK characters ``a``, ``b``
        (their hashed pair's bit in ``cjk_pairs``; without a table, any may)."""
        return self.cjk_pairs is None or may_start(self.cjk_pairs, a, b)

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


def may_start(pairs: bytes | None, a: int, b: int) -> bool:
    """Whether the bit of the pair of code points ``a``, ``b`` is set in ``pairs`` (a
    ``cjk_pairs`` layout); False without a table."""
    if pairs is None:
        return False
    bit = piece_pair_bit(a, b)
    return bool(pairs[bit >> 3] >> (bit & 7) & 1)


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
