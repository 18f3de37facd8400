"""Offloaded JSON: strict parsing, bounded output, and the shape preview written at offload time.

``load`` parses strict JSON (RFC 8259: no ``NaN`` or ``Infinity``) and turns every failure into
a ``JsonQueryError`` naming it: not JSON (with the parser's line and column), nested deeper than
the parser allows, an integer over Python's digit limit. ``dump`` writes a value as compact JSON
but stops at a character budget, so a query that selects a 50 MB subtree returns its beginning,
not a 50 MB answer. ``shape`` describes a document by its structure: every path down to a depth
(objects' keys, arrays' lengths, each leaf's type and first value), with the elements of an array
merged into one ``[*]`` description from the first ``SAMPLE`` of them, so an array of 10,000
records costs the same as one of 20. Nothing here recurses on the document.

>>> doc = load('{"items": [{"id": 1, "name": "a"}, {"id": 2}], "total": 2}')
>>> print("\\n".join(shape(doc, 3)))
$: object, 2 keys
$.items: array of 2, all objects
$.items[*]: object
$.items[*].id: int, e.g. 1
$.items[*].name: str, e.g. "a" (in 1 of 2)
$.total: int 2
>>> dump(doc, 20)
('{"items":[{"id":1,"n', True)
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from ctxsieve.loop.json_path import JsonQueryError, Path, escape_surrogates, path_text

SAMPLE = 20  # elements of an array whose structure the preview merges
MAX_KEYS = 40  # keys of one object the preview lists
SAMPLE_CHARS = 40  # a sample string is shown up to this many characters
COUNT_KINDS = 10_000  # elements of one array whose kinds the preview counts


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def load(text: str) -> Any:
    """``text`` parsed as strict JSON; ``JsonQueryError`` saying why it is not."""
    try:
        return json.loads(text, parse_constant=_constant)
    except RecursionError:
        # the C parser counts its depth against Python's recursion limit (about 1,000 levels,
        # fewer in a deep call stack) and stops cleanly there
        raise JsonQueryError("not usable as JSON: nested more deeply than the JSON parser allows") from None
    except ValueError as exc:  # JSONDecodeError names the line and column; the digit limit says so too
        raise JsonQueryError(f"not valid JSON: {exc}") from None


def scalar(value: Any, max_chars: int | None = None) -> str:
    """A JSON scalar as text; a string longer than ``max_chars`` is cut (without its closing quote)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)
    if max_chars is not None and len(value) > max_chars:
        return escape_surrogates(json.dumps(value[:max_chars], ensure_ascii=False))[:-1] + "…"
    return escape_surrogates(json.dumps(value, ensure_ascii=False))


def _pieces(value: Any, budget: int) -> Iterator[str]:
    """The compact JSON of ``value`` piece by piece, with an explicit stack (no recursion); a
    string is never written longer than ``budget``, since nothing past it would be shown."""
    if not isinstance(value, (dict, list)):
        yield scalar(value, budget)
        return
    stack: list[tuple[Iterator[Any], bool, str]] = []
    yield "{" if isinstance(value, dict) else "["
    stack.append((iter(value.items()) if isinstance(value, dict) else iter(value), isinstance(value, dict), ""))
    while stack:
        it, is_obj, sep = stack[-1]
        item = next(it, stack)  # the stack itself marks the end: no value is ever it
        if item is stack:
            stack.pop()
            yield "}" if is_obj else "]"
            continue
        stack[-1] = (it, is_obj, ",")
        if is_obj:
            key, child = item
            yield sep + scalar(key, budget) + ":"
        else:
            child = item
            yield sep
        if isinstance(child, (dict, list)) and child:
            yield "{" if isinstance(child, dict) else "["
            stack.append((iter(child.items()) if isinstance(child, dict) else iter(child), isinstance(child, dict), ""))
        elif isinstance(child, (dict, list)):
            yield "{}" if isinstance(child, dict) else "[]"
        else:
            yield scalar(child, budget)


def dump(value: Any, max_chars: int) -> tuple[str, bool]:
    """``value`` as compact JSON cut to ``max_chars``, and whether it was cut."""
    out: list[str] = []
    size = 0
    for piece in _pieces(value, max_chars):
        out.append(piece)
        size += len(piece)
        if size > max_chars:
            return "".join(out)[:max_chars], True
    return "".join(out), False


