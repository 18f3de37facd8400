"""The parse tree of a grep pattern, and the sizes its compiled program will have.

``grep_dialect.parse`` builds it; ``grep_program`` compiles it. One character test is a
``Chars`` (its code-point ranges are final: case folding and negation are already applied).
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxsieve.kernels import grep_classes as gc


@dataclass(frozen=True)
class Chars:
    """One character from ``ranges``; ``literal`` is that character when the test is one
    case-sensitive character (the fast paths look for those)."""

    ranges: gc.Ranges
    literal: str | None = None


@dataclass(frozen=True)
class Assert:
    kind: str  # "^" line start, "$" line end, "b" word boundary, "B" not a word boundary


@dataclass(frozen=True)
class Concat:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    item: Node
    lo: int
    hi: int | None  # None: unbounded


Node = Chars | Assert | Concat | Alt | Repeat


def program_size(node: Node) -> int:
    """Instructions ``grep_program.Compiled`` emits for ``node`` (before the final MATCH);
    computed without expanding anything, so ``(?:a{500}){500}`` costs nothing here."""
    if isinstance(node, (Chars, Assert)):
        return 1
    if isinstance(node, Concat):
        return sum(program_size(x) for x in node.items)
    if isinstance(node, Alt):
        return sum(program_size(x) for x in node.items) + 2 * (len(node.items) - 1)
    s = program_size(node.item)
    if node.hi is None:
        return node.lo * s + s + 2
    return node.lo * s + (node.hi - node.lo) * (s + 1)


def class_ranges(node: Node) -> int:
    """Code-point ranges summed over the character tests of the expanded program."""
    if isinstance(node, Chars):
        return len(node.ranges)
    if isinstance(node, Assert):
        return 0
    if isinstance(node, (Concat, Alt)):
        return sum(class_ranges(x) for x in node.items)
    return class_ranges(node.item) * (node.lo if node.hi is None else node.hi) + (
        class_ranges(node.item) if node.hi is None else 0
    )
