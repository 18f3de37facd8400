"""YAML with a bounded cost: policy files and OKF front matter are parsed through ``load``.

``yaml.safe_load`` is safe from code execution, not from cost. Aliases make a document's value a
graph whose expansion grows exponentially with its size (ten levels of ten aliases each, the
"billion laughs", is a few hundred bytes): the loader itself shares the nodes, but whatever walks
the value afterwards (pydantic, ``str()``, a ``for`` over tags) expands it. Deep nesting makes
the composer recurse until ``RecursionError`` (the C loader recurses in C). So before anything
is built, one pass over the parser's events, which is flat, checks the text's length, the
nesting depth and the number of nodes *after* alias expansion (an alias counts as the whole node
it names), and refuses an alias to a node that is still open (a recursive value).

>>> load("tags: &t [a, b]\\nmore: *t", where="doc")
{'tags': ['a', 'b'], 'more': ['a', 'b']}
>>> load("a: &a [x, x]\\nb: &b [*a, *a]\\nc: [*b, *b]", where="doc", max_nodes=10)
Traceback (most recent call last):
...
ctxsieve.yaml_bounds.YAMLBoundError: doc: more than 10 YAML nodes once aliases are expanded
"""

from __future__ import annotations

from typing import Any

from ctxsieve.errors import ContextError, MissingExtraError

try:
    import yaml
except ImportError:  # pragma: no cover - exercised only without the extra
    raise MissingExtraError("yaml", "pyyaml") from None

# libyaml when it is built in: the same values as the pure-Python loader, several times faster
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_DEPTH = 64


class YAMLBoundError(ContextError, ValueError):
    """A YAML text over one of ``load``'s bounds; the message names the text and the bound."""


def check(text: str, *, where: str, max_chars: int, max_nodes: int, max_depth: int = MAX_DEPTH) -> None:
    """Raise ``YAMLBoundError`` when ``text`` is longer than ``max_chars``, nests deeper than
    ``max_depth`` or expands to more than ``max_nodes`` nodes; ``yaml.YAMLError`` when it does
    not parse. Linear in the length of the text."""
    if len(text) > max_chars:
        raise YAMLBoundError(f"{where}: {len(text)} characters, more than the {max_chars} allowed")
    try:
        _walk(text, where, max_nodes, max_depth)
    except yaml.YAMLError as exc:
        # libyaml (the C loader of PyYAML >= 6.0.4's wheels) has a nesting limit of its own and
        # may reach it scanning ahead, before our parser events show depth 64: the same answer
        if "maximum nesting depth" in str(exc):
            raise YAMLBoundError(f"{where}: nested more than {max_depth} levels deep") from None
        raise


def _walk(text: str, where: str, max_nodes: int, max_depth: int) -> None:
    anchors: dict[str, int] = {}  # anchor -> expanded size of its node, once the node is closed
    opened: list[tuple[str | None, int]] = []  # open collections: their anchor, nodes before them
    nodes = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent):
            size = anchors.get(event.anchor)  # type: ignore[arg-type]
            if size is None:
                if any(a == event.anchor for a, _ in opened):
                    raise YAMLBoundError(f"{where}: alias *{event.anchor} refers to a node that contains it")
                raise YAMLBoundError(f"{where}: alias *{event.anchor} names no anchor before it")
            nodes += size
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if len(opened) >= max_depth:
                raise YAMLBoundError(f"{where}: nested more than {max_depth} levels deep")
            opened.append((event.anchor, nodes))
            nodes += 1
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            anchor, before = opened.pop()
            if anchor is not None:
                anchors[anchor] = nodes - before
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
            if event.anchor is not None:
                anchors[event.anchor] = 1
        if nodes > max_nodes:
            raise YAMLBoundError(f"{where}: more than {max_nodes} YAML nodes once aliases are expanded")


def load(text: str, *, where: str, max_chars: int = 1 << 20, max_nodes: int = 100_000) -> Any:
    """``yaml.safe_load(text)`` once ``check`` has passed: the same value, at a bounded cost."""
    check(text, where=where, max_chars=max_chars, max_nodes=max_nodes)
    return yaml.load(text, Loader=_Loader)  # a safe loader: SafeLoader or CSafeLoader
