"""The grep dialect: one parser for both backends (the syntax is documented in docs/grep.md).

``parse(pattern)`` turns a pattern into a small tree (``Chars``, ``Assert``, ``Concat``,
``Alt``, ``Repeat``) or raises ``ValueError("invalid pattern: ... at position N")``. Everything
outside the dialect is refused here, with the same message on both backends, so the two
matchers downstream never see a construct they could read differently. The limits keep the
compiled program, and with it the cost of a search (text length x program size), bounded:
``grep_tree.program_size`` is computed from the tree before anything is expanded.
"""

from __future__ import annotations

import re

from ctxsieve.kernels import grep_classes as gc
from ctxsieve.kernels.grep_tree import Alt, Assert, Chars, Concat, Node, Repeat, class_ranges, program_size

MAX_PATTERN_CHARS = 1000
MAX_REPEAT = 500  # the largest count in {n}, {n,}, {n,m}
MAX_DEPTH = 32  # nested groups
MAX_PROGRAM = 1000  # instructions of the compiled program (grep_program), repetitions expanded
MAX_CLASS_RANGES = 20_000  # code-point ranges summed over the program's character tests

_HEX = "0123456789abcdefABCDEF"
_CONTROL = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v"}
_PERL = {"d": gc.DIGIT, "w": gc.WORD, "s": gc.SPACE}
# {n} {n,} {n,m}, and {,m} so that it gets its own message; ASCII digits only
_REPEAT_RE = re.compile(r"\{([0-9]*)(,([0-9]*))?\}", re.ASCII)
_BRACE = "'{' must start a repetition {n}, {n,} or {n,m}; write \\{ for a literal brace"


