"""Known words: the words a tokenizer encodes as one token, for the ``known_word`` feature.

A word here is what the calibrated estimator looks up (see ``ctxsieve.kernels.calibrated``): a
run of ASCII letters and two-byte letters, with or without the space before it. Candidates come
from the tokenizer's vocabulary (every token that is such a word, with its leading space
stripped); each is then checked by counting, in both forms, so the set says what the tokenizer
does rather than what its vocabulary file suggests: ``"a" + " word"`` must cost exactly one
token more than ``"a"``, and ``"a\\n" + "word"`` one more than ``"a\\n"``.

Sets are stored in a profile as ``encode_hashes``: the sorted 32-bit word hashes, delta-coded,
zlib-compressed and base64-encoded (about 2.8 bytes a word).

>>> decode_hashes(encode_hashes([7, 3, 3])) == pack_hashes([3, 7])
True
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ctxsieve.kernels.calibrated import is_word_char, pack_hashes, word_hash
from ctxsieve.tokenizers.base import Tokenizer

ENCODING = "zlib-delta-u32le-base64"


def is_word(text: str) -> bool:
    return bool(text) and all(is_word_char(ord(ch)) for ch in text)


def candidates(vocabulary: Iterable[str]) -> list[str]:
    """The distinct words among the vocabulary's tokens, leading space stripped, sorted."""
    out = set()
    for token in vocabulary:
        word = token[1:] if token.startswith(" ") else token
        if is_word(word):
            out.add(word)
    return sorted(out)


def one_token_keys(tok: Tokenizer, vocabulary: Iterable[str]) -> list[bytes]:
    """The keys (UTF-8, ``b" word"`` when spaced) that ``tok`` encodes as one token."""
    words = candidates(vocabulary)
    if not words:
        return []
    base_spaced, base_bare = tok.count(["a", "a\n"])
    spaced = tok.count(["a " + w for w in words])
    bare = tok.count(["a\n" + w for w in words])
    keys = [(" " + w).encode("utf-8") for w, n in zip(words, spaced) if n - base_spaced == 1]
    keys += [w.encode("utf-8") for w, n in zip(words, bare) if n - base_bare == 1]
    return keys


def known_word_hashes(tokenizers: Sequence[Any]) -> bytes | None:
    """Packed hashes of the words every tokenizer encodes as one token (the intersection, so
    a profile bounding several tokenizers stays an upper bound); ``None`` when one of them
    cannot list its vocabulary."""
    sets = []
    for tok in tokenizers:
        vocabulary = getattr(tok, "vocabulary", None)
        if vocabulary is None:
            return None
        sets.append({word_hash(k) for k in one_token_keys(tok, vocabulary())})
    if not sets:
        return None
    return pack_hashes(set.intersection(*sets))


def encode_hashes(hashes: Iterable[int]) -> str:
    """Sorted distinct hashes, delta-coded as little-endian u32, zlib, base64."""
    values = np.unique(np.fromiter(hashes, dtype=np.uint64)).astype(np.uint32)
    deltas = np.diff(values, prepend=np.uint32(0)).astype("<u4")
    return base64.b64encode(zlib.compress(deltas.tobytes(), 9)).decode("ascii")


def decode_hashes(data: str) -> bytes:
    """``encode_hashes`` undone: the packed little-endian u32 hashes ``KnownWords`` takes.
    Raises ``ValueError`` for data that is not such an encoding."""
    try:
        raw = zlib.decompress(base64.b64decode(data.encode("ascii"), validate=True))
    except (binascii.Error, zlib.error, UnicodeEncodeError) as exc:
        raise ValueError(f"known words: not {ENCODING} data ({exc})") from None
    if len(raw) % 4:
        raise ValueError(f"known words: {len(raw)} bytes after decompression, not a multiple of 4")
    values = np.cumsum(np.frombuffer(raw, dtype="<u4"), dtype=np.uint64)
    if values.size and values[-1] > 0xFFFFFFFF:
        raise ValueError("known words: the deltas overflow 32 bits")
    return values.astype("<u4").tobytes()
