"""Builders the integration tests share (imported by name: conftest puts this folder on sys.path)."""

from __future__ import annotations

from typing import Any


def numbered(n: int, word: str = "row") -> str:
    """A tool result of ``n`` lines, big enough to be offloaded at small limits."""
    return "\n".join(f"{word} {i}: " + "x" * 40 for i in range(n))


SECRET = "SECRET-4711"


def labelled_engine() -> Any:
    """An engine whose knowledge holds a public item and one only reader "alice" may read."""
    from ctxsieve import ContextEngine, ContextItem, StaticSource

    items = [
        ContextItem("kb:pub", "Payroll runs on the last Friday.", "kb", "knowledge", "volatile", score=1.0),
        ContextItem(
            "kb:alice",
            f"Alice's payroll number is {SECRET}.",
            "kb",
            "knowledge",
            "volatile",
            score=1.0,
            audience="alice",
        ),
    ]
    return ContextEngine([StaticSource(items, name="kb")], budget=400)