def parse(pattern: str) -> Node:
    """The tree of ``pattern`` (surrogates already replaced by U+FFFD), within the limits."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"invalid pattern: longer than {MAX_PATTERN_CHARS} characters ({len(pattern)})")
    parser = _Parser(pattern)
    tree = parser.alternation(0, False)
    if parser.pos < len(pattern):  # only an unbalanced ")" stops the top level early
        parser.fail("unbalanced ')'")
    size = program_size(tree) + 1
    if size > MAX_PROGRAM:
        raise ValueError(
            f"invalid pattern: too large: it compiles to {size} instructions, the limit is {MAX_PROGRAM} "
            "(repetition counts multiply; use a smaller count or + and *)"
        )
    ranges = class_ranges(tree)
    if ranges > MAX_CLASS_RANGES:
        raise ValueError(
            f"invalid pattern: too large: its character tests hold {ranges} code-point ranges, the limit is "
            f"{MAX_CLASS_RANGES} (\\w alone holds {len(gc.WORD)}; repeat it fewer times)"
        )
    return tree


class _Parser:
    def __init__(self, pattern: str):
        self.p = pattern
        self.pos = 0

    def fail(self, what: str, at: int | None = None) -> None:
        raise ValueError(f"invalid pattern: {what} at position {self.pos if at is None else at}")

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.p[i] if i < len(self.p) else ""

    # alternation := concat ("|" concat)* ; a group's flags apply to the rest of it
    def alternation(self, depth: int, icase: bool) -> Node:
        branches = []
        while True:
            items, icase = self.concat(depth, icase)
            branches.append(items[0] if len(items) == 1 else Concat(tuple(items)))
            if self.peek() != "|":
                break
            self.pos += 1
        return branches[0] if len(branches) == 1 else Alt(tuple(branches))

    def concat(self, depth: int, icase: bool) -> tuple[list[Node], bool]:
        items: list[Node] = []
        while self.peek() not in ("", "|", ")"):
            flag = self.inline_flag()
            if flag is not None:
                icase = flag
                continue
            start = self.pos
            items.append(self.quantified(self.atom(depth, icase), start))
        return items, icase

    def inline_flag(self) -> bool | None:
        """Consume ``(?i)`` or ``(?-i)`` and return the new flag; None for anything else."""
        for text, value in (("(?i)", True), ("(?-i)", False)):
            if self.p.startswith(text, self.pos):
                self.pos += len(text)
                return value
        return None

    def quantified(self, atom: Node, start: int) -> Node:
        lo_hi = self.quantifier()
        if lo_hi is None:
            return atom
        if isinstance(atom, Assert):
            self.fail("nothing to repeat (an anchor or \\b cannot be repeated)", start)
        lo, hi = lo_hi
        if self.peek() == "?":
            self.pos += 1  # lazy: the same lines match, so it is accepted and ignored
        if self.peek() in ("*", "+", "?") or _REPEAT_RE.match(self.p, self.pos):
            self.fail("repeated repetition (possessive or stacked quantifiers are not supported; use (?:...))")
        return Repeat(atom, lo, hi)

    def quantifier(self) -> tuple[int, int | None] | None:
        c = self.peek()
        simple = {"*": (0, None), "+": (1, None), "?": (0, 1)}
        if c in simple:
            self.pos += 1
            return simple[c]
        if c != "{":
            return None
        m = _REPEAT_RE.match(self.p, self.pos)
        if not m:
            self.fail(_BRACE)
            raise AssertionError  # pragma: no cover - fail() raised
        if not m.group(1):
            self.fail("a repetition needs its lower bound: write {0,n}" if m.group(3) else _BRACE)
        lo = int(m.group(1))
        hi = None if m.group(2) is not None and not m.group(3) else int(m.group(3) or lo)
        if max(lo, hi or 0) > MAX_REPEAT:
            self.fail(f"repetition count above {MAX_REPEAT}")
        if hi is not None and hi < lo:
            self.fail(f"repetition {m.group(0)} has its bounds reversed")
        self.pos = m.end()
        return lo, hi

    def atom(self, depth: int, icase: bool) -> Node:
        c = self.peek()
        if c in ("*", "+", "?") or (c == "{" and _REPEAT_RE.match(self.p, self.pos)):
            self.fail("nothing to repeat")
        if c == "{":
            self.fail(_BRACE)
        if c == "(":
            return self.group(depth, icase)
        if c == "[":
            return self.bracket(icase)
        self.pos += 1
        if c == ".":
            return Chars(gc.ANY)
        if c in ("^", "$"):
            return Assert(c)
        if c == "\\":
            return self.escape(icase)
        return self.char(c, icase)

    def char(self, c: str, icase: bool) -> Chars:
        ranges: gc.Ranges = ((ord(c), ord(c)),)
        return Chars(gc.fold(ranges), None) if icase and gc.fold(ranges) != ranges else Chars(ranges, c)

    def group(self, depth: int, icase: bool) -> Node:
        start = self.pos
        if depth >= MAX_DEPTH:
            self.fail(f"groups nested deeper than {MAX_DEPTH}")
        self.pos += 1
        if self.peek() == "?":
            head = self.p[self.pos : self.pos + 4]
            for prefix, flag in (("?:", icase), ("?i:", True), ("?-i:", False)):
                if head.startswith(prefix):
                    self.pos += len(prefix)
                    icase = flag
                    break
            else:
                if head[:2] in ("?=", "?!") or head[:3] in ("?<=", "?<!"):
                    self.fail("lookahead and lookbehind are not supported", start)
                if head[:2] in ("?P", "?<"):
                    self.fail("named groups are not supported: use (...) or (?:...)", start)
                self.fail("unknown group or flag: only (...), (?:...), (?i), (?-i), (?i:...), (?-i:...)", start)
        inner = self.alternation(depth + 1, icase)
        if self.peek() != ")":
            self.fail("missing ')'", start)
        self.pos += 1
        return inner

    def escape(self, icase: bool) -> Node:
        start = self.pos - 1
        c = self.peek()
        if not c:
            self.fail("trailing backslash", start)
        if c in "bB":
            self.pos += 1
            return Assert(c)
        ranges = self.class_escape()
        if ranges is not None:
            return Chars(ranges)
        return self.char(self.char_escape(start), icase)

    def class_escape(self) -> gc.Ranges | None:
        c = self.peek()
        if c.lower() in _PERL:
            self.pos += 1
            ranges = _PERL[c.lower()]
            return ranges if c.islower() else gc.complement(ranges)
        return None

    def char_escape(self, start: int) -> str:
        """The character of an escape that names one; the position is after the backslash."""
        c = self.peek()
        self.pos += 1
        if c in _CONTROL:
            return _CONTROL[c]
        if c in ("x", "u"):
            return self.hex_escape(c, start)
        if not (c.isascii() and c.isalnum()):
            return c  # any other escaped character is itself: \. \( \[ \{ \\ \- \/ \  ...
        if c.isdigit():
            self.fail("backreferences and octal escapes are not supported", start)
        if c in "AZz":
            self.fail(f"\\{c} is not supported: use ^ and $ (each line is matched on its own)", start)
        if c in "pP":
            self.fail(f"\\{c} (Unicode properties) is not supported: use \\w, \\d, \\s or a [...] class", start)
        self.fail(f"unknown escape \\{c}", start)
        raise AssertionError  # pragma: no cover - fail() raised

    def hex_escape(self, kind: str, start: int) -> str:
        if kind == "x" and self.peek() == "{":
            end = self.p.find("}", self.pos)
            digits = self.p[self.pos + 1 : end] if end > 0 else ""
            self.pos = end + 1 if end > 0 else self.pos
            ok = 1 <= len(digits) <= 6
        else:
            n = 2 if kind == "x" else 4
            digits = self.p[self.pos : self.pos + n]
            self.pos += n
            ok = len(digits) == n
        if not ok or not all(d in _HEX for d in digits):
            self.fail("bad hex escape: use \\xHH, \\x{H...} or \\uHHHH", start)
        cp = int(digits, 16)
        if cp > 0x10FFFF or gc.SURROGATES[0] <= cp <= gc.SURROGATES[1]:
            self.fail(f"\\{kind} escape names U+{cp:04X}, which is not a character", start)
        return chr(cp)

    def bracket(self, icase: bool) -> Chars:
        """``[...]`` / ``[^...]``: single characters, ranges a-z and \\d \\w \\s (and negations).
        Case folding applies to the characters and ranges, then the negation."""
        start = self.pos
        self.pos += 1
        negate = self.peek() == "^"
        self.pos += negate
        chars: list[tuple[int, int]] = []
        perl: list[tuple[int, int]] = []
        first = True
        while True:
            c = self.peek()
            if not c:
                self.fail("missing ']'", start)
            if c == "]" and not first:
                self.pos += 1
                break
            first = False
            if c == "[":
                hint = " (POSIX classes like [:alpha:] are not supported)" if self.peek(1) == ":" else ""
                self.fail(f"'[' inside a class must be escaped as \\[{hint}")
            item_at = self.pos
            low = self.class_char()
            if low is None:
                perl.extend(self.class_escape() or ())
                if self.peek() == "-" and self.peek(1) not in ("]", ""):
                    self.fail("a class range must start with a single character", item_at)
                continue
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                high = self.class_char()
                if high is None:
                    self.fail("a class range must end in a single character", item_at)
                    raise AssertionError  # pragma: no cover
                if high < low:
                    self.fail("class range out of order", item_at)
                if self.peek() == "-" and self.peek(1) not in ("]", ""):
                    self.fail("ambiguous '-' after a range: escape it as \\-")
                chars.append((low, high))
            else:
                chars.append((low, low))
        ranges = gc.normalize(chars)
        if icase:
            ranges = gc.fold(ranges)
        ranges = gc.normalize([*ranges, *perl])
        return Chars(gc.complement(ranges) if negate else ranges)

    def class_char(self) -> int | None:
        """The code point of the next class item, or None (position unchanged) for \\d \\w \\s."""
        c = self.peek()
        if c != "\\":
            self.pos += 1
            return ord(c)
        if self.peek(1).lower() in _PERL:
            self.pos += 1
            return None
        if self.peek(1) in ("b", "B"):
            self.fail("\\b is not allowed inside a class")
        start = self.pos
        self.pos += 1
        if not self.peek():
            self.fail("trailing backslash", start)
        return ord(self.char_escape(start))
