"""The lookups that see past one character (issue 16): CJK runs cut into the longest tokens a
tokenizer holds (``cjk_piece``), words keyed with the mark before them (``"\\u00a0word"``), two-byte
non-letters ending a word, and words looked up and not found (``unknown_word``), on both backends.

The CJK tokens come in two layouts: ``cjk_tokens`` (the tokens themselves, their table built on
load) and, in profiles written before it, their hashes in the known-word set with a ``cjk_pairs``
table ("legacy" below), still read as before."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.kernels import calibrated as ref
from ctxsieve.tokenizers.vocab_pieces import (
    cjk_hashes,
    cjk_pair_table,
    cjk_tokens,
    decode_tokens,
    encode_tokens,
    mark_word_keys,
    piece_tables,
)

native: Any = pytest.importorskip("ctxsieve._native")

ONE_HOT = [[ref.SCALE if i == j else 0 for i in range(ref.NUM_FEATURES)] for j in range(ref.NUM_FEATURES)]
TOKENS = ["中文", "中文字", "文字", "日本語", "本語", "한국", "한국어", "です", "。「"]
WORDS = ["word", " word", "\u00a0is", "is", " the", "\u201cThe"]


def held(words: list[str], tokens: list[str]) -> bytes:
    return ref.pack_hashes({ref.word_hash(w.encode()) for w in words} | cjk_hashes(tokens))


def both(words: list[str], tokens: list[str], pairs: bytes | None = None) -> tuple[Any, ref.KnownWords]:
    """Legacy sets: the tokens' hashes in the set, the pairs in ``cjk_pairs``."""
    packed = held(words, tokens)
    return native.KnownWords(packed, None, 0, None, pairs), ref.KnownWords(packed, None, 0, None, pairs)


def both_tokens(words: list[str], tokens: list[str]) -> tuple[Any, ref.KnownWords]:
    """Sets with a ``cjk_tokens`` table."""
    packed, table = held(words, []), ref.pack_piece_tokens(tokens)
    return native.KnownWords(packed, None, 0, None, None, table), ref.KnownWords(packed, None, 0, None, None, table)


def native_features(texts: list[str], known: Any) -> list[list[int]]:
    columns = [native.calibrated_estimate(texts, costs, known) for costs in ONE_HOT]
    return [list(row) for row in zip(*columns)]


PARTS = [
    *TOKENS,
    *"中文字典日本語한국어あ。「」",
    "word",
    "is",
    "The",
    " ",
    "\u00a0",
    "\u201c",
    "\ufeff",
    "\u200d",
    "×",
    "é",
    "(",
    "1",
    "\ud800",
    "😀",
]
PIECE_TEXT = st.lists(st.one_of(st.sampled_from(PARTS), st.characters(codec=None)), max_size=50).map("".join)


@given(
    st.lists(PIECE_TEXT, max_size=6),
    st.lists(st.sampled_from(TOKENS), unique=True),
    st.lists(st.sampled_from(TOKENS), unique=True),
    st.booleans(),
)
def test_pieces_agree_on_both_backends(texts: list[str], tokens: list[str], paired: list[str], table: bool) -> None:
    """Any set, with a pair table that covers some of its tokens (or none at all)."""
    theirs, ours = both(WORDS, tokens, cjk_pair_table(paired) if table else None)
    assert native_features(texts, theirs) == [ref.features(t, ours) for t in texts]


def test_the_pair_table_gates_the_lookup() -> None:
    """Legacy: a piece extends past its first character only where the pair table says a token
    may start (the native pass then skips the large set's probe), on both backends; a set
    without a pair table cuts no pieces (no profile written so holds CJK tokens)."""
    for pairs, want in ((cjk_pair_table([]), 4), (cjk_pair_table(["中文"]), 2), (None, 4)):
        theirs, ours = both([], ["中文", "中文字"], pairs)
        assert native_features(["中文字典"], theirs)[0][ref.CJK_PIECE] == want
        assert ref.features("中文字典", ours)[ref.CJK_PIECE] == want


@pytest.mark.parametrize(
    ("pairs", "error", "match"),
    [
        (b"\0" * 3, ValueError, "cjk_pairs: expected 65536 bytes"),
        (bytearray(65536), TypeError, "cjk_pairs: expected bytes or None, got bytearray"),
    ],
)
def test_pair_table_errors_agree(pairs: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match) as theirs:
        native.KnownWords(b"", None, 0, None, pairs)
    with pytest.raises(error, match=match) as ours:
        ref.KnownWords(b"", None, 0, None, pairs)
    assert str(theirs.value) == str(ours.value)


