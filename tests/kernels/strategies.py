"""Hypothesis strategies for the kernel tests: full Unicode, plus text built from a small
vocabulary so that near-duplicates actually occur."""

from __future__ import annotations

from hypothesis import strategies as st

# characters that stress the word and case tables: combining marks, special lower-casing,
# final sigma, ZWJ emoji, RTL, CJK, astral letters and digits, surrogates, odd whitespace
TRICKY = [
    *"İΣσςẞǅ\u0301\u0307\u200d\u200f\u00a0\u2028\u3000\u1680_-'",
    "👩‍💻",
    "🇪🇸",
    "שלום",
    "مرحبا",
    "東京都",
    "日本語のテキスト",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "𝟙𝟚𝟛",
    "\ud800",
    "\udfff",
    "\ud83d\ude00",
    "a\u0300",
]

any_char = st.characters(exclude_categories=())  # includes lone surrogates (category Cs)
unicode_text = st.one_of(
    st.text(any_char, max_size=80),
    st.lists(st.one_of(st.sampled_from(TRICKY), st.text(any_char, max_size=4)), max_size=20).map("".join),
    st.just(""),
    st.sampled_from([" ", "\t\n  ", "\u3000\u2028"]),
)

VOCAB = "refund policy team plan days window billing error code invoice seat admin export the a of".split()


@st.composite
def word_text(draw: st.DrawFn) -> str:
    ws = draw(st.lists(st.sampled_from([*VOCAB, "Refund", "POLICY", "día", "İD"]), min_size=0, max_size=14))
    seps = draw(st.lists(st.sampled_from([" ", "  ", ", ", "\n", ". "]), min_size=len(ws), max_size=len(ws)))
    return "".join(w + s for w, s in zip(ws, seps))


texts = st.one_of(word_text(), unicode_text)
ids = st.one_of(st.sampled_from(["a", "b", "c", "A", "é", "\ud800", "a\u0301", ""]), st.text(any_char, max_size=3))
scores = st.one_of(st.sampled_from([0.0, -0.0, 0.5, 1.0, -1.0]), st.floats(allow_nan=False, allow_infinity=False))
