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
ctxsieve.loop.json_path_parse.JsonQueryError: path ...: filter expressions ([?...]) are not supported; ... at position 8
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ctxsieve.loop.json_path_parse import _NAME, Index, JsonQueryError, Name, Segment, Selector, Slice, Wild, parse

# a node's place as a linked list from the node up to the root, (parent, step) or None for the
# root: extending a path is O(1), where copying a tuple of steps would cost the depth per node
Path = tuple[Any, str | int] | None


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


__all__ = [
    "Budget",
    "Index",
    "JsonQueryError",
    "Name",
    "Path",
    "Segment",
    "Selector",
    "Slice",
    "Wild",
    "escape_surrogates",
    "parse",
    "path_text",
    "quote",
    "select",
    "steps",
]
