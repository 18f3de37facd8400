"""The tokenizer-derived features ``digit_piece``, ``char_extra`` and ``punct_break`` (issue 16):
exact values, native/reference parity (hypothesis, every table and group), errors, and the
profile format."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.errors import ConfigError
from ctxsieve.kernels import calibrated as ref
from ctxsieve.tokenizers.profiles import Profile, profile_from_json
from ctxsieve.tokenizers.vocab_chars import decode_table, encode_table, pack_extra, unpack_extra

from .test_calibrated_parity import KEYS, TEXT, WORDY_TEXT

native: Any = pytest.importorskip("ctxsieve._native")
ONE_HOT = [[ref.SCALE if i == j else 0 for i in range(ref.NUM_FEATURES)] for j in range(ref.NUM_FEATURES)]


def table_of(values: dict[int, int], default: int = 0) -> bytes:
    extra = np.full(ref.EXTRA_LIMIT, default, dtype=np.int64)
    for cp, v in values.items():
        extra[cp] = v
    return pack_extra(extra)


def pairs_of(*pairs: str) -> bytes:
    bits = bytearray(ref.PAIR_TABLE_BYTES)
    for a, b in pairs:
        bit = ord(a) << 7 | ord(b)
        bits[bit >> 3] |= 1 << (bit & 7)
    return bytes(bits)


RANDOM = pack_extra(np.random.default_rng(16).integers(0, 4, ref.EXTRA_LIMIT))
TABLES = [None, table_of({}), table_of({}, 3), RANDOM]
RANDOM_PAIRS = np.random.default_rng(17).integers(0, 256, ref.PAIR_TABLE_BYTES, dtype=np.uint8).tobytes()
PAIR_TABLES = [None, bytes(ref.PAIR_TABLE_BYTES), b"\xff" * ref.PAIR_TABLE_BYTES, RANDOM_PAIRS]


def both(
    hashes: bytes = b"", table: bytes | None = None, group: int = 0, pairs: bytes | None = None
) -> tuple[Any, ref.KnownWords]:
    return native.KnownWords(hashes, table, group, pairs), ref.KnownWords(hashes, table, group, pairs)


def native_features(texts: list[str], known: Any) -> list[list[int]]:
    columns = [native.calibrated_estimate(texts, costs, known) for costs in ONE_HOT]
    return [list(row) for row in zip(*columns)]


def counts(text: str, known: Any) -> tuple[int, int]:
    f = ref.features(text, known)
    return f[ref.DIGIT_PIECE], f[ref.CHAR_EXTRA]


@pytest.mark.parametrize(
    ("text", "group", "pieces"),
    [
        ("1234567", 3, 3),  # \p{N}{1,3}: 123 456 7
        ("1234567", 1, 7),  # one digit a piece
        ("1234567", 0, 1),  # the whole run
        ("12 345 6", 3, 3),
        ("1712791421000", 3, 5),  # a millisecond timestamp
        ("id ab12345cd9", 3, 3),  # inside an alphanumeric (mixed) run too: 123 45 | 9
        ("x", 3, 0),
    ],
)
def test_digit_pieces(text: str, group: int, pieces: int) -> None:
    theirs, ours = both(group=group)
    assert counts(text, ours)[0] == pieces
    assert native_features([text], theirs)[0][ref.DIGIT_PIECE] == pieces


def test_char_extra_reads_the_table_and_defaults_to_the_utf8_length() -> None:
    table = table_of({ord("中"): 2, ord("ñ"): 1, 0x1F600: 3})
    theirs, ours = both(table=table)
    # 中 2, あ 0 (not in the table), 😀 3; ASCII never counts
    assert counts("中あ😀 a", ours)[1] == 5
    # at U+20000 and above the table does not reach: UTF-8 length less one
    assert counts("\U00020000", ours)[1] == 3
    # no table (and no set at all): every character its UTF-8 length less one
    assert counts("é中😀", ref.KnownWords(b""))[1] == 1 + 2 + 3
    assert ref.features("é中😀")[ref.CHAR_EXTRA] == 6
    texts = ["中あ😀 a", "\U00020000", "é中😀"]
    assert native_features(texts, theirs) == [ref.features(t, ours) for t in texts]


def test_char_extra_skips_known_words() -> None:
    """A known word costs one token in ``known_word``: its letters' extra tokens are not counted."""
    table = table_of({ord("ñ"): 1})
    packed = ref.pack_hashes([ref.word_hash(" señor".encode())])
    theirs, ours = both(packed, table)
    # " señor" is known; "señora" (another word) is priced by its letters, ñ with it
    assert counts(" señor señora", ours)[1] == 1
    assert native_features([" señor señora"], theirs) == [ref.features(" señor señora", ours)]


def test_punct_breaks_are_pairs_no_token_holds() -> None:
    theirs, ours = both(pairs=pairs_of("()", ");"))
    # "();" holds both pairs; ";(" and "|&" are not held; a letter ends a run of marks
    text = "(); ;( |&a)"
    assert ref.features(text, ours)[ref.PUNCT_BREAK] == 2
    # without a table every pair of marks is a boundary
    assert ref.features(text)[ref.PUNCT_BREAK] == 4
    assert native_features([text], theirs) == [ref.features(text, ours)]
    assert native_features([text], native.KnownWords(b"")) == [ref.features(text)]


