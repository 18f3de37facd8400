"""The lookups that see past one character (issue 16): CJK runs cut into the longest tokens a
tokenizer holds (``cjk_piece``), words keyed with the mark before them (``"\\u00a0word"``), two-byte
non-letters ending a word, and words looked up and not found (``unknown_word``), on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.kernels import calibrated as ref
from ctxsieve.tokenizers.vocab_pieces import cjk_hashes, cjk_pair_table, cjk_tokens, mark_word_keys, piece_tables

native: Any = pytest.importorskip("ctxsieve._native")

ONE_HOT = [[ref.SCALE if i == j else 0 for i in range(ref.NUM_FEATURES)] for j in range(ref.NUM_FEATURES)]
TOKENS = ["中文", "中文字", "文字", "日本語", "本語", "한국", "한국어", "です", "。「"]
WORDS = ["word", " word", "\u00a0is", "is", " the", "\u201cThe"]


def held(words: list[str], tokens: list[str]) -> bytes:
    return ref.pack_hashes({ref.word_hash(w.encode()) for w in words} | cjk_hashes(tokens))


def both(words: list[str], tokens: list[str], pairs: bytes | None = None) -> tuple[Any, ref.KnownWords]:
    packed = held(words, tokens)
    return native.KnownWords(packed, None, 0, None, pairs), ref.KnownWords(packed, None, 0, None, pairs)


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
    """A piece extends past its first character only where the pair table says a token may
    start (the native pass then skips the large set's probe), on both backends."""
    for pairs, want in ((cjk_pair_table([]), 4), (cjk_pair_table(["中文"]), 2), (None, 2)):
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


def test_cjk_runs_are_cut_into_the_longest_held_tokens() -> None:
    k = ref.KnownWords(held([], TOKENS))
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
    hashes, pairs = piece_tables([tok])
    assert hashes >= {ref.word_hash(k.encode()) for k in keys}
    assert pairs is not None and len(pairs) == ref.PIECE_PAIR_TABLE_BYTES