def kind(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "bool"
    return {dict: "object", list: "array", int: "int", float: "float", str: "str"}[type(value)]


_PLURAL = {"object": "objects", "array": "arrays", "str": "strings", "int": "ints", "float": "floats"}


def shape(doc: Any, max_depth: int, max_lines: int = 400, memo: dict[int, Counter[str]] | None = None) -> list[str]:
    """One line per path down to ``max_depth`` levels (at most ``max_lines``): ``path: what``.

    Each entry of the work list is a path and the values found there: one value for a path of
    the document itself, several for a path under ``[*]`` (one per sampled element that has it).
    ``memo`` keeps each array's element kinds across calls on the same document (the preview
    tries one depth after another)."""
    memo = {} if memo is None else memo
    lines: list[str] = []
    todo: list[tuple[Path, str, list[Any], int, int]] = [(None, "$", [doc], 1, 0)]
    while todo and len(lines) < max_lines:
        path, text, values, of, depth = todo.pop()
        kinds = Counter(kind(v) for v in values)
        many = of > 1 or len(values) > 1
        line = f"{text}: {_what(values, kinds, many, memo)}"
        if many and len(values) < of:
            line += f" (in {len(values)} of {of})"
        lines.append(line)
        if depth >= max_depth:
            continue
        children: list[tuple[Path, str, list[Any], int, int]] = []
        objects = [v for v in values if isinstance(v, dict)]
        keys: dict[str, None] = {}
        for o in objects:
            for k in o:
                if k not in keys and len(keys) == MAX_KEYS:
                    break
                keys[k] = None
        for k in keys:
            children.append(((path, k), _child(text, k), [o[k] for o in objects if k in o], len(objects), depth + 1))
        arrays = [v for v in values if isinstance(v, list)]
        sample = [x for a in arrays for x in a[:SAMPLE]][: SAMPLE * 2]
        if sample:
            children.append(((path, "*"), text + "[*]", sample, len(sample), depth + 1))
        todo.extend(reversed(children))
        widest = max((len(o) for o in objects), default=0)
        if widest > len(keys):
            lines.append(f"{text}: … keys after the first {MAX_KEYS} not shown (one object has {widest:,})")
    return lines


def _child(text: str, key: str) -> str:
    return path_text((None, key)).replace("$", text, 1)


def _what(values: list[Any], kinds: Counter[str], many: bool, memo: dict[int, Counter[str]]) -> str:
    if not values:
        return ""
    if len(kinds) > 1:
        first = next((v for v in values if not isinstance(v, (dict, list))), None)
        mix = "|".join(k for k, _ in kinds.most_common())
        return mix + (f", e.g. {scalar(first, SAMPLE_CHARS)}" if first is not None else "")
    (k,) = kinds
    v = values[0]
    if k == "object":
        return f"object, {len(v):,} keys" if not many else "object"
    if k == "array":
        if many:
            lengths = [len(a) for a in values]
            return (
                f"arrays of {min(lengths):,}-{max(lengths):,}"
                if min(lengths) != max(lengths)
                else f"arrays of {lengths[0]:,}"
            )
        # element kinds from the first COUNT_KINDS elements: a preview never walks a huge array
        inner = memo.get(id(v)) or memo.setdefault(id(v), Counter(kind(x) for x in v[:COUNT_KINDS]))
        seen = "" if len(v) <= COUNT_KINDS else f" (of the first {COUNT_KINDS:,})"
        if len(inner) == 1:
            (ik,) = inner
            return f"array of {len(v):,}, all {_PLURAL.get(ik, ik)}{seen}"
        return f"array of {len(v):,}" + (
            f" ({', '.join(f'{n} {t}' for t, n in inner.most_common())}{seen})" if v else ""
        )
    if k == "null":
        return "null"
    return f"{k}, e.g. {scalar(v, SAMPLE_CHARS)}" if many else f"{k} {scalar(v, SAMPLE_CHARS)}"


__all__ = ["SAMPLE", "dump", "kind", "load", "scalar", "shape"]