MARKS = st.text(st.sampled_from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ a1é"), max_size=40)


@given(
    st.lists(st.one_of(TEXT, WORDY_TEXT, MARKS, st.from_regex(r"[0-9a-f ]{0,40}", fullmatch=True)), max_size=8),
    st.sampled_from(range(len(TABLES))),
    st.integers(0, ref.MAX_DIGIT_GROUP),
    st.sampled_from(range(len(PAIR_TABLES))),
    st.lists(st.sampled_from(KEYS), unique=True),
)
def test_tables_agree(texts: list[str], table: int, group: int, pairs: int, keys: list[bytes]) -> None:
    packed = ref.pack_hashes(ref.word_hash(k) for k in keys)
    theirs, ours = both(packed, TABLES[table], group, PAIR_TABLES[pairs])
    assert native_features(texts, theirs) == [ref.features(t, ours) for t in texts]
    rng = random.Random(len(texts))
    costs = [rng.randrange(ref.MAX_COST) for _ in range(ref.NUM_FEATURES)]
    assert native.calibrated_estimate(texts, costs, theirs) == ref.estimate_reference(texts, costs, ours)


def test_reference_rebuilt_natively_keeps_its_tables() -> None:
    """``estimate_calibrated`` hands a reference set to the native side with its tables."""
    ours = ref.KnownWords(b"", table_of({ord("中"): 2}), 3, pairs_of("()"))
    want = ref.estimate_reference(["中 1234"], ONE_HOT[ref.CHAR_EXTRA], ours)
    assert want == [2]
    assert ref.estimate_calibrated(["中 1234"], ONE_HOT[ref.CHAR_EXTRA], ours) == want
    assert ref.estimate_calibrated(["中 1234"], ONE_HOT[ref.DIGIT_PIECE], ours) == [2]
    assert ref.estimate_calibrated(["();"], ONE_HOT[ref.PUNCT_BREAK], ours) == [1]


@pytest.mark.parametrize(
    ("table", "group", "error", "pairs"),
    [
        ("ab", 0, TypeError, None),
        (bytearray(ref.EXTRA_TABLE_BYTES), 0, TypeError, None),
        (b"\0" * 7, 0, ValueError, None),
        (b"\0" * (ref.EXTRA_TABLE_BYTES + 1), 0, ValueError, None),
        (None, True, TypeError, None),
        (None, 1.0, TypeError, None),
        (None, "3", TypeError, None),
        (None, -1, ValueError, None),
        (None, ref.MAX_DIGIT_GROUP + 1, ValueError, None),
        (None, 2**70, ValueError, None),
        (b"\0", "x", ValueError, None),  # checked in order: the table first
        (None, 0, TypeError, "ab"),
        (None, 0, ValueError, b"\0" * 3),
        (None, -1, ValueError, b"\0" * 3),  # the group before the pairs
    ],
)
def test_table_errors_agree(table: Any, group: Any, error: type[Exception], pairs: Any) -> None:
    with pytest.raises(error) as theirs:
        native.KnownWords(b"", table, group, pairs)
    with pytest.raises(error) as ours:
        ref.KnownWords(b"", table, group, pairs)
    assert str(theirs.value) == str(ours.value)
    assert "known words:" in str(ours.value)


def test_tables_round_trip_a_profile() -> None:
    costs = {f: 1 for f in ref.FEATURES}
    p = Profile("t", costs, char_extra=RANDOM, digit_group=3, punct_pairs=RANDOM_PAIRS)
    back = profile_from_json(p.to_json(), "t.json")
    assert back.char_extra == RANDOM and back.digit_group == 3 and back.punct_pairs == RANDOM_PAIRS
    assert (unpack_extra(RANDOM)[:8] == np.random.default_rng(16).integers(0, 4, 8)).all()
    assert decode_table(encode_table(RANDOM)) == RANDOM
    # a profile without tables: none, and group 0
    plain = profile_from_json({"costs": {"doc": 1}}, "p.json")
    assert plain.char_extra is None and plain.digit_group == 0 and plain.tables() is None


@pytest.mark.parametrize(
    ("extra", "group", "match"),
    [
        ({"encoding": "zlib-base64", "data": "!!"}, 0, "char_extra: not zlib-base64"),
        ({"encoding": "zlib-base64", "data": encode_table(b"\0" * 9)}, 0, "expected 32768 bytes"),
        ({"encoding": "raw", "data": ""}, 0, "'char_extra' must be an object"),
        (None, 99, r"digit_group: must be in \[0, 16\], got 99"),
        (None, "3", "digit_group: expected an int"),
    ],
)
def test_malformed_tables_name_the_profile(extra: Any, group: Any, match: str) -> None:
    data0: dict[str, Any] = {
        "costs": {"doc": 1},
        "punct_pairs": {"encoding": "zlib-base64", "data": encode_table(b"1")},
    }
    with pytest.raises(ConfigError, match="punct_pairs: expected 2048 bytes"):
        profile_from_json(data0, "mine.json")
    data: dict[str, Any] = {"costs": {"doc": 1}, "digit_group": group}
    if extra is not None:
        data["char_extra"] = extra
    with pytest.raises(ConfigError, match=match) as err:
        profile_from_json(data, "mine.json")
    assert "profile mine.json" in str(err.value)
