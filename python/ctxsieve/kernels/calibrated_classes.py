"""Feature indices and character classes of the calibrated estimator (``calibrated``: the
specification of every feature): the class of each code point, the two-byte letters a known word
may hold, and the common English letter pairs."""

from __future__ import annotations

from ctxsieve.kernels._unicode_tables import LETTER2_RANGES

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
    "cjk_piece",
    "unknown_word",
    "ws_word",
    "space_break",
)
DOC, LOWER, UPPER, DIGIT, SPACE, SPACE_REPEAT, NEWLINE, OTHER_WS, PUNCT, CTRL = range(10)
U2_CYRILLIC, U3_KANA, U3_CJK, U3_OTHER, U4 = range(10, 15)
WORD_START, DIGIT_RUN, PUNCT_RUN, MIXED_CHAR, MIXED_RUN, RARE_BIGRAM, PUNCT_REPEAT = range(15, 22)
U2_LATIN, U3_SYMBOL, U2_GREEK, U2_RTL, U3_INDIC, U3_HANGUL, U3_FULLWIDTH = range(22, 29)
U2_HEBREW, U3_DEVA_THAI, KNOWN_WORD, DIGIT_PIECE, CHAR_EXTRA, PUNCT_BREAK, CJK_PIECE, UNKNOWN_WORD = range(29, 37)
WS_WORD, SPACE_BREAK = 37, 38
U2_CLASSES = frozenset((U2_LATIN, U2_GREEK, U2_CYRILLIC, U2_RTL, U2_HEBREW))
WORD_CLASSES = frozenset((LOWER, UPPER)) | U2_CLASSES
NUM_FEATURES = len(FEATURES)
SCALE = 1000
MIXED_MIN = 6
MAX_COST = 1_000_000  # a thousand tokens per unit: far above any real cost, keeps sums in u128
# at most this many cost vectors (bounds) in one estimate: each is one dot product after the pass
MAX_BOUNDS = 8
EXTRA_LIMIT = 0x20000  # the char_extra table covers the code points below (2 bits each)
EXTRA_TABLE_BYTES = EXTRA_LIMIT // 4
MAX_DIGIT_GROUP = 16
PAIR_TABLE_BYTES = 128 * 128 // 8  # a bit per ordered pair of ASCII characters, a * 128 + b
MAX_PIECE_CHARS = 8  # the longest CJK token a cjk_piece looks for, in characters
# a bit per hashed pair of CJK characters that starts some multi-character token (64 KB, so the
# native pass keeps it in cache): a cjk_piece looks a run up only where the pair's bit is set
PIECE_PAIR_BITS = 19
PIECE_PAIR_TABLE_BYTES = 1 << (PIECE_PAIR_BITS - 3)
# the hash of a run of piece characters that the cjk_tokens table keys on (``piece_step``): per
# code point one xor and one multiply, mod 2**64, from PIECE_HASH_SEED; a prefix's fingerprint
# is the top PIECE_FINGERPRINT_BITS of its hash, stored beside two flags
PIECE_HASH_SEED = 0x243F_6A88_85A3_08D3
PIECE_HASH_MULT = 0x9E37_79B9_7F4A_7C15
PIECE_FINGERPRINT_BITS = 30
PIECE_TOKEN = 1  # the prefix is a token itself
PIECE_LONGER = 2  # some longer token starts with it


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


def is_piece_char(cp: int) -> bool:
    """A character of the runs ``cjk_piece`` cuts: CJK punctuation, kana and ideographs
    (U+3000-U+9FFF) and Hangul syllables (U+AC00-U+D7A3)."""
    return 0x3000 <= cp < 0xA000 or 0xAC00 <= cp <= 0xD7A3


def is_mark_before_word(cp: int) -> bool:
    """A character that a byte-level pre-tokenizer joins to the word after it and that keys the
    word's lookup (``"\u00a0word"``, not ``"word"``): a two-byte non-letter (U+00A0, guillemets,
    ...), General Punctuation (U+2000-U+206F: spaces, zero-width characters, dashes, curly quotes,
    the word joiner) and the BOM."""
    return (0x80 <= cp < 0x800 and cp not in _LETTER2) or 0x2000 <= cp < 0x2070 or cp == 0xFEFF
