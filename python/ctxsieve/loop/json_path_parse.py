"""Parsing the ``ctx_query`` path subset (``json_path`` has the subset, selection and paths).

Every failure is a ``JsonQueryError`` whose message quotes the expression and gives the
0-based position where parsing stopped; the limits are checked as the expression is read, so a
long or hostile expression costs its length and no more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_PATH_CHARS = 1000
MAX_SEGMENTS = 64
MAX_UNION = 64
MAX_INDEX = 2**53  # JSON's exact integers (RFC 9535 bounds indices to I-JSON's range)


class JsonQueryError(ValueError):
    """A path expression outside the subset, or a query over one of its limits."""


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Index:
    index: int


@dataclass(frozen=True)
class Slice:
    start: int | None
    stop: int | None
    step: int | None


@dataclass(frozen=True)
class Wild:
    pass


Selector = Name | Index | Slice | Wild


@dataclass(frozen=True)
class Segment:
    selectors: tuple[Selector, ...]
    descendant: bool  # ``..``: apply the selectors to the node and every node below it


# RFC 9535 name characters: no surrogates (a key holding one is written quoted, escaped)
_NAME_START = re.compile(r"[A-Za-z_\u0080-\ud7ff\ue000-\U0010ffff]")
_NAME = re.compile(r"[A-Za-z_\u0080-\ud7ff\ue000-\U0010ffff][A-Za-z0-9_\u0080-\ud7ff\ue000-\U0010ffff]*")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\", "'": "'", '"': '"'}


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def fail(self, what: str, at: int | None = None) -> JsonQueryError:
        return JsonQueryError(f"path {self.text!r:.120}: {what} at position {self.pos if at is None else at}")

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < len(self.text) else ""

    def spaces(self) -> None:
        while self.peek() in (" ", "\t", "\n", "\r") and self.peek():
            self.pos += 1

    def query(self) -> tuple[Segment, ...]:
        if self.peek() != "$":
            raise self.fail("a path starts with $ (the root)")
        self.pos = 1
        segments: list[Segment] = []
        while self.pos < len(self.text):
            if len(segments) == MAX_SEGMENTS:
                raise self.fail(f"more than {MAX_SEGMENTS} segments")
            segments.append(self.segment())
        return tuple(segments)

    def segment(self) -> Segment:
        c = self.peek()
        if c == "[":
            return Segment(self.bracket(), False)
        if c != ".":
            if c == "@":
                raise self.fail("@ (the current node) exists only inside filters, which are not supported")
            raise self.fail(f"expected . or [ , got {c!r}")
        if self.peek(1) == ".":
            self.pos += 2
            if self.peek() == "[":
                return Segment(self.bracket(), True)
            return Segment((self.member(),), True)
        self.pos += 1
        return Segment((self.member(),), False)

    def member(self) -> Selector:
        if self.peek() == "*":
            self.pos += 1
            return Wild()
        m = _NAME.match(self.text, self.pos)
        if not m:
            got = self.peek()
            hint = "; quote it: ['...']" if got and not _NAME_START.match(got) else ""
            raise self.fail(f"expected a member name or * after '.', got {got!r}{hint}")
        self.pos = m.end()
        return Name(m.group(0))

    def bracket(self) -> tuple[Selector, ...]:
        start = self.pos
        self.pos += 1
        selectors: list[Selector] = []
        while True:
            self.spaces()
            if len(selectors) == MAX_UNION:
                raise self.fail(f"more than {MAX_UNION} selectors in one [...]")
            selectors.append(self.selector())
            self.spaces()
            c = self.peek()
            if c == "]":
                self.pos += 1
                return tuple(selectors)
            if c != ",":
                raise self.fail("unclosed [" if not c else f"expected , or ] in [...], got {c!r}", None if c else start)
            self.pos += 1

    def selector(self) -> Selector:
        c = self.peek()
        if c in ("'", '"'):
            return Name(self.quoted(c))
        if c == "*":
            self.pos += 1
            return Wild()
        if c == "?":
            raise self.fail("filter expressions ([?...]) are not supported; select by index, slice, name or *")
        if c == "(":
            raise self.fail("script expressions ([(...)]) are not supported")
        first = self.integer()
        self.spaces()
        if self.peek() != ":":
            if first is None:
                raise self.fail(f"expected an index, a slice, a quoted name or *, got {c!r}" if c else "unclosed [")
            return Index(first)
        parts = [first]
        while self.peek() == ":" and len(parts) < 3:
            self.pos += 1
            self.spaces()
            parts.append(self.integer())
            self.spaces()
        if len(parts) == 3 and parts[2] == 0:
            raise self.fail("a slice step of 0 selects nothing: use a positive or negative step")
        return Slice(parts[0], parts[1], parts[2] if len(parts) == 3 else None)

    def integer(self) -> int | None:
        m = _INT.match(self.text, self.pos)
        if not m:
            if self.peek() == "-" or self.peek().isdigit():
                raise self.fail("an index is an integer without leading zeros or '+'")
            return None
        if len(m.group(0)) > 17 or abs(int(m.group(0))) > MAX_INDEX:
            raise self.fail(f"index {m.group(0)[:20]} is outside -2^53..2^53")
        self.pos = m.end()
        return int(m.group(0))

    def quoted(self, quote: str) -> str:
        start = self.pos
        self.pos += 1
        out: list[str] = []
        while True:
            c = self.peek()
            if not c:
                raise self.fail(f"unclosed {quote}-quoted name", start)
            self.pos += 1
            if c == quote:
                return "".join(out)
            if c != "\\":
                if ord(c) < 0x20:
                    raise self.fail("a control character in a quoted name must be escaped (\\n, \\u0001)", self.pos - 1)
                out.append(c)
                continue
            e = self.peek()
            self.pos += 1
            if e == "u":
                digits = self.text[self.pos : self.pos + 4]
                if not re.fullmatch(r"[0-9A-Fa-f]{4}", digits):
                    raise self.fail("\\u takes 4 hex digits", self.pos - 2)
                out.append(chr(int(digits, 16)))  # a lone surrogate names a key holding one
                self.pos += 4
            elif e in _ESCAPES and (e not in "'\"" or e == quote):
                out.append(_ESCAPES[e])
            else:
                raise self.fail(f"unknown escape \\{e}", self.pos - 2)


def parse(text: str) -> tuple[Segment, ...]:
    """The segments of a path expression; ``JsonQueryError`` naming the position otherwise."""
    if not isinstance(text, str):
        raise JsonQueryError(f"path must be a string, got {type(text).__name__}")
    if len(text) > MAX_PATH_CHARS:
        raise JsonQueryError(f"path is {len(text)} characters: at most {MAX_PATH_CHARS}")
    return _Parser(text).query()


__all__ = ["Index", "JsonQueryError", "Name", "Segment", "Selector", "Slice", "Wild", "parse"]
