"""Units: the pieces a conversation may be cut into without breaking it.

A unit is one message, except that an assistant message calling tools travels with the
messages that carry its results, matched by call id, and with whatever sits between them (a user
interjecting): providers reject a call without its result and a result without its call. The
spans come from ``ctxsieve.messages.exchanges``; this is the only grouping of messages there is.

>>> from ctxsieve.messages.model import assistant, tool_result, user, ToolCall
>>> msgs = [user("list files"), assistant("", ToolCall("a", "ls"), ToolCall("b", "pwd")),
...         tool_result("b", "/src"), tool_result("a", "x.py"), assistant("x.py in /src")]
>>> [(u.start, u.end, u.kind) for u in units(msgs)]
[(0, 1, 'message'), (1, 4, 'tool_exchange'), (4, 5, 'message')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from ctxsieve.messages.exchanges import exchange_spans
from ctxsieve.messages.model import Message

# "summary" is given only by ctxsieve.loop.units, which groups a framework's own message
# objects and recognises their compaction summaries; the model has no summary message
UnitKind = Literal["system", "summary", "message", "tool_exchange", "orphan_result"]

M = TypeVar("M")


@dataclass(frozen=True, slots=True)
class Unit(Generic[M]):
    """Messages ``start`` to ``end`` (exclusive) of the list ``units()`` was given: ``Message``
    objects here, a framework's own objects when ``ctxsieve.loop.units`` grouped them."""

    start: int
    end: int
    kind: UnitKind
    messages: tuple[M, ...]

    def __len__(self) -> int:
        return self.end - self.start


def units(messages: Sequence[Message]) -> list[Unit[Message]]:
    """Group ``messages`` into units, in order; every message belongs to exactly one unit."""
    calls = [[c.id for c in m.tool_calls] for m in messages]
    answers = [[r.call_id for r in m.tool_results] for m in messages]
    out: list[Unit[Message]] = []
    for start, end in exchange_spans(calls, answers):
        first = messages[start]
        kind: UnitKind
        if calls[start]:
            kind = "tool_exchange"
        elif first.role == "system":
            kind = "system"
        elif answers[start]:
            kind = "orphan_result"
        else:
            kind = "message"
        out.append(Unit(start, end, kind, tuple(messages[start:end])))
    return out


__all__ = ["Unit", "UnitKind", "units"]