@pytest.mark.parametrize("layout", ["tokens", "legacy"])
def test_cjk_runs_are_cut_into_the_longest_held_tokens(layout: str) -> None:
    if layout == "tokens":
        k = ref.KnownWords(b"", cjk_tokens=ref.pack_piece_tokens(TOKENS))
    else:
        k = ref.KnownWords(held([], TOKENS), cjk_pairs=cjk_pair_table(TOKENS))
    pieces = [ref.features(t, k)[ref.CJK_PIECE] for t in ("中文字典", "中文典", "日本語です", "한국어 한", "中")]
    # 中文字|典, 中文|典, 日本語|です, 한국어| |한, 中
    assert pieces == [2, 2, 2, 2, 1]
    # a character inside a held token has no extra of its own: only 典's (2 without a table)
    assert ref.features("中文字典", k)[ref.CHAR_EXTRA] == 2
    # without a set every character is a piece with its extra
    assert ref.features("中文字典")[ref.CJK_PIECE] == 4
    assert ref.features("中文字典")[ref.CHAR_EXTRA] == 8


def test_a_mark_before_a_word_keys_its_lookup() -> None:
    k = ref.KnownWords(held(WORDS, []))
    known = [ref.features(t, k)[ref.KNOWN_WORD] for t in ("\u00a0word", "\u00a0is", "\u201cThe", "(word", "é word")]
    # "\u00a0word" is not held (the set has "word" and "\u00a0is"); after "(" the bare key is used
    assert known == [0, 1, 1, 1, 1]
    assert ref.features("\u00a0word is", k)[ref.UNKNOWN_WORD] == 2  # "\u00a0word", " is"
    assert ref.is_mark_before_word(0xA0) and ref.is_mark_before_word(0xFEFF) and ref.is_mark_before_word(0x200D)
    assert not ref.is_mark_before_word(ord("é")) and not ref.is_mark_before_word(ord("中"))


def test_a_two_byte_non_letter_ends_a_word() -> None:
    """The letters after U+00A0 start a word of their own (before, U+00A0 counted as part of
    the word: a page of ``word\\u00a0word`` had one word start a line)."""
    assert ref.classify("one\u00a0two\u00a0three")["word_start"] == 3
    assert ref.classify("naïve señor")["word_start"] == 2  # two-byte letters still continue one
    assert native_features(["one\u00a0two\u00a0three"], None)[0][ref.WORD_START] == 3


def test_vocabulary_sets() -> None:
    vocab = ["中文", "中", "中文字典典典典典典", "abc", "한국", " 한국", "ですか", "中a"]
    assert cjk_tokens(vocab) == {"中文", "한국", "ですか"}
    hashes = cjk_hashes(["ですか"])
    assert ref.word_hash("ですか".encode()) in hashes
    assert {ref.prefix_hash(p.encode()) for p in ("です", "ですか")} <= hashes
    assert ref.word_hash("です".encode()) not in hashes  # a prefix is not a token


@pytest.mark.parametrize("family", ["qwen", "o200k", "cl100k"])
def test_mark_keys_are_what_the_tokenizer_holds(family: str) -> None:
    from ctxsieve.tokenizers.packaged import packaged_tokenizer

    try:
        tok = packaged_tokenizer(family)
    except Exception as exc:  # the package is a dev extra
        pytest.skip(f"{family}: {exc}")
    keys = mark_word_keys(tok, tok.vocabulary())
    (base,) = tok.count(["\n"])
    assert all(n - base == 1 for n in tok.count(["\n" + k for k in sorted(keys)]))
    assert "\u00a0the" not in keys  # every family spends two tokens on it
    hashes, tokens = piece_tables([tok])
    assert hashes == {ref.word_hash(k.encode()) for k in keys}
    assert tokens == cjk_tokens(tok.vocabulary())


# --- the cjk_tokens table ---

PIECE_CHARS = st.one_of(
    st.characters(min_codepoint=0x3000, max_codepoint=0x9FFF),
    st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),
)
RANDOM_TOKENS = st.lists(st.text(PIECE_CHARS, min_size=2, max_size=ref.MAX_PIECE_CHARS), max_size=30)


@given(st.data(), RANDOM_TOKENS)
def test_piece_tokens_agree_on_both_backends(data: Any, tokens: list[str]) -> None:
    """Random CJK tokens; texts made of them, their prefixes and extensions, other piece
    characters, astral characters, lone surrogates and other scripts."""
    pieces = [t[:k] for t in tokens for k in range(1, len(t) + 1)] or ["中"]
    part = st.one_of(
        st.sampled_from(pieces),
        st.sampled_from(tokens or ["中文"]).map(lambda t: t + "字"),
        PIECE_CHARS,
        st.sampled_from(PARTS),
        st.characters(min_codepoint=0x10000),
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
        st.characters(codec=None),
    )
    texts = data.draw(st.lists(st.lists(part, max_size=40).map("".join), max_size=6))
    theirs, ours = both_tokens(WORDS, tokens)
    assert native_features(texts, theirs) == [ref.features(t, ours) for t in texts]
    # the legacy layout of the same tokens cuts the same pieces (barring hash collisions, which
    # a few dozen tokens do not meet)
    old_theirs, old_ours = both(WORDS, tokens, cjk_pair_table(tokens) if tokens else None)
    if tokens:
        assert [ref.features(t, old_ours) for t in texts] == [ref.features(t, ours) for t in texts]
        assert native_features(texts, old_theirs) == native_features(texts, theirs)


