"""What a tokenizer does with characters and digits, read from the tokenizer at fit time for the
``char_extra`` and ``digit_piece`` features (``ctxsieve.kernels.calibrated``).

* ``char_extra_table(tok)``: for every code point U+0080..U+1FFFF (lone surrogates excepted), the
  tokens the tokenizer spends on it alone beyond the first, 0-3, as 2 bits a code point (32 KB).
  Counted after a newline (``"\\n" + ch`` against ``"\\n"``): every pre-tokenizer of the families
  here ends a piece at a newline, and a SentencePiece model would otherwise add its word mark.
  A CJK character cl100k does not hold as one token costs 2-3; a Hindi letter Mistral's
  SentencePiece model encodes by byte fallback costs 3 (extra 2).
* ``digit_group(tok)``: the smallest ``g`` for which every run of ``n`` random digits (1-40 of
  them, 20 runs a length) costs at least ``ceil(n / g)`` tokens: 3 for ``\\p{N}{1,3}`` (cl100k,
  o200k, Llama 3, DeepSeek: exactly that many), 1 for one digit a piece (Qwen, Mistral), 4 for the
  Claude legacy file, whose byte-level BPE merges whole runs (40 digits cost it 14-18 tokens);
  0 when none of 1-16 does.

* ``punct_pairs(tok)``: the ordered pairs of ASCII marks that some vocabulary token holds side by
  side, a bit per pair (2 KB). A pair no token holds is a token boundary (``punct_break``):
  cl100k holds 735 of the 32 x 32 pairs of marks, so a shell line such as
  ``"$%=~'\n`` costs about a token a mark, which no cost per mark could price without
  over-counting ``()``, ``://`` and ``});``.

For several tokenizers (a profile bounding the largest count), ``combine`` takes the largest
extra per code point, the smallest positive group (the most pieces) and the pairs every
tokenizer holds.

Stored in a profile as ``encode_table``: zlib-compressed, base64-encoded.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import numpy as np

from ctxsieve.kernels.calibrated import (
    EXTRA_LIMIT,
    EXTRA_TABLE_BYTES,
    MAX_DIGIT_GROUP,
    PAIR_TABLE_BYTES,
    PIECE_PAIR_TABLE_BYTES,
)
from ctxsieve.tokenizers.base import Tokenizer
from ctxsieve.tokenizers.packed import deflate, inflate_bounded

TABLE_ENCODING = "zlib-base64"


def pack_extra(extra: np.ndarray) -> bytes:
    """``EXTRA_LIMIT`` values in 0-3 as 2 bits each, code point ``cp`` at bits ``2*(cp % 4)`` of
    byte ``cp // 4``."""
    v = np.clip(np.asarray(extra, dtype=np.int64), 0, 3).astype(np.uint8)
    if v.shape != (EXTRA_LIMIT,):
        raise ValueError(f"char_extra: expected {EXTRA_LIMIT} values, got {v.shape}")
    q = v.reshape(-1, 4)
    return bytes(q[:, 0] | (q[:, 1] << 2) | (q[:, 2] << 4) | (q[:, 3] << 6))


def unpack_extra(table: bytes) -> np.ndarray:
    b = np.frombuffer(table, dtype=np.uint8)
    return np.stack([(b >> s) & 3 for s in (0, 2, 4, 6)], axis=1).reshape(-1)


def char_extra_table(tok: Tokenizer) -> bytes:
    cps = [cp for cp in range(0x80, EXTRA_LIMIT) if not 0xD800 <= cp < 0xE000]
    (base,) = tok.count(["\n"])
    counts = np.array(tok.count(["\n" + chr(cp) for cp in cps]), dtype=np.int64)
    extra = np.zeros(EXTRA_LIMIT, dtype=np.int64)
    extra[cps] = counts - base - 1
    return pack_extra(extra)


def digit_group(tok: Tokenizer) -> int:
    rng = random.Random(16)
    lengths = [n for n in range(1, 41) for _ in range(20)]
    texts = ["\n" + "".join(rng.choice("0123456789") for _ in range(n)) for n in lengths]
    (base,) = tok.count(["\n"])
    got = [c - base for c in tok.count(texts)]
    for g in range(1, MAX_DIGIT_GROUP + 1):
        if all(c >= -(-n // g) for c, n in zip(got, lengths)):
            return g
    return 0


MARKS = [b for b in range(0x21, 0x7F) if not chr(b).isalnum()]


def punct_pairs(tok: Tokenizer) -> bytes | None:
    """None when the tokenizer cannot list its vocabulary (every pair then counts)."""
    vocabulary = getattr(tok, "vocabulary", None)
    if vocabulary is None:
        return None
    bits = np.zeros(128 * 128, dtype=bool)
    marks = {chr(b) for b in MARKS}
    for token in vocabulary():
        for a, b in itertools.pairwise(token):
            if a in marks and b in marks:
                bits[ord(a) << 7 | ord(b)] = True
    return np.packbits(bits, bitorder="little").tobytes()


def combine(tables: Sequence[bytes], groups: Sequence[int], pairs: Sequence[bytes]) -> tuple[bytes, int, bytes]:
    extra = np.max(np.stack([unpack_extra(t) for t in tables]), axis=0)
    positive = [g for g in groups if g > 0]
    held = np.bitwise_and.reduce(np.stack([np.frombuffer(p, dtype=np.uint8) for p in pairs]), axis=0)
    return pack_extra(extra), min(positive, default=0), held.tobytes()


def encode_table(table: bytes) -> str:
    return deflate(table)


def decode_table(data: str, what: str = "char_extra", size: int = EXTRA_TABLE_BYTES) -> bytes:
    """``encode_table`` undone; ``ValueError`` for anything that is not exactly one table of
    ``size`` bytes."""
    raw, whole = inflate_bounded(data, size, what, TABLE_ENCODING)
    if len(raw) != size or not whole:
        raise ValueError(f"{what}: expected {size} bytes after decompression, got {len(raw)}")
    return raw


PAIRS = ("punct_pairs", PAIR_TABLE_BYTES)
CJK_PAIRS = ("cjk_pairs", PIECE_PAIR_TABLE_BYTES)
