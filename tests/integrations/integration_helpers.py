"""Builders the integration tests share (imported by name: conftest puts this folder on sys.path)."""

from __future__ import annotations


def numbered(n: int, word: str = "row") -> str:
    """A tool result of ``n`` lines, big enough to be offloaded at small limits."""
    return "\n".join(f"{word} {i}: " + "x" * 40 for i in range(n))