# two 4-character strings whose piece_step fingerprints are equal (found by a birthday search):
# a table holding one as a token gives the other a token's flag, on both backends alike, which
# an independent hash on either side would not
COLLIDING = ("冞籺榘荘", "犳特朙霄")


def test_the_fingerprint_is_the_same_on_both_backends() -> None:
    a, b = COLLIDING
    assert ref.piece_fingerprint(a) == ref.piece_fingerprint(b) and a != b
    assert ref.piece_fingerprint("中文") == 619801734  # the Rust unit test checks the same value
    # b + "中" makes b's prefixes held (not b itself); a makes a's fingerprint, b's too, a token
    theirs, ours = both_tokens([], [a, b + "中"])
    texts = [a, b, b[:3] + "霉", "犳特朙"]
    want = [1, 1, 4, 3]  # b is one piece by the collision; its neighbours are not
    assert [ref.features(t, ours)[ref.CJK_PIECE] for t in texts] == want
    assert [row[ref.CJK_PIECE] for row in native_features(texts, theirs)] == want
    entries = ref.piece_entries([a, b + "中"])
    assert entries[ref.piece_fingerprint(b)] == ref.PIECE_TOKEN | ref.PIECE_LONGER


def test_piece_flags_say_token_and_longer() -> None:
    entries = ref.piece_entries(["中文", "中文字典"])
    fp = ref.piece_fingerprint
    assert entries == {
        fp("中文"): ref.PIECE_TOKEN | ref.PIECE_LONGER,
        fp("中文字"): ref.PIECE_LONGER,
        fp("中文字典"): ref.PIECE_TOKEN,
    }
    # 中文字 is held as a prefix only: 中文|字
    theirs, ours = both_tokens([], ["中文", "中文字典"])
    for text, want in (("中文字", 2), ("中文字典", 1), ("中文字典典", 2), ("中文中文", 2)):
        assert ref.features(text, ours)[ref.CJK_PIECE] == want
        assert native_features([text], theirs)[0][ref.CJK_PIECE] == want
    # an empty table cuts no pieces; tokens of eight characters are the longest looked for
    theirs, ours = both_tokens([], [])
    assert ref.features("中文", ours)[ref.CJK_PIECE] == native_features(["中文"], theirs)[0][ref.CJK_PIECE] == 2
    eight = "一二三四五六七八"
    theirs, ours = both_tokens([], [eight])
    assert (
        ref.features(eight + "九", ours)[ref.CJK_PIECE]
        == native_features([eight + "九"], theirs)[0][ref.CJK_PIECE]
        == 2
    )


@pytest.mark.parametrize(
    ("table", "pairs", "error", "match"),
    [
        (b"\xff", None, ValueError, "cjk_tokens: not UTF-8 \\(at byte 0\\)"),
        ("中文\n字".encode(), None, ValueError, "cjk_tokens: token 1: expected 2 to 8 characters"),
        ("中文\n".encode(), None, ValueError, "cjk_tokens: token 1: expected"),
        ("中文a".encode(), None, ValueError, "cjk_tokens: token 0: expected"),
        ("一二三四五六七八九".encode(), None, ValueError, "cjk_tokens: token 0: expected"),
        ("中\ud800".encode("utf-8", "surrogatepass"), None, ValueError, "cjk_tokens: not UTF-8 \\(at byte 3\\)"),
        (bytearray(b""), None, TypeError, "cjk_tokens: expected bytes or None, got bytearray"),
        ("中文".encode(), bytes(ref.PIECE_PAIR_TABLE_BYTES), ValueError, "cjk_pairs: not with cjk_tokens"),
        (bytearray(b""), b"\0", ValueError, "cjk_pairs: expected 65536 bytes"),  # the pairs are checked first
    ],
)
def test_piece_token_errors_agree(table: Any, pairs: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match) as theirs:
        native.KnownWords(b"", None, 0, None, pairs, table)
    with pytest.raises(error, match=match) as ours:
        ref.KnownWords(b"", None, 0, None, pairs, table)
    assert str(theirs.value) == str(ours.value)


def test_tokens_encoding_round_trips_and_refuses_junk() -> None:
    packed = ref.pack_piece_tokens(["中文", "한국", "中文"])
    assert packed == "中文\n한국".encode() and decode_tokens(encode_tokens(packed)) == packed
    with pytest.raises(ValueError, match="cjk_tokens: not zlib-utf8-lines-base64 data"):
        decode_tokens("not base64!")
    with pytest.raises(ValueError, match="cjk_tokens: not zlib-utf8-lines-base64 data"):
        decode_tokens(encode_tokens(packed)[:-4])
