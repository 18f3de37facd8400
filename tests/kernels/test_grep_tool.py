"""``ctx_grep`` answers every pattern outside the grep dialect or its limits with one clear
``error:`` line (the same on both backends), and answers the reported attacks at once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ctxsieve.loop import Offloader
from ctxsieve.stores import open_store


@pytest.fixture
def offloader(tmp_path: Path) -> tuple[Offloader, str]:
    off = Offloader(open_store(tmp_path / "grep.db"), max_tokens=150, preview_tokens=20)
    text = "".join(f"line {i} x²y {'a' * (i % 40)}\n" for i in range(2000))
    return off, off.store_text(text).blob_id


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("a{20000}", "invalid pattern: repetition count above 500 at position 1"),
        ("(?:a{500}){500}", "invalid pattern: too large: it compiles to 250001 instructions, the limit is 1000"),
        ("\\w{30}", "invalid pattern: too large: its character tests hold 23610 code-point ranges"),
        ("x" * 1001, "invalid pattern: longer than 1000 characters (1001)"),
        ("(?<=a)b", "invalid pattern: lookahead and lookbehind are not supported at position 0"),
        ("\\pL", "invalid pattern: \\p (Unicode properties) is not supported"),
        ("[[:alpha:]]", "invalid pattern: '[' inside a class must be escaped"),
        ("a{,3}", "invalid pattern: a repetition needs its lower bound: write {0,n} at position 1"),
    ],
)
def test_refusals_are_error_lines(offloader: tuple[Offloader, str], pattern: str, reason: str) -> None:
    off, handle = offloader
    out = off.ctx_grep(handle, pattern)
    assert out.startswith(f"error: bad pattern {pattern!r:.200}: {reason}"), out
    assert "\n" not in out


@pytest.mark.parametrize("pattern", ["(?:a?a?)*b", "(?:x?x?x?)+y", "(?:a?){30}a{30}", "(a+)+$"])
def test_backtracking_bombs_are_answered_at_once(offloader: tuple[Offloader, str], pattern: str) -> None:
    off, handle = offloader
    start = time.perf_counter()
    out = off.ctx_grep(handle, pattern)
    assert time.perf_counter() - start < 5, pattern  # minutes before, on the python backend
    assert not out.startswith("error"), out


def test_word_characters_are_the_projects(offloader: tuple[Offloader, str]) -> None:
    off, handle = offloader
    # '²' is a word character (as in words()), so there is no boundary between 'x' and '²'
    assert off.ctx_grep(handle, r"x\b").startswith("[no line of")
    assert off.ctx_grep(handle, r"^line 7 \w+ a+$").startswith("[1 matching lines of 2000")
