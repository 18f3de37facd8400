"""A bounded subset of JSONPath (RFC 9535) for ``ctx_query``: parse an expression, select nodes.

The expression comes from the model, the document from a tool: both are untrusted, so every
cost is bounded and every failure is a ``JsonQueryError`` (a ``ValueError``) saying what and
where. The subset (docs/loop.md, "ctx_query"):

* ``$`` the root; ``.name`` a member (a name: a letter, ``_`` or any non-ASCII character, then
  those and digits); ``['a b']`` / ``["a b"]`` a member by quoted name (JSON escapes);
* ``[3]``, ``[-1]`` an element; ``[0:10]``, ``[::2]``, ``[-3:]`` a slice (Python's rules;
  step 0 is refused); ``[*]`` / ``.*`` every element or member; ``[0,2,'a']`` a union;
* ``..`` descendants: ``$..name``, ``$..*``, ``$..[0]`` (the node itself and everything below
  it, in document order, each visited once).

Not in the subset, each refused by name: filters ``[?...]``, functions, ``@``, script ``(...)``.

Selection is lazy: nodes are produced one at a time in document order, so the first results of
``$..*`` over a large document come without materialising the rest. ``Budget`` counts every value
visited, and a query that visits more than ``max_visits`` stops with an error naming the limit.
Nothing here recurses on the document: descendants are walked with an explicit stack, so a deep
document cannot exhaust Python's stack.

>>> doc = {"items": [{"id": 1, "tags": ["a"]}, {"id": 2}], "odd key": True}
>>> [(path_text(p), v) for p, v in select(parse("$.items[*].id"), doc, Budget())]
[('$.items[0].id', 1), ('$.items[1].id', 2)]
>>> [path_text(p) for p, _ in select(parse("$..[0]"), doc, Budget())]
['$.items[0]', '$.items[0].tags[0]']
>>> [v for _, v in select(parse("$['odd key']"), doc, Budget())]
[True]
>>> parse("$.items[?(@.id > 1)]")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ctxsieve.loop.json_path.JsonQueryError: path ...: filter expressions ([?...]) are not supported; ... at position 8
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAX_PATH_CHARS = 1000
MAX_SEGMENTS = 64
MAX_UNION = 64
MAX_INDEX = 2**53  # JSON's exact integers (RFC 9535 bounds indices to I-JSON's range)

# a node's place as a linked list from the node up to the root, (parent, step) or None for the
# root: extending a path is O(1), where copying a tuple of steps would cost the depth per node
Path = tuple[Any, str | int] | None


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


class Budget:
    """Counts the values a query visits; over ``max_visits`` it raises, naming the limit."""

    def __init__(self, max_visits: int = 1_000_000):
        self.max_visits = max_visits
        self.visits = 0

    def visit(self) -> None:
        self.visits += 1
        if self.visits > self.max_visits:
            raise JsonQueryError(
                f"the query visited more than {self.max_visits:,} values: narrow it (an index or a slice "
                "rather than * or .., e.g. $.items[0:100] rather than $..*)"
            )


def _apply(sel: Selector, path: Path, value: Any, budget: Budget) -> Iterator[tuple[Path, Any]]:
    if isinstance(sel, Name):
        if isinstance(value, dict) and sel.name in value:
            budget.visit()
            yield (path, sel.name), value[sel.name]
    elif isinstance(sel, Wild):
        if isinstance(value, dict):
            for k, v in value.items():
                budget.visit()
                yield (path, k), v
        elif isinstance(value, list):
            for i, v in enumerate(value):
                budget.visit()
                yield (path, i), v
    elif isinstance(value, list):
        if isinstance(sel, Index):
            i = sel.index + len(value) if sel.index < 0 else sel.index
            if 0 <= i < len(value):
                budget.visit()
                yield (path, i), value[i]
        else:
            for i in range(len(value))[sel.start : sel.stop : sel.step]:
                budget.visit()
                yield (path, i), value[i]


def _children(path: Path, value: Any) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield (path, k), v
    else:
        for i, v in enumerate(value):
            yield (path, i), v


def _descendants(path: Path, value: Any, budget: Budget) -> Iterator[tuple[Path, Any]]:
    """The node and every node below it, in document order (pre-order), without recursion: the
    stack holds one iterator per level, never a level's children copied."""
    yield path, value
    stack = [_children(path, value)] if isinstance(value, (dict, list)) else []
    while stack:
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            continue
        budget.visit()
        yield nxt
        if isinstance(nxt[1], (dict, list)):
            stack.append(_children(*nxt))


def select(segments: tuple[Segment, ...], doc: Any, budget: Budget) -> Iterator[tuple[Path, Any]]:
    """The nodes the path selects, as ``(path, value)`` in document order, lazily."""
    nodes: Iterator[tuple[Path, Any]] = iter([(None, doc)])
    for seg in segments:
        nodes = _segment(seg, nodes, budget)
    return nodes


def _segment(seg: Segment, nodes: Iterator[tuple[Path, Any]], budget: Budget) -> Iterator[tuple[Path, Any]]:
    for path, value in nodes:
        for p, v in _descendants(path, value, budget) if seg.descendant else ((path, value),):
            for sel in seg.selectors:
                yield from _apply(sel, p, v, budget)


def steps(path: Path) -> list[str | int]:
    """The member names and element indices from the root to the node."""
    out: list[str | int] = []
    while path is not None:
        path, step = path
        out.append(step)
    return out[::-1]


def path_text(path: Path) -> str:
    """A path as an expression of the subset (``$.items[0]['odd key']``), which selects it again."""
    out = ["$"]
    for step in steps(path):
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif _NAME.fullmatch(step):
            out.append("." + step)
        else:
            out.append("[" + quote(step) + "]")
    return "".join(out)


def quote(name: str) -> str:
    """``name`` as a quoted name of the subset: JSON's string escapes, single quotes."""
    body = escape_surrogates(json.dumps(name, ensure_ascii=False))[1:-1].replace('\\"', '"').replace("'", "\\'")
    return "'" + body + "'"


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """Lone surrogates (which JSON escapes may decode to, and no UTF-8 output can carry) written
    as ``\\uXXXX``; they only occur inside JSON strings, where that escape means them exactly."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


__all__ = ["Budget", "JsonQueryError", "Path", "escape_surrogates", "parse", "path_text", "quote", "select", "steps"]
