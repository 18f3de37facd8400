"""The grep dialect (docs/grep.md): one meaning of every pattern on both backends.

Each test runs ``kernels.grep_lines`` once with the native and once with the reference
kernels (issue 12, finding 12: they disagreed on 12,909 code points of ``\\w``, 4 of ``\\s``,
100 of ``\\d``, and accepted different syntax), and checks the answer against the definition.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from ctxsieve import _native, kernels
from ctxsieve.kernels import reference
from ctxsieve.kernels._unicode_tables import LOWER, SPACE_RANGES, WORD_RANGES


@contextlib.contextmanager
def backend(impl: Any) -> Iterator[None]:
    saved = kernels._impl
    kernels._impl = impl
    try:
        yield
    finally:
        kernels._impl = saved


def outcome(impl: Any, text: str, pattern: str, max_matches: int = 10**7) -> Any:
    with backend(impl):
        try:
            return kernels.grep_lines(text, pattern, max_matches)
        except ValueError as exc:
            return ("ValueError", str(exc))


def same(text: str, pattern: str, max_matches: int = 10**7) -> Any:
    ours, spec = outcome(_native, text, pattern, max_matches), outcome(reference, text, pattern, max_matches)
    assert ours == spec, f"{pattern!r}: native={str(ours)[:300]} reference={str(spec)[:300]}"
    return spec


def members(ranges: Any) -> set[int]:
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


# every code point but "\n" (which separates lines) and the surrogates (the text is cleaned: a
# surrogate is searched as U+FFFD)
ALL = [cp for cp in range(0x110000) if cp != 0x0A and not 0xD800 <= cp <= 0xDFFF]
# the reference's Pike VM takes about 10 s for all 1.1M one-character lines, so it gets every
# code point where some table changes (the ends of every range, and their neighbours) and a
# stride; the native kernel gets every code point
EDGES = sorted(
    (
        {cp + d for lo, hi in (*WORD_RANGES, *SPACE_RANGES, (0x30, 0x39)) for cp in (lo, hi) for d in (-1, 0, 1)}
        | set(range(0, 0x110000, 97))
    )
    & set(ALL)
)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"^\w$", members(WORD_RANGES)),
        (r"^\W$", set(ALL) - members(WORD_RANGES)),
        (r"^\s$", members(SPACE_RANGES)),
        (r"^\S$", set(ALL) - members(SPACE_RANGES)),
        (r"^\d$", set(range(0x30, 0x3A))),
        (r"^\D$", set(ALL) - set(range(0x30, 0x3A))),
        (r"^.$", set(ALL)),
        (r"^[^\w\s]$", set(ALL) - members(WORD_RANGES) - members(SPACE_RANGES)),
    ],
)
def test_classes_are_the_frozen_tables_on_every_code_point(pattern: str, expected: set[int]) -> None:
    lines = outcome(_native, "\n".join(map(chr, ALL)), pattern)
    assert {ALL[i] for i in lines} == expected & set(ALL)
    edges = same("\n".join(map(chr, EDGES)), pattern)
    assert {EDGES[i] for i in edges} == expected & set(EDGES)


def test_superscript_two_is_a_word_character_everywhere() -> None:
    # the example of issue 12: '²' (category No) is a word character of words(); Rust's \w says no
    assert same("x²\n²\n-", r"^\w+$") == [0, 1]
    assert same("a²b\na b", r"a\b") == [1]


def test_case_insensitivity_is_the_frozen_simple_lower_case() -> None:
    assert same("STRASSE\nStraße\nSTRAẞE", "(?i)straße") == [1, 2]  # ẞ lowers to ß; no "ss"
    assert same("k\nK\n\u212a", "(?i)k") == [0, 1, 2]  # KELVIN SIGN lowers to k
    assert same("İ\ni\nI", "(?i)İ") == [0]  # İ lowers to two characters: only itself
    assert same("ABC\nabc\naBc", "a(?i)b(?-i)c") == [1, 2]
    assert same("ab\nAB\naB", "(?i:a)B") == [1, 2]
    assert same("a\nA\nb", "(?i)[^a]") == [2]  # folding first, then the negation
    # \w \d \s are not folded: they are exactly the tables
    assert same("\u212a", "(?i)^[a-z]$") == [0]
    assert same("\u212a", "(?i)^\\d$") == []


@pytest.mark.parametrize(
    ("pattern", "lines"),
    [
        ("a|", [0, 1, 2]),
        ("^$", [2]),
        ("x{2}", [1]),
        ("x{1,}", [1]),
        ("^a{0,1}$", [0, 2]),
        (r"\x78\x{78}\u0078", []),
        (r"\.\*\{\}\[\]\(\)\|\\\-\ ", []),
        ("[]x]", [1]),
        ("[a-]", [0]),
        ("[-a]", [0]),
        (r"\bxx\b", [1]),
        (r"\Bx", [1]),
        ("x+?", [1]),
        ("x}]", []),
        ("", [0, 1, 2]),
    ],
)
def test_accepted_syntax(pattern: str, lines: list[int]) -> None:
    assert same("a\nxx\n", pattern) == lines


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (r"\Z", r"\Z is not supported: use ^ and $"),
        (r"a\z", r"\z is not supported: use ^ and $"),
        (r"\A", r"\A is not supported"),
        (r"\pL", r"\p (Unicode properties) is not supported"),
        (r"\p{Greek}", r"\p (Unicode properties) is not supported"),
        (r"(?<=a)b", "lookahead and lookbehind are not supported at position 0"),
        (r"(?!a)", "lookahead and lookbehind are not supported"),
        ("a{,3}", "a repetition needs its lower bound: write {0,n} at position 1"),
        ("[[:alpha:]]", "POSIX classes like [:alpha:] are not supported"),
        ("[a[b]]", "'[' inside a class must be escaped"),
        ("a{", "write \\{ for a literal brace"),
        ("a{x}", "write \\{ for a literal brace"),
        ("a{3,1}", "bounds reversed"),
        ("(", "missing ')' at position 0"),
        ("a)", "unbalanced ')' at position 1"),
        ("[a", "missing ']'"),
        ("*", "nothing to repeat at position 0"),
        ("^*", "nothing to repeat"),
        (r"\b+", "nothing to repeat"),
        ("a**", "repeated repetition"),
        ("a*+", "repeated repetition"),
        ("a{2}{3}", "repeated repetition"),
        ("\\", "trailing backslash"),
        (r"(a)\1", "backreferences"),
        ("(?P<n>a)", "named groups are not supported"),
        ("(?<n>a)", "named groups are not supported"),
        ("(?s).", "unknown group or flag"),
        ("(?m)^", "unknown group or flag"),
        ("[z-a]", "class range out of order"),
        ("[a-c-e]", "ambiguous '-'"),
        (r"[\w-z]", "a class range must start with a single character"),
        (r"[a-\d]", "a class range must end in a single character"),
        (r"[\b]", "not allowed inside a class"),
        (r"\x{D800}", "which is not a character"),
        (r"\x{110000}", "which is not a character"),
        (r"\xZZ", "bad hex escape"),
        (r"\q", r"unknown escape \q"),
        ("a{501}", "repetition count above 500"),
        ("(?:a{500}){2}", "too large: it compiles to 1001 instructions, the limit is 1000"),
        ("x" * 1001, "longer than 1000 characters"),
    ],
)
def test_everything_else_is_refused_with_the_same_message(pattern: str, message: str) -> None:
    result = same("abc", pattern)
    assert result[0] == "ValueError" and result[1].startswith("invalid pattern: "), result
    assert message in result[1], result


def test_lower_table_is_what_case_folding_uses() -> None:
    # every character with a one-character lower case matches its lower case under (?i)
    pairs = [(cp, low) for cp, low in LOWER.items() if len(low) == 1]
    text = "\n".join(chr(cp) for cp, _ in pairs)
    for start in range(0, len(pairs), 200):
        chunk = pairs[start : start + 200]
        pattern = "(?i)^(?:" + "|".join(low for _, low in chunk) + ")$"
        lines = same(text, pattern)
        assert set(range(start, start + len(chunk))) <= set(lines)
