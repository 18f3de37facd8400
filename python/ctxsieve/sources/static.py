"""Sources that hold their candidates in memory or compute them with your function."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from ctxsieve.sources.base import Proposal
from ctxsieve.types import ContextItem, Kind, Stability


class StaticSource:
    """Fixed content: a system prompt, a persona, tool policy text, a list of items.

    Strings become items ``<name>:<i>`` of the given kind and stability; items are proposed as
    they are. The same objects are returned on every build, so their token counts are cached.

    >>> StaticSource("Be brief.", pinned=True).candidates("any")[0].id
    'static:0'
    """

    blocking = False

    def __init__(
        self,
        content: str | Sequence[str | ContextItem],
        *,
        name: str = "static",
        kind: Kind = "instruction",
        stability: Stability = "stable",
        pinned: bool = False,
    ):
        self.name = name
        parts = [content] if isinstance(content, str) else list(content)
        self.items = [
            p
            if isinstance(p, ContextItem)
            else ContextItem(f"{name}:{i}", p, name, kind, stability, score=1.0, pinned=pinned)
            for i, p in enumerate(parts)
        ]

    def candidates(self, query: str) -> list[ContextItem]:
        return self.items


class CallableSource:
    """Candidates from ``fn(query)``, sync or async. A sync function runs on a worker thread
    unless ``blocking=False`` says it returns at once."""

    def __init__(self, fn: Callable[[str], Any], *, name: str, blocking: bool = True):
        self.fn = fn
        self.name = name
        self.blocking = blocking and not inspect.iscoroutinefunction(fn)

    def candidates(self, query: str) -> Proposal:
        return self.fn(query)  # type: ignore[no-any-return]
