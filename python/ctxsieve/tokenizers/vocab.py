"""Known words: the words a tokenizer encodes as one token, for the ``known_word`` feature.

A word here is what the calibrated estimator looks up (see ``ctxsieve.kernels.calibrated``): a
run of ASCII letters and two-byte letters, with or without the space before it. Candidates come
from the tokenizer's vocabulary (every token that is such a word, with its leading space
stripped); each is then checked by counting, in both forms, so the set says what the tokenizer
does rather than what its vocabulary file suggests. The spaced form is only ever looked up after
a space, so ``"a" + " word"`` must cost exactly one token more than ``"a"``. The bare form must
cost one token after each of ``BARE_CONTEXTS``: a newline only, although the estimator also looks
it up at the start of a text and after a mark. A byte-level BPE may merge a mark into the word
after it (after ``(``, 5.1 % of cl100k's bare words and 3.0 % of o200k's take two tokens or
more; a SentencePiece model marks the start of a text like a space), but requiring one token
after ``(``, ``"``, ``.``, ``_``, ``/`` and at the start as well dropped up to 31 % of a
byte-level BPE's bare words (60 % of Mistral SentencePiece's) and raised the held-out over-count
of cl100k, o200k and Llama 3 above 20 % (docs/tokenizers.md); the fitted costs and margins absorb
the difference on natural text instead.

Sets are stored in a profile as ``encode_hashes``: the sorted 32-bit word hashes, delta-coded,
zlib-compressed and base64-encoded (about 2.8 bytes a word).

>>> decode_hashes(encode_hashes([7, 3, 3])) == pack_hashes([3, 7])
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ctxsieve.kernels.calibrated import is_word_char, pack_hashes, word_hash
from ctxsieve.tokenizers.base import Tokenizer
from ctxsieve.tokenizers.packed import deflate, inflate_bounded

ENCODING = "zlib-delta-u32le-base64"
# what precedes a bare word in the check (see the module docstring for why only a newline)
BARE_CONTEXTS = ("\n",)
MAX_WORDS = 16_000_000  # a profile holding more is refused (a guard against a zip bomb)


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
    (base,) = tok.count(["a"])
    spaced = tok.count(["a " + w for w in words])
    keys = [(" " + w).encode("utf-8") for w, n in zip(words, spaced) if n - base == 1]
    bare = words
    for prefix in BARE_CONTEXTS:
        (base,) = tok.count([prefix])
        bare = [w for w, n in zip(bare, tok.count([prefix + w for w in bare])) if n - base == 1]
    return keys + [w.encode("utf-8") for w in bare]


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
    """Sorted distinct hashes (each in ``[0, 2**32)``), delta-coded as little-endian u32, zlib,
    base64."""
    listed = list(hashes)
    for h in listed:
        if isinstance(h, bool) or not isinstance(h, int) or not 0 <= h <= 0xFFFFFFFF:
            raise ValueError(f"known words: a hash must be an int in [0, 2**32), got {h!r}")
    values = np.unique(np.array(listed, dtype=np.uint64)).astype(np.uint32)
    deltas = np.diff(values, prepend=np.uint32(0)).astype("<u4")
    return deflate(deltas.tobytes())


def decode_hashes(data: str) -> bytes:
    """``encode_hashes`` undone: the packed little-endian u32 hashes ``KnownWords`` takes.
    Raises ``ValueError`` for data that is not exactly such an encoding."""
    limit = 4 * MAX_WORDS
    raw, whole = inflate_bounded(data, limit, "known words", ENCODING)
    if len(raw) > limit:
        raise ValueError(f"known words: more than {MAX_WORDS} hashes")
    if not whole:
        raise ValueError(f"known words: not {ENCODING} data (truncated, or bytes after the stream)")
    if len(raw) % 4:
        raise ValueError(f"known words: {len(raw)} bytes after decompression, not a multiple of 4")
    values = np.cumsum(np.frombuffer(raw, dtype="<u4"), dtype=np.uint64)
    if values.size and values[-1] > 0xFFFFFFFF:
        raise ValueError("known words: the deltas overflow 32 bits")
    return values.astype("<u4").tobytes()
