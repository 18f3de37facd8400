"""Native and reference grep agree on patterns generated from the dialect's grammar, over
texts full of the code points where regex engines differ (issue 12, finding 12); and both
agree with Python's ``re`` (an independent matcher) given the same parsed tree.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import _native
from ctxsieve.kernels import grep_classes as gc
from ctxsieve.kernels import reference
from ctxsieve.kernels.grep_dialect import parse
from ctxsieve.kernels.grep_native import native_grep_lines
from ctxsieve.kernels.grep_program import compile_pattern
from ctxsieve.kernels.grep_tree import Alt, Assert, Chars, Concat, Node, Repeat

from .strategies import unicode_text

# where \w \d \s or case folding differ between engines: ² (No), Ⅻ (Nl), ٣ (Arabic digit),
# KELVIN SIGN, long s, ß/ẞ, dotted İ, NBSP, U+0085, U+001C (isspace only), U+2028, combining
# acute, ZWJ, U+FFFD (what a surrogate becomes)
TRICKY = [*"aAbBkKsSiI_ -.1²Ⅻ٣\u212aſßẞİıé\u00a0\u0085\u001c\u2028\u0301\u200d\ufffd日", "\ud800"]
META = ["\\.", "\\*", "\\\\", "\\[", "\\{", "\\-", "\\ ", "\\t", "\\x41", "\\x{212A}", "\\u00df"]

line = st.lists(st.sampled_from(TRICKY), max_size=12).map("".join)
text = st.one_of(st.lists(line, max_size=6).map("\n".join), unicode_text)


def literal(ch: str) -> str:
    return re.escape(ch) if ch not in "\ud800" else ch


class_item = st.one_of(
    st.sampled_from([*"abkKsß²_1 ", "\\w", "\\W", "\\d", "\\D", "\\s", "\\S", "\\-", "\\]", "\\\\"]),
    st.sampled_from(["a-c", "A-Z", "0-9", "\u00c0-\u00ff", "\u2000-\u3000", "k-s"]),
)
bracket = st.builds(
    lambda neg, items: "[" + ("^" if neg else "") + "".join(items) + "]",
    st.booleans(),
    st.lists(class_item, min_size=1, max_size=4),
)
atom = st.one_of(
    st.sampled_from(TRICKY[:-1]).map(literal),
    st.sampled_from(META),
    st.sampled_from(["\\w", "\\W", "\\d", "\\D", "\\s", "\\S", ".", "^", "$", "\\b", "\\B"]),
    bracket,
)
quantifier = st.sampled_from(["", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "*?", "{1,3}?"])


def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    group = st.builds(
        lambda head, body: f"({head}{body})",
        st.sampled_from(["", "?:", "?i:", "?-i:"]),
        inner,
    )
    quantified = st.builds(lambda g, q: g + q, group, quantifier)
    return st.one_of(
        st.lists(st.one_of(quantified, inner), min_size=1, max_size=3).map("".join),
        st.lists(inner, min_size=2, max_size=3).map("|".join),
        inner.map(lambda p: "(?i)" + p),
    )


def quantified_atom(a: str, q: str) -> str:
    return a if a in ("^", "$", "\\b", "\\B") else a + q


pattern = st.recursive(st.builds(quantified_atom, atom, quantifier), extend, max_leaves=6)


def outcome(fn: Any, *args: Any) -> Any:
    try:
        return ("ok", fn(*args))
    except ValueError as exc:
        return ("ValueError", str(exc))


def native_vm_only(txt: str, pat: str, max_matches: int) -> list[int]:
    """The native Pike VM alone (the lazy DFA's fallback): a regex that matches every line,
    each one then decided by the program."""
    compiled = compile_pattern(reference.clean(pat))
    return _native.grep_lines(txt, "", "", (compiled.program, compiled.classes), True, max_matches)


@given(pattern, text, st.integers(0, 4))
def test_native_and_reference_agree(pat: str, txt: str, max_matches: int) -> None:
    ours = outcome(native_grep_lines, _native, txt, pat, max_matches)
    spec = outcome(reference.grep_lines, txt, pat, max_matches)
    assert ours == spec, f"{pat!r} on {txt!r}"
    if spec[0] == "ok":
        assert native_vm_only(txt, pat, max_matches) == spec[1], f"{pat!r} on {txt!r}"


@given(st.text(st.sampled_from([*"()[]{}|*+?^$.\\-,:=!<>Pabpzi019"]), max_size=12), line)
def test_any_string_gets_the_same_answer_or_the_same_error(pat: str, ln: str) -> None:
    ours = outcome(native_grep_lines, _native, ln, pat, 5)
    assert ours == outcome(reference.grep_lines, ln, pat, 5), repr(pat)


# -- an independent matcher: the parsed tree as a Python ``re`` pattern -----------------------


def _cls(ranges: gc.Ranges) -> str:
    if not ranges:
        return "(?!)"
    return "[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges) + "]"


_W = _cls(gc.WORD)
_LOOK = {
    "^": r"\A",
    "$": r"\Z",
    "b": f"(?:(?<={_W})(?!{_W})|(?<!{_W})(?={_W}))",
    "B": f"(?:(?<={_W})(?={_W})|(?<!{_W})(?!{_W}))",
}


def to_python(node: Node) -> str:
    if isinstance(node, Chars):
        return _cls(node.ranges)
    if isinstance(node, Assert):
        return _LOOK[node.kind]
    if isinstance(node, Concat):
        return "".join(map(to_python, node.items))
    if isinstance(node, Alt):
        return "(?:" + "|".join(map(to_python, node.items)) + ")"
    assert isinstance(node, Repeat)
    return f"(?:{to_python(node.item)}){{{node.lo},{'' if node.hi is None else node.hi}}}"


@given(pattern, st.lists(line, min_size=1, max_size=5))
def test_both_agree_with_python_re_on_the_parsed_tree(pat: str, lines: list[str]) -> None:
    try:
        tree = parse(reference.clean(pat))
    except ValueError:
        return
    oracle = re.compile(to_python(tree))
    # lines of at most 12 characters: backtracking stays cheap even for nested repetitions
    expected = [i for i, ln in enumerate(lines) if oracle.search(reference.clean(ln))]
    txt = "\n".join(lines)
    assert reference.grep_lines(txt, pat, 100) == expected, pat
    assert native_grep_lines(_native, txt, pat, 100) == expected, pat


portable_atom = st.one_of(
    st.sampled_from([*"abc-_ ", "\\.", "\\*", ".", "[a-b]", "[^a]", "[]a]", "[a-]", "^", "$"]),
)
portable = st.recursive(
    st.builds(quantified_atom, portable_atom, quantifier),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map("".join),
        st.lists(inner, min_size=2, max_size=3).map("|".join),
        st.builds(lambda body, q: f"(?:{body}){q}", inner, quantifier),
    ),
    max_leaves=6,
)


@given(portable, st.lists(st.text(st.sampled_from("abc-_ .*]x"), max_size=10), min_size=1, max_size=5))
def test_portable_patterns_mean_what_python_re_says(pat: str, lines: list[str]) -> None:
    # literals, ASCII classes, groups, alternation, repetition and ^ $: read alike by every
    # engine, so the dialect must agree with re reading the pattern itself
    try:
        parse(pat)
    except ValueError as exc:  # only where the dialect is stricter: a repeated anchor
        assert "nothing to repeat" in str(exc), (pat, exc)
        return
    expected = [i for i, ln in enumerate(lines) if re.search(pat, ln)]
    assert reference.grep_lines("\n".join(lines), pat, 100) == expected, pat


instruction = st.tuples(st.sampled_from([0, 0, 1, 2, 3, 4, 5]), st.integers(0, 8), st.integers(0, 8))
ranges = st.one_of(
    st.lists(st.tuples(st.integers(0, 0x110000), st.integers(0, 0x110000)), max_size=3),
    st.sets(st.integers(0x60, 0x7A), max_size=4).map(lambda cps: [(c, c) for c in sorted(cps)]),
)


@given(st.lists(instruction, max_size=8), st.lists(ranges, max_size=3), line, st.booleans())
def test_any_program_is_run_or_refused_never_a_panic(
    ops: list[Any], classes: list[Any], ln: str, confirm: bool
) -> None:
    # the private native entry point validates what it is given (indices, opcodes, sorted
    # classes): a malformed program is a ValueError, a well-formed one just runs
    try:
        found = _native.grep_lines(ln, "", "", (ops, classes), confirm, 5)
    except ValueError as exc:
        assert str(exc).startswith("program: "), exc
    else:
        assert found in ([], [0])
