"""Native and reference kernels agree exactly: same results, same exceptions and messages."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import _native
from ctxsieve.kernels import reference
from ctxsieve.kernels.grep_native import native_grep_lines

from .strategies import ids, scores, texts, unicode_text


def outcome(fn: Any, *args: Any) -> Any:
    try:
        return ("ok", fn(*args))
    except (TypeError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


def agree(name: str, *args: Any) -> Any:
    ours = outcome(getattr(_native, name), *args)
    spec = outcome(getattr(reference, name), *args)
    assert ours == spec, f"{name} disagrees: native={ours!r} reference={spec!r}"
    return spec


@given(st.lists(unicode_text, max_size=10), st.sampled_from([1.0, 2.5, 3.0, 4.0, 0.3]))
def test_estimate_tokens(batch: list[str], divisor: float) -> None:
    agree("estimate_tokens", batch, divisor)


@given(unicode_text)
def test_words_shingles_hash(text: str) -> None:
    agree("words", text)
    agree("shingle_hashes", text)
    agree("content_hash", text)


def test_every_code_point_lowers_and_classifies_alike() -> None:
    # one string per 4096 code points (surrogates included) covers every table entry
    for start in range(0, 0x110000, 4096):
        chunk = "".join(chr(c) + " " for c in range(start, start + 4096))
        assert _native.words(chunk) == reference.words(chunk), hex(start)
        assert _native.content_hash(chunk) == reference.content_hash(chunk), hex(start)


def test_huge_text() -> None:
    text = ("Ünïcode wörds and 東京 text, " * 40_000)[:1_000_000] + "\ud800"
    agree("estimate_tokens", [text], 3.0)
    agree("shingle_hashes", text)
    agree("content_hash", text)


@st.composite
def dedupe_input(draw: st.DrawFn) -> tuple[Any, ...]:
    n = draw(st.integers(0, 12))
    return (
        draw(st.lists(texts, min_size=n, max_size=n)),
        draw(st.lists(ids, min_size=n, max_size=n)),
        draw(st.lists(scores, min_size=n, max_size=n)),
        draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        draw(st.sampled_from([0.8, 0.5, 1.0, 0.01])),
    )


@given(dedupe_input())
def test_dedupe(args: tuple[Any, ...]) -> None:
    agree("dedupe", *args)


@st.composite
def fill_input(draw: st.DrawFn) -> tuple[Any, ...]:
    n = draw(st.integers(0, 12))
    nsrc = draw(st.integers(1, 3))
    return (
        draw(st.lists(st.integers(0, 20), min_size=n, max_size=n)),
        draw(st.lists(scores, min_size=n, max_size=n)),
        draw(st.lists(st.integers(0, nsrc - 1), min_size=n, max_size=n)),
        draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        draw(st.lists(ids, min_size=n, max_size=n)),
        draw(st.integers(0, 60)),
        draw(st.sampled_from([0.0, 0.5, 1.0, 2.0])),
        draw(st.one_of(st.none(), scores)),
        draw(st.lists(st.integers(-1, 30), min_size=nsrc, max_size=nsrc)),
        draw(st.lists(st.integers(0, 3), min_size=nsrc, max_size=nsrc)),
        draw(st.booleans()),
    )


@given(fill_input())
def test_fill_budget(args: tuple[Any, ...]) -> None:
    agree("fill_budget", *args)


@st.composite
def order_input(draw: st.DrawFn) -> tuple[Any, ...]:
    n = draw(st.integers(0, 14))
    return (
        draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)),
        draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        draw(st.lists(scores, min_size=n, max_size=n)),
        draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)),
        draw(st.lists(ids, min_size=n, max_size=n)),
        draw(st.lists(ids, min_size=n, max_size=n)),
    )


@given(order_input())
def test_cache_order(args: tuple[Any, ...]) -> None:
    agree("cache_order", *args)


@given(st.lists(texts, max_size=8), texts, st.integers(-1, 5))
def test_bm25(docs: list[str], query: str, limit: int) -> None:
    ours = outcome(_native.Bm25Index(docs, 1.2, 0.75).search, query, limit)
    spec = outcome(reference.Bm25Index(docs, 1.2, 0.75).search, query, limit)
    assert ours == spec
    if limit < 0:
        assert spec == ("ValueError", f"limit: must be >= 0, got {limit}")


@given(st.lists(st.sampled_from(["alpha", "beta", "gamma delta", "", "ÅNGSTRÖM 42", "a\tb"]), max_size=10))
@pytest.mark.parametrize("pattern", ["a", "^b", "a$", r"\d+", "[A-Z]{2,}", "(?i)gamma", "x|y|lta"])
def test_grep_lines(pattern: str, lines: list[str]) -> None:
    # the native kernel takes the pattern parsed and translated by grep_program (test_grep_*.py)
    ours = outcome(native_grep_lines, _native, "\n".join(lines), pattern, 3)
    assert ours == outcome(reference.grep_lines, "\n".join(lines), pattern, 3)


# ---------------------------------------------------------------------------------------------
# bad input: same exception type and message from both backends

BAD_FLOATS = [float("nan"), float("inf"), float("-inf"), "0.5", None, [1.0], 10**400]
BAD_COUNTS = [-1, 1.5, "3", None, -(10**30), 10**30]


@pytest.mark.parametrize("bad", BAD_FLOATS)
def test_bad_scores(bad: Any) -> None:
    kind, message = agree("dedupe", ["x", "y"], ["a", "b"], [0.5, bad], [False, False], [False, False], 0.8)
    assert kind in ("TypeError", "ValueError") and message.startswith("scores[1]: ")
    agree("fill_budget", [1, 1], [bad, 0.1], [0, 0], [0, 0], [0, 0], ["a", "b"], 5, 0.0, None, [-1], [0], False)
    agree("cache_order", [0, 2], [False, False], [0.1, bad], [0, 0], ["", ""], ["a", "b"])


@pytest.mark.parametrize("bad", BAD_COUNTS)
def test_bad_tokens(bad: Any) -> None:
    kind, message = agree(
        "fill_budget", [1, bad], [0.1, 0.2], [0, 0], [0, 0], [0, 0], ["a", "b"], 5, 0.0, None, [-1], [0], False
    )
    assert kind in ("TypeError", "ValueError") and message.startswith("tokens[1]: ")


@pytest.mark.parametrize("bad", [3, None, b"bytes", ["x"]])
def test_bad_texts(bad: Any) -> None:
    kind, message = agree("estimate_tokens", ["ok", bad], 3.0)
    assert (kind, message.split(":")[0]) == ("TypeError", "texts[1]")
    assert agree("dedupe", ["ok", bad], ["a", "b"], [0.1, 0.2], [0, 0], [0, 0], 0.8)[1].startswith("texts[1]:")
    assert agree("words", bad)[0] == "TypeError"


def test_mismatched_lengths() -> None:
    kind, message = agree("dedupe", ["x", "y"], ["a"], [0.5, 0.1], [0, 0], [0, 0], 0.8)
    assert (kind, message) == ("ValueError", "ids: expected 2 items (one per texts), got 1")
    kind, _ = agree("fill_budget", [1], [0.1, 0.2], [0], [0], [0], ["a"], 5, 0.0, None, [-1], [0], False)
    assert kind == "ValueError"
    kind, _ = agree("fill_budget", [1], [0.1], [3], [0], [0], ["a"], 5, 0.0, None, [-1], [0], False)
    assert kind == "ValueError"
