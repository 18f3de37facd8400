"""The native calibrated estimator equals the reference on every input, errors included.

Features are compared through one-hot cost vectors: with cost SCALE on feature j and 0 elsewhere
the estimate is exactly that feature's count, so the classifier itself is checked."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.kernels import calibrated as ref

N = ref.NUM_FEATURES

native: Any = pytest.importorskip("ctxsieve._native")
if not hasattr(native, "calibrated_estimate"):  # an extension built before issue 7
    pytest.skip("ctxsieve._native has no calibrated_estimate", allow_module_level=True)

ONE_HOT = [[ref.SCALE if i == j else 0 for i in range(ref.NUM_FEATURES)] for j in range(ref.NUM_FEATURES)]
# every code point, lone surrogates included, weighted toward the classes' edges
ANY_CHAR = st.characters(codec=None, exclude_categories=())
EDGES = st.sampled_from(
    [
        *"aZz09 \n\t\r\x0b\x0c\x00\x7f!~_-'",
        "é",
        "\u057f",
        "\u0580",
        "\u05ff",
        "\u0600",
        "\u07ff",
        "\u0800",
        "\u08ff",
        "\u0900",
        "\u097f",
        "\u0980",
        "\u0dff",
        "\u0e00",
        "\u0e7f",
        "\u0e80",
        "\u2fff",
        "\u3000",
        "あ",
        "\u3fff",
        "\u4000",
        "中",
        "\u9fff",
        "\ua000",
        "\ud800",
        "\udfff",
        "\uffff",
        "😀",
        "\U0010ffff",
        "👩‍💻",
        "    ",
        "abc123",
        "ab12cd",
    ]
)
TEXT = st.lists(st.one_of(ANY_CHAR, EDGES), max_size=60).map("".join)


def native_features(texts: list[str], known: Any = None) -> list[list[int]]:
    columns = [native.calibrated_estimate(texts, costs, known) for costs in ONE_HOT]
    return [list(row) for row in zip(*columns)]


# Texts made of words and what may stand around them (spaces, digits, marks, two-byte letters
# and non-letters, CJK), so that known words are found, cut short, or rejected next to a digit.
WORDS = ["the", "The", "cat", "señor", "Ωμέγα", "naïve", "x", "шаг", "canción", "ab"]
AROUND = [" ", "  ", ",", "1", "\n", "\t", "\x0b", "\r", "é", "×", "中", "_", "\u0301", "\ud800", "😀", "9a"]
WORDY_TEXT = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(AROUND), ANY_CHAR), max_size=40).map("".join)
KEYS = [k.encode("utf-8") for w in WORDS for k in (w, " " + w)]


def both_known(keys: list[bytes]) -> tuple[Any, ref.KnownWords]:
    packed = ref.pack_hashes(ref.word_hash(k) for k in keys)
    return native.KnownWords(packed), ref.KnownWords(packed)


@given(st.lists(WORDY_TEXT, max_size=8), st.lists(st.sampled_from(KEYS), unique=True))
def test_known_word_features_agree(texts: list[str], keys: list[bytes]) -> None:
    theirs, ours = both_known(keys)
    assert len(theirs) == len(ours) == len(keys)
    assert native_features(texts, theirs) == [ref.features(t, ours) for t in texts]


def test_known_words_are_found_on_both_sides() -> None:
    theirs, ours = both_known([b" the", b"cat", " señor".encode()])
    texts = ["cat the, señor", "the x señor1", "2cat the", "x the\u0301 cat"]
    got = [f[ref.KNOWN_WORD] for f in native_features(texts, theirs)]
    assert got == [f[ref.KNOWN_WORD] for f in (ref.features(t, ours) for t in texts)]
    # the set holds "cat" without a space, " the" and " señor" with one; "the" at the start has
    # no space before it, "señor1" and "2cat" touch a digit, and the combining accent belongs to
    # the word "the\u0301", which is not known
    assert got == [3, 0, 1, 0]


@given(st.lists(TEXT, max_size=8))
def test_features_agree(texts: list[str]) -> None:
    assert native_features(texts) == [ref.features(t) for t in texts]


@given(
    st.lists(TEXT, max_size=8),
    st.lists(st.integers(0, ref.MAX_COST), min_size=ref.NUM_FEATURES, max_size=ref.NUM_FEATURES),
)
def test_estimates_agree(texts: list[str], costs: list[int]) -> None:
    assert native.calibrated_estimate(texts, costs) == ref.estimate_reference(texts, costs)


COSTS = st.lists(st.integers(0, ref.MAX_COST), min_size=ref.NUM_FEATURES, max_size=ref.NUM_FEATURES)


@given(st.lists(TEXT, max_size=8), st.lists(COSTS, min_size=1, max_size=ref.MAX_BOUNDS))
def test_bounds_agree_and_estimate_their_minimum(texts: list[str], bounds: list[list[int]]) -> None:
    """Several cost vectors: the estimate of each text is the smallest of its estimates under
    each vector alone, on both sides."""
    got = native.calibrated_estimate(texts, bounds)
    assert got == ref.estimate_reference(texts, bounds)
    alone = [ref.estimate_reference(texts, b) for b in bounds]
    assert got == [min(col) for col in zip(*alone)] if texts else got == []


def test_a_bound_prices_each_text_by_its_cheaper_vector() -> None:
    """Letters cheap in one vector, digits in the other: each text takes the one that prices it
    lower (hand-computed: doc 1 token, letters 0.2 or 0.7, digits 0.9 or 0.3)."""
    prose, numbers = [0] * N, [0] * N
    for v, lower, digit in ((prose, 200, 900), (numbers, 700, 300)):
        v[ref.DOC], v[ref.LOWER], v[ref.DIGIT] = 1000, lower, digit
    texts = ["abcdefghij", "0123456789", "abcde 01234"]  # spaces cost 0
    for fn in (native.calibrated_estimate, ref.estimate_reference):
        assert fn(texts, [prose, numbers]) == [3, 4, 6]
        assert fn(texts, [numbers, prose]) == [3, 4, 6]
        assert fn(texts, [prose]) == fn(texts, prose) == [3, 10, 7]


def test_split_script_classes() -> None:
    """Hebrew (and the end of Armenian) and Devanagari/Thai have their own classes; Arabic,
    Bengali and Tamil stay in ``u2_rtl`` and ``u3_indic``, on both sides."""
    f = ref.classify("שלום عرب নাম தமிழ் नमस्ते สวัสดี")
    assert (f["u2_hebrew"], f["u2_rtl"], f["word_start"]) == (4, 3, 2)
    assert (f["u3_deva_thai"], f["u3_indic"]) == (6 + 6, 3 + 5)
    texts = ["שלום عرب নাম தமிழ் नमस्ते สวัสดี", "\u0580\u05ff\u0900\u097f\u0e00\u0e7f\u0980\u0e80"]
    assert native_features(texts) == [ref.features(t) for t in texts]


def test_a_tab_before_a_word_is_ws_word() -> None:
    """A tab (CR, VT, FF) directly before a letter counts in ``ws_word`` on top of ``other_ws``:
    the last tab of an indentation, a table's separator, a two-byte letter; not before a digit,
    a mark, a space, U+00A0 or the end. Both sides."""
    texts = ["\t\tif x\nLI\tLiechtenstein\t42\t\u00e9t\u00e9\t\u00a0", "a\t1\t(\t \t", "a\rb\x0cc"]
    assert [(ref.classify(t)["other_ws"], ref.classify(t)["ws_word"]) for t in texts] == [(6, 3), (4, 0), (2, 2)]
    assert native_features(texts) == [ref.features(t) for t in texts]


def test_a_space_before_a_digit_or_a_control_is_space_break() -> None:
    """A run of spaces directly before an ASCII digit or control counts once in ``space_break``
    on top of ``space``/``space_repeat``: a JSON list's separators, an aligned column, a space
    before a mixed run and after a known word, before ESC, NUL and DEL; not a space before a
    letter, a mark, a non-ASCII digit, the end, nor a tab or newline before a digit. Both sides,
    with and without a word set."""
    texts = ["[2, 2, 6]", "a    12 b", "x 1a2b3c4d the 7", " 1", "a (1\t2\n3 \u0663 ", "1 ", "a \x1b[0m \x00 \x7f"]
    assert [ref.classify(t)["space_break"] for t in texts] == [2, 1, 2, 1, 0, 0, 3]
    assert [ref.classify(t)["space"] for t in texts] == [2, 2, 3, 1, 3, 1, 3]
    assert native_features(texts) == [ref.features(t) for t in texts]
    theirs, ours = both_known([b" the"])
    with_words = [ref.features(t, ours) for t in texts]
    assert native_features(texts, theirs) == with_words
    assert with_words[2][ref.KNOWN_WORD] == 1 and with_words[2][ref.SPACE_BREAK] == 2


def test_huge_text_agrees() -> None:
    text = ("Syng vf 12345 a1b2c3d4 中文 😀\ud800 the cat \n    " * 20_000)[:-1]
    costs = [ref.MAX_COST] * ref.NUM_FEATURES
    assert native.calibrated_estimate([text], costs) == ref.estimate_reference([text], costs)
    theirs, ours = both_known([b" the", b" cat"])
    assert native.calibrated_estimate([text], costs, theirs) == ref.estimate_reference([text], costs, ours)


def test_large_batches_agree() -> None:
    """A batch large enough to be estimated on several threads gives the same list, in order."""
    texts = [f"doc {i}: " + "the cat sat on señor's mat " * (i % 50) for i in range(2_000)]
    costs = list(range(1, ref.NUM_FEATURES + 1))
    theirs, ours = both_known([b" the", b" cat", b"doc"])
    assert native.calibrated_estimate(texts, costs, theirs) == ref.estimate_reference(texts, costs, ours)


@pytest.mark.parametrize(
    ("texts", "costs", "error"),
    [
        (["a", 3], [0] * N, TypeError),
        (["a"], [0] * (N - 1), ValueError),
        (["a"], [0] * (N + 1), ValueError),
        (["a"], [True] + [0] * (N - 1), TypeError),
        (["a"], [0.5] + [0] * (N - 1), TypeError),
        (["a"], ["1"] + [0] * (N - 1), TypeError),
        (["a"], [-1] + [0] * (N - 1), ValueError),
        (["a"], [0, 10**6 + 1] + [0] * (N - 2), ValueError),
        (["a"], [0, 10**30] + [0] * (N - 2), ValueError),
        (["a"], [0, -(10**30)] + [0] * (N - 2), ValueError),
        (["a"], [-1, "x"] + [0] * (N - 2), ValueError),  # checked in order: the first bad one wins
        ([1], [0], TypeError),  # texts are checked before costs
        (["a"], [[0] * N] * (ref.MAX_BOUNDS + 1), ValueError),  # too many bounds
        (["a"], [[0] * N, [0] * (N - 1)], ValueError),  # "costs[1]: expected 38 items"
        (["a"], [[0] * N, 5], TypeError),  # every bound a list
        (["a"], [[0] * N, (0,) * N], TypeError),
        (["a"], [[0] * N, [0, -1] + [0] * (N - 2)], ValueError),  # "costs[1][1]: must be in"
        (["a"], [[0] * N, ["x"] + [0] * (N - 1)], TypeError),
        (["a"], [[], [0] * N], ValueError),
    ],
)
def test_errors_agree(texts: list[Any], costs: list[Any], error: type[Exception]) -> None:
    with pytest.raises(error) as theirs:
        native.calibrated_estimate(texts, costs)
    with pytest.raises(error) as ours:
        ref.estimate_reference(texts, costs)
    assert str(theirs.value) == str(ours.value)


def test_a_bad_bound_is_named_by_its_place() -> None:
    bad = [0] * N
    bad[5] = -3
    for fn in (native.calibrated_estimate, ref.estimate_reference):
        with pytest.raises(ValueError, match=r"^costs\[2\]\[5\]: must be in \[0, 1000000\], got -3$"):
            fn(["a"], [[0] * N, [0] * N, bad])
        with pytest.raises(ValueError, match=r"^costs: expected 1 to 8 cost vectors \(bounds\), got 9$"):
            fn(["a"], [[0] * N] * 9)


def test_a_vector_one_or_two_short_says_how_to_keep_its_old_estimates() -> None:
    # 38 items saved before space_break, 37 before ws_word: the message tells the user to append 0s
    for old in (list(range(1, N)), list(range(1, N - 1))):
        for fn in (native.calibrated_estimate, ref.estimate_reference):
            with pytest.raises(
                ValueError, match=rf"got {len(old)}; a vector from before ws_word or space_break .* with 0s appended$"
            ):
                fn(["a\tb"], old)
        padded = old + [0] * (N - len(old))
        assert native.calibrated_estimate(["a\tb 1"], padded) == ref.estimate_reference(["a\tb 1"], padded)
    for fn in (native.calibrated_estimate, ref.estimate_reference):
        with pytest.raises(ValueError, match=rf"got {N - 3}$"):
            fn(["a"], list(range(N - 3)))


@pytest.mark.parametrize(
    ("hashes", "error"),
    [("abcd", TypeError), (bytearray(4), TypeError), (None, TypeError), (b"abc", ValueError), (b"\0" * 9, ValueError)],
)
def test_known_words_errors_agree(hashes: Any, error: type[Exception]) -> None:
    with pytest.raises(error) as theirs:
        native.KnownWords(hashes)
    with pytest.raises(error) as ours:
        ref.KnownWords(hashes)
    assert str(theirs.value) == str(ours.value)


def test_known_of_the_wrong_kind_is_refused() -> None:
    costs = [0] * N
    for bad in (b"", {1, 2}, ref.KnownWords(b"")):
        with pytest.raises(TypeError, match=r"known: expected ctxsieve\._native\.KnownWords or None"):
            native.calibrated_estimate(["a"], costs, bad)
    with pytest.raises(
        TypeError, match=r"expected ctxsieve\.kernels\.calibrated\.KnownWords or None .*, got KnownWords"
    ):
        ref.estimate_reference(["a"], costs, native.KnownWords(b""))


def test_dispatch_takes_either_kind() -> None:
    """``estimate_calibrated`` rebuilds the reference's set natively when the native backend is
    live, so a caller holding either kind gets the same estimate."""
    packed = ref.pack_hashes([ref.word_hash(b" the")])
    texts, costs = ["x the cat"], [1000] * N
    want = ref.estimate_reference(texts, costs, ref.KnownWords(packed))
    assert ref.estimate_calibrated(texts, costs, ref.KnownWords(packed)) == want
    assert ref.estimate_calibrated(texts, costs, ref.known_words(packed)) == want
    assert ref.features_batch(texts, ref.KnownWords(packed)) == [ref.features(texts[0], ref.KnownWords(packed))]


def test_contains_takes_ints_only() -> None:
    packed = ref.pack_hashes([1, 2])
    for k in (native.KnownWords(packed), ref.KnownWords(packed)):
        assert 1 in k and 3 not in k
        assert 1.0 not in k and True not in k and "1" not in k and -1 not in k and 2**40 not in k


def test_dispatch_uses_the_live_backend() -> None:
    from ctxsieve import kernels

    texts = ["hello wörld 42"]
    costs = [1000] * ref.NUM_FEATURES
    assert ref.estimate_calibrated(texts, costs) == ref.estimate_reference(texts, costs)
    assert ref.features_batch(texts) == [ref.features(texts[0])]
    assert kernels.backend() in ("native", "python")
