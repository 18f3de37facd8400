"""History units: the pieces a conversation may be cut into without breaking it.

A unit is one message, except that an assistant message calling tools travels with the
messages that carry its results: providers reject a tool call without its result and a result
without its call. Results with no call before them (orphans) stand alone, as does a call
whose results never came.

>>> msgs = [
...     {"role": "system", "content": "be brief"},
...     {"role": "user", "content": "list files"},
...     {"role": "assistant", "content": None, "tool_calls": [
...         {"id": "a", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
...         {"id": "b", "type": "function", "function": {"name": "pwd", "arguments": "{}"}}]},
...     {"role": "tool", "tool_call_id": "a", "content": "x.py"},
...     {"role": "tool", "tool_call_id": "b", "content": "/src"},
...     {"role": "assistant", "content": "x.py in /src"},
... ]
>>> [(u.start, u.end, u.kind) for u in units(msgs)]
[(0, 1, 'system'), (1, 2, 'message'), (2, 5, 'tool_exchange'), (5, 6, 'message')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ctxsieve.loop.adapters import MessageAdapter, adapter_for

UnitKind = Literal["system", "summary", "message", "tool_exchange", "orphan_result"]


@dataclass(frozen=True)
class Unit:
    """Messages ``start`` to ``end`` (exclusive) of the list ``units()`` was given."""

    start: int
    end: int
    kind: UnitKind
    messages: tuple[Any, ...]

    def __len__(self) -> int:
        return self.end - self.start


def units(messages: Sequence[Any], adapter: MessageAdapter | str | None = None) -> list[Unit]:
    """Group ``messages`` into units, in order; every message belongs to exactly one unit."""
    a = adapter_for(messages, adapter)
    out: list[Unit] = []
    i, n = 0, len(messages)
    while i < n:
        m = messages[i]
        role = a.role(m)
        start = i
        i += 1
        pending = set(a.tool_call_ids(m)) if role == "assistant" else set()
        if pending:
            # take every following message that answers one of the open calls
            while pending and i < n:
                answered = set(a.tool_result_ids(messages[i]))
                if not answered & pending:
                    break
                pending -= answered
                i += 1
            kind: UnitKind = "tool_exchange"
        elif role == "system":
            kind = "system"
        elif a.summary(m) is not None:
            kind = "summary"
        elif a.tool_result_ids(m):
            kind = "orphan_result"
        else:
            kind = "message"
        out.append(Unit(start, i, kind, tuple(messages[start:i])))
    return out
