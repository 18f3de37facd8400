"""The calibrated token estimator: one pass counts features, each feature costs fixed tokens.

This module is the reference (the executable specification of the native
``calibrated_estimate``) and the dispatcher: ``estimate_calibrated`` uses the native function
when the native backend is live, else the reference.

Features of a text (``FEATURES``, in this order), counted over its code points; a lone
surrogate is a 3-byte sequence (its ``surrogatepass`` encoding), in ``u3_hangul``:

* ``doc``: 1 for a non-empty text (every non-empty text costs at least one token).
* one class per code point: ``lower`` a-z, ``upper`` A-Z, ``digit`` 0-9, ``space`` a space not
  after a space, ``space_repeat`` a space after a space (indentation), ``newline`` ``\\n``,
  ``other_ws`` tab, CR, VT, FF, ``punct`` other printable ASCII, ``ctrl`` other ASCII controls and
  DEL; two-byte sequences: ``u2_latin`` U+0080-U+02FF (accented Latin), ``u2_greek``
  U+0300-U+03FF (combining marks, Greek), ``u2_cyrillic`` U+0400-U+053F, ``u2_hebrew``
  U+0580-U+05FF (the end of Armenian, Hebrew), ``u2_rtl`` U+0540-U+057F and U+0600-U+07FF
  (Armenian, Arabic, Syriac, Thaana, NKo); three-byte: ``u3_deva_thai`` U+0900-U+097F and
  U+0E00-U+0E7F (Devanagari and Thai, which large vocabularies cover much better than the rest
  of the block), ``u3_indic`` the rest of U+0800-U+0FFF (Bengali, Tamil and other Indic scripts,
  Lao, Tibetan), ``u3_other`` U+1000-U+1FFF (Myanmar, Georgian,
  Ethiopic, Vietnamese letters, ...), ``u3_symbol`` U+2000-U+2FFF (dashes, curly quotes,
  arrows, math, box drawing), ``u3_kana`` U+3000-U+3FFF (CJK punctuation, kana), ``u3_cjk``
  U+4000-U+9FFF (CJK ideographs), ``u3_hangul`` U+A000-U+DFFF (Yi, Hangul syllables; lone
  surrogates land here too), ``u3_fullwidth`` U+E000-U+FFFF (private use, compatibility
  ideographs, fullwidth forms, U+FFFD); ``u4`` U+10000 and up. Each range is what one set of
  UTF-8 lead bytes covers, except ``u3_deva_thai``, which the lead byte 0xE0 and the second
  byte (0xA4, 0xA5, 0xB8, 0xB9) pick out.
* events: ``word_start`` a word-class character (ASCII letter or any ``u2_*``) not after one, or an upper
  after a lower (camelCase splits); ``digit_run`` a digit not after a digit; ``punct_run`` a
  ``punct`` not after one; ``punct_repeat`` a ``punct`` equal to the code point before it
  (counted there instead of in ``punct``: "=====" and "----" merge into few tokens);
  ``rare_bigram`` an ASCII letter after an ASCII letter where the case-folded pair is not in
  ``COMMON_BIGRAMS``.
* ``mixed_char``/``mixed_run``: an alphanumeric ASCII run ``[A-Za-z0-9]+`` of at least
  ``MIXED_MIN`` characters holding both letters and digits (hex, base64, ids), which tokenizers
  split finely, counts its characters in ``mixed_char`` and 1 in ``mixed_run`` *instead of* in
  lower/upper/digit/word_start/digit_run.
* ``known_word``: with a ``KnownWords`` set (the words a tokenizer's vocabulary holds as one
  token), a word found in it counts 1 here *instead of* in its letters' features (the space
  before it still counts in ``space``). A word is a maximal run of letters (``is_word_char``:
  ASCII letters, and two-byte letters: U+0080..U+07FF of category L* or M*,
  ``_unicode_tables.LETTER2_RANGES``) that neither follows nor precedes an ASCII digit.
  Its key is its UTF-8 bytes, with the space before it when there is one (``" the"`` and
  ``"the"`` are different tokens); the set holds ``word_hash(key)``, the low 32 bits of the
  key's XXH3-64. After a known word the "previous code point" is the word's last one, as if it
  had been counted.
* ``digit_piece``: per maximal run of ASCII digits (alone or inside an alphanumeric run), the
  pieces its tokenizer's pre-tokenizer cuts it into: ``ceil(len / digit_group)`` (``\\p{N}{1,3}``
  in cl100k, o200k, Llama 3 and DeepSeek: 3; one digit a piece in Qwen and Mistral: 1), or 1 for
  the whole run when ``digit_group`` is 0 (GPT-2 style, and without a ``KnownWords`` set). Each
  piece is at least one token whatever the text, which is why the fit keeps its cost >= 1.
* ``char_extra``: per non-ASCII code point outside known words, the tokens its tokenizer spends
  on it alone beyond the first (0-3, ``KnownWords.char_extra``, read from the tokenizer at fit
  time: a CJK character a byte-level BPE does not hold as one token costs 2-3, a SentencePiece
  byte fallback its UTF-8 length). Without a table, and at U+20000 and above, it is the UTF-8
  length less one, the byte-level worst case.
* ``punct_break``: per pair of ASCII marks side by side (inside a ``punct`` run) that no token of
  the tokenizer holds side by side (``KnownWords.punct_pairs``, from its vocabulary): the two
  lie in different tokens, so each such pair is one token more whatever the text (the fit keeps
  its cost >= 1). Without a table every pair counts.

The estimate of a text is ``ceil(sum(count[f] * cost[f]) / SCALE)``, at most
``limits.MAX_COUNT``, with integer costs in thousandths of a token, so both backends compute it
exactly in integers: no float summation order can make them disagree.

>>> classify("Hi 42!")["word_start"], classify("getHTTPResponse")["word_start"]
(1, 2)
>>> estimate_reference(["", "abc"], [1000] + [0] * (len(FEATURES) - 1))
[0, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import xxhash

from ctxsieve.kernels._unicode_tables import LETTER2_RANGES
from ctxsieve.kernels.limits import saturate
from ctxsieve.kernels.reference import check_str_list

FEATURES = (
    "doc",
    "lower",
    "upper",
    "digit",
    "space",
    "space_repeat",
    "newline",
    "other_ws",
    "punct",
    "ctrl",
    "u2_cyrillic",
    "u3_kana",
    "u3_cjk",
    "u3_other",
    "u4",
    "word_start",
    "digit_run",
    "punct_run",
    "mixed_char",
    "mixed_run",
    "rare_bigram",
    "punct_repeat",
    "u2_latin",
    "u3_symbol",
    "u2_greek",
    "u2_rtl",
    "u3_indic",
    "u3_hangul",
    "u3_fullwidth",
    "u2_hebrew",
    "u3_deva_thai",
    "known_word",
    "digit_piece",
    "char_extra",
    "punct_break",
)
DOC, LOWER, UPPER, DIGIT, SPACE, SPACE_REPEAT, NEWLINE, OTHER_WS, PUNCT, CTRL = range(10)
U2_CYRILLIC, U3_KANA, U3_CJK, U3_OTHER, U4 = range(10, 15)
WORD_START, DIGIT_RUN, PUNCT_RUN, MIXED_CHAR, MIXED_RUN, RARE_BIGRAM, PUNCT_REPEAT = range(15, 22)
U2_LATIN, U3_SYMBOL, U2_GREEK, U2_RTL, U3_INDIC, U3_HANGUL, U3_FULLWIDTH = range(22, 29)
U2_HEBREW, U3_DEVA_THAI, KNOWN_WORD, DIGIT_PIECE, CHAR_EXTRA, PUNCT_BREAK = range(29, 35)
U2_CLASSES = frozenset((U2_LATIN, U2_GREEK, U2_CYRILLIC, U2_RTL, U2_HEBREW))
WORD_CLASSES = frozenset((LOWER, UPPER)) | U2_CLASSES
NUM_FEATURES = len(FEATURES)
SCALE = 1000
MIXED_MIN = 6
MAX_COST = 1_000_000  # a thousand tokens per unit: far above any real cost, keeps sums in u128
EXTRA_LIMIT = 0x20000  # the char_extra table covers the code points below (2 bits each)
EXTRA_TABLE_BYTES = EXTRA_LIMIT // 4
MAX_DIGIT_GROUP = 16
PAIR_TABLE_BYTES = 128 * 128 // 8  # a bit per ordered pair of ASCII characters, a * 128 + b


def _ascii_class(b: int) -> int:
    if 0x61 <= b <= 0x7A:
        return LOWER
    if 0x41 <= b <= 0x5A:
        return UPPER
    if 0x30 <= b <= 0x39:
        return DIGIT
    if b == 0x20:
        return SPACE
    if b == 0x0A:
        return NEWLINE
    if b in (0x09, 0x0B, 0x0C, 0x0D):
        return OTHER_WS
    if 0x21 <= b <= 0x7E:
        return PUNCT
    return CTRL


_ASCII = [_ascii_class(b) for b in range(128)]

# The letter pairs that make up 97 % of the pairs inside words of English prose (the Python
# reference manual, fit half), case-folded: first letter -> the second letters. A pair inside
# an ASCII letter run that is not here is a ``rare_bigram``: gibberish, rot13, base64 letters and
# foreign words tokenize into many more pieces than English does, and this is how one pass sees it.
COMMON_BIGRAMS = {
    "a": "bcdgiklmnprstuvy",
    "b": "aeijloruy",
    "c": "acehiklortu",
    "d": "eiosu",
    "e": "acdefgilmnpqrstvwxy",
    "f": "aeioru",
    "g": "einru",
    "h": "aeio",
    "i": "abcdefglmnoprstv",
    "j": "e",
    "k": "e",
    "l": "adefilostuy",
    "m": "abeimopu",
    "n": "acdegilmnostuy",
    "o": "bcdfilmnoprstuvw",
    "p": "aeiloprty",
    "q": "u",
    "r": "adegimnorstuy",
    "s": "acehilopstuy",
    "t": "acehiorstuy",
    "u": "abcegilmnprst",
    "v": "aei",
    "w": "aehio",
    "x": "cept",
    "y": "npstw",
    "z": "",
}
_COMMON = {(ord(a) - 97) * 26 + ord(b) - 97 for a, seconds in COMMON_BIGRAMS.items() for b in seconds}


def char_class(cp: int) -> int:
    """The class of one code point (``SPACE`` before the space/space_repeat split)."""
    if cp < 0x80:
        return _ASCII[cp]
    # ranges follow UTF-8 lead bytes, so the native side classifies by one table lookup
    if cp < 0x800:
        if cp < 0x300:
            return U2_LATIN
        if cp < 0x400:
            return U2_GREEK
        if cp < 0x540:
            return U2_CYRILLIC
        return U2_HEBREW if 0x580 <= cp < 0x600 else U2_RTL
    if 0x900 <= cp < 0x980 or 0xE00 <= cp < 0xE80:
        return U3_DEVA_THAI
    if cp < 0x10000:
        for limit, cls in _U3:
            if cp < limit:
                return cls
    return U4


_U3 = (
    (0x1000, U3_INDIC),
    (0x2000, U3_OTHER),
    (0x3000, U3_SYMBOL),
    (0x4000, U3_KANA),
    (0xA000, U3_CJK),
    (0xE000, U3_HANGUL),
    (0x10000, U3_FULLWIDTH),
)


_LETTER2 = frozenset(cp for a, b in LETTER2_RANGES for cp in range(a, b + 1))


def is_word_char(cp: int) -> bool:
    """An ASCII letter or a two-byte letter: what a known word is made of."""
    if cp < 0x80:
        return 0x41 <= (cp & ~0x20) <= 0x5A
    return cp in _LETTER2


def word_hash(key: bytes) -> int:
    """The 32-bit hash a ``KnownWords`` set holds for a word's key (its UTF-8 bytes, with the
    space before it when there is one)."""
    return xxhash.xxh3_64_intdigest(key) & 0xFFFFFFFF


def pack_hashes(hashes: Iterable[int]) -> bytes:
    """Hashes as ``KnownWords`` takes them: sorted, distinct, little-endian u32."""
    return b"".join(h.to_bytes(4, "little") for h in sorted(set(hashes)))


class KnownWords:
    """The set of word hashes the ``known_word`` feature looks up (the reference of the native
    ``KnownWords``). ``hashes`` is a ``bytes`` of little-endian u32 values, any order.

    >>> k = KnownWords(pack_hashes([word_hash(b" the")]))
    >>> len(k), features(" the cat", k)[KNOWN_WORD]
    (1, 1)
    """

    __slots__ = ("_set", "char_extra", "digit_group", "packed", "punct_pairs")

    def __init__(
        self,
        hashes: bytes,
        char_extra: bytes | None = None,
        digit_group: int | None = 0,
        punct_pairs: bytes | None = None,
    ):
        if not isinstance(hashes, bytes):
            raise TypeError(f"known words: expected bytes, got {type(hashes).__name__}")
        if len(hashes) % 4:
            raise ValueError(f"known words: expected a multiple of 4 bytes (little-endian u32), got {len(hashes)}")
        self.char_extra, self.digit_group, self.punct_pairs = check_tables(char_extra, digit_group, punct_pairs)
        self.packed = hashes
        self._set = frozenset(int.from_bytes(hashes[i : i + 4], "little") for i in range(0, len(hashes), 4))

    def extra(self, cp: int) -> int:
        """``char_extra`` of one non-ASCII code point."""
        return char_extra(cp, self.char_extra)

    def __len__(self) -> int:
        return len(self._set)

    def __contains__(self, h: object) -> bool:
        return isinstance(h, int) and not isinstance(h, bool) and h in self._set


def check_tables(char_extra: Any, digit_group: Any, punct_pairs: Any = None) -> tuple[bytes | None, int, bytes | None]:
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
    return char_extra, digit_group, punct_pairs


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


def _known_end(text: str, i: int, known: KnownWords | None) -> int:
    """When a known word starts at ``i`` (the code point before it is neither a word character
    nor an ASCII digit), the index just past it; else -1."""
    n = len(text)
    j = i
    while j < n and is_word_char(ord(text[j])):
        j += 1
    if j < n and "0" <= text[j] <= "9":
        return -1
    start = i - 1 if i and text[i - 1] == " " else i
    return j if word_hash(text[start:j].encode("utf-8")) in known else -1  # type: ignore[operator]


def features(text: str, known: KnownWords | None = None) -> list[int]:
    """The feature counts of one text, indexed like ``FEATURES``."""
    f = [0] * NUM_FEATURES
    if not text:
        return f
    f[DOC] = 1
    prev = -1  # class of the previous code point, -1 at the start
    prev_word_char = False  # the previous code point is a word character
    # the pending alphanumeric ASCII run: its counts go to the regular features or to mixed_*
    run_len = run_letters = run_digits = run_lower = run_upper = run_words = run_digit_runs = run_rare = 0
    prev_letter = -1  # the previous code point folded to 0-25 when it was an ASCII letter

    def flush() -> None:
        nonlocal run_len, run_letters, run_digits, run_lower, run_upper, run_words, run_digit_runs, run_rare
        if run_len >= MIXED_MIN and run_letters and run_digits:
            f[MIXED_CHAR] += run_len
            f[MIXED_RUN] += 1
        else:
            f[LOWER] += run_lower
            f[UPPER] += run_upper
            f[DIGIT] += run_digits
            f[WORD_START] += run_words
            f[DIGIT_RUN] += run_digit_runs
            f[RARE_BIGRAM] += run_rare
        run_len = run_letters = run_digits = run_lower = run_upper = run_words = run_digit_runs = run_rare = 0

    look_up = known is not None and len(known) > 0
    table = None if known is None else known.char_extra
    group = 0 if known is None else known.digit_group
    pairs = None if known is None else known.punct_pairs
    digit_len = 0  # the current ASCII digit run, counted in digit_piece when it ends
    n = len(text)
    i = -1
    while i + 1 < n:
        i += 1
        ch = text[i]
        cp = ord(ch)
        c = char_class(cp)
        if digit_len and c != DIGIT:
            f[DIGIT_PIECE] += digit_pieces(digit_len, group)
            digit_len = 0
        word_char = is_word_char(cp)
        if look_up and word_char and not prev_word_char and prev != DIGIT:
            end = _known_end(text, i, known)
            if end > 0:
                # no alphanumeric run is pending: the code point before, if any, is not one
                f[KNOWN_WORD] += 1
                prev, prev_word_char, prev_letter = char_class(ord(text[end - 1])), True, -1
                i = end - 1
                continue
        prev_word_char = word_char
        letter = (cp | 0x20) - 0x61 if c == LOWER or c == UPPER else -1
        if letter >= 0 and prev_letter >= 0 and prev_letter * 26 + letter not in _COMMON:
            run_rare += 1
        prev_letter = letter
        if c == LOWER or c == UPPER or c == DIGIT:
            run_len += 1
            if c == DIGIT:
                digit_len += 1
                run_digits += 1
                if prev != DIGIT:
                    run_digit_runs += 1
            else:
                run_letters += 1
                if c == LOWER:
                    run_lower += 1
                else:
                    run_upper += 1
                if prev not in WORD_CLASSES or (c == UPPER and prev == LOWER):
                    run_words += 1
        else:
            if run_len:
                flush()
            if cp >= 0x80:
                f[CHAR_EXTRA] += char_extra(cp, table)
            if c == SPACE:
                f[SPACE_REPEAT if prev == SPACE else SPACE] += 1
            elif c in U2_CLASSES:
                f[c] += 1
                if prev not in WORD_CLASSES:
                    f[WORD_START] += 1
            elif c == PUNCT:
                if prev != PUNCT:
                    f[PUNCT_RUN] += 1
                elif not holds_pair(ord(text[i - 1]), cp, pairs):
                    f[PUNCT_BREAK] += 1
                # "=====", "----", "****": a repeated mark merges into few tokens
                f[PUNCT_REPEAT if prev == PUNCT and text[i - 1] == ch else PUNCT] += 1
            else:
                f[c] += 1
        prev = c
    if run_len:
        flush()
    if digit_len:
        f[DIGIT_PIECE] += digit_pieces(digit_len, group)
    return f


def classify(text: str) -> dict[str, int]:
    """``features(text)`` by name."""
    return dict(zip(FEATURES, features(text)))


def check_costs(costs: list[Any]) -> list[int]:
    """Costs are ``NUM_FEATURES`` ints in ``[0, MAX_COST]`` (the native side checks the same)."""
    if not isinstance(costs, list):
        raise TypeError(f"costs: expected a list, got {type(costs).__name__}")
    if len(costs) != NUM_FEATURES:
        raise ValueError(f"costs: expected {NUM_FEATURES} items (one per feature), got {len(costs)}")
    out = []
    for i, c in enumerate(costs):
        if isinstance(c, bool) or not isinstance(c, int):
            raise TypeError(f"costs[{i}]: expected an int, got {type(c).__name__}")
        if not 0 <= c <= MAX_COST:
            raise ValueError(f"costs[{i}]: must be in [0, {MAX_COST}], got {c}")
        out.append(c)
    return out


def _check_known(known: Any) -> KnownWords | None:
    if known is not None and not isinstance(known, KnownWords):
        raise TypeError(
            f"known: expected ctxsieve.kernels.calibrated.KnownWords or None (known_words() makes the one the "
            f"live backend takes), got {type(known).__name__}"
        )
    return known


def estimate_reference(texts: list[Any], costs: list[Any], known: KnownWords | None = None) -> list[int]:
    """``ceil(sum(features * costs) / SCALE)`` per text, in exact integer arithmetic."""
    if not isinstance(texts, list):
        raise TypeError(f"texts: expected a list of str, got {type(texts).__name__}")
    check_str_list("texts", texts)
    cs = check_costs(costs)
    kw = _check_known(known)
    out = []
    for t in texts:
        total = sum(n * c for n, c in zip(features(t, kw), cs))
        out.append(saturate(-(-total // SCALE)))  # at most MAX_COUNT, as every estimate
    return out


def known_words(
    hashes: bytes, char_extra: bytes | None = None, digit_group: int = 0, punct_pairs: bytes | None = None
) -> Any:
    """A ``KnownWords`` set on the live backend (native when loaded, else the reference)."""
    cls = _native_fn("KnownWords")
    return (KnownWords if cls is None else cls)(hashes, char_extra, digit_group, punct_pairs)


def _for_native(known: Any) -> Any:
    """The reference's ``KnownWords`` rebuilt natively (built with ``known_words`` it already
    is native; rebuilding a large set on every call is slow, so that is the way to make it)."""
    if isinstance(known, KnownWords):
        return _native_fn("KnownWords")(known.packed, known.char_extra, known.digit_group, known.punct_pairs)
    return known


def features_batch(texts: list[Any], known: Any = None) -> list[list[int]]:
    """``features`` of each text (used for fitting); ``known`` comes from ``known_words``.
    Natively, one call per feature with a one-hot cost vector: the estimate is then exactly that
    feature's count, so the native module needs no second entry point."""
    native = _native_fn("calibrated_estimate")
    if native is None:
        check_str_list("texts", texts)
        kw = _check_known(known)
        return [features(t, kw) for t in texts]
    one_hot = ([SCALE if i == j else 0 for i in range(NUM_FEATURES)] for j in range(NUM_FEATURES))
    known = _for_native(known)
    columns = [native(texts, costs, known) for costs in one_hot]
    return [list(row) for row in zip(*columns)]


def estimate_calibrated(texts: list[Any], costs: list[Any], known: Any = None) -> list[int]:
    """The estimate on the live backend: native when loaded, else the reference; ``known``
    comes from ``known_words`` (a reference set is rebuilt natively when needed)."""
    native = _native_fn("calibrated_estimate")
    if native is not None:
        return native(texts, costs, _for_native(known))  # type: ignore[no-any-return]
    return estimate_reference(texts, costs, known)


def live_estimate() -> Callable[[list[Any], list[Any], Any], list[int]]:
    """The live backend's estimate function itself, for callers that estimate on every model
    call with a ``known`` set from ``known_words``: the backend is fixed at import, so the
    dispatch ``estimate_calibrated`` does per call can be done once."""
    native = _native_fn("calibrated_estimate")
    return estimate_reference if native is None else native  # type: ignore[no-any-return]


def _native_fn(name: str) -> Any:
    from ctxsieve import kernels

    if kernels.backend() != "native":
        return None
    return getattr(kernels._impl, name, None)
