"""Admission's view of messages: read through ``ctxsieve.messages``, grouped into records.

Admission parses no provider shape itself: every message (a ``Message``, an OpenAI Chat,
OpenAI Responses or Anthropic dict, a provider SDK object) is read by the one codec for its
shape (``ctxsieve.messages.read_any``), strictly: a malformed message raises ``MessageError``
naming where it is (``history[3].role``), it is never guessed at or dropped. A provider
*response* given as the reply of a call reads as its assistant message.

>>> from ctxsieve.messages import MessageError
>>> [m.role for m in read_messages({"role": "user", "content": [
...     {"type": "tool_result", "tool_use_id": "t1", "content": "42"}, {"type": "text", "text": "ok?"}]}, "history[0]")]
['tool', 'user']
>>> read_messages({"content": "no role"}, "history[2]")
Traceback (most recent call last):
...
ctxsieve.messages.model.MessageError: history[2].role: None is not one of ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxsieve.audience import parse_audience, restrict
from ctxsieve.messages import Image, Message, ToolCall, read_any, response_message, units, user
from ctxsieve.messages.replies import is_response
from ctxsieve.types import ContextItem


def read_messages(raw: Any, where: str) -> list[Message]:
    """``raw`` as ``Message`` objects (two for an Anthropic user message holding tool results
    and text). A provider response (Chat Completions ``choices``, Responses ``output``) reads as
    the assistant message it carries."""
    if is_response(raw):
        return [response_message(raw, where)]
    return read_any(raw, where)


def read_user(raw: Any, where: str = "user") -> list[Message]:
    """The current message: a ``str`` is user text, anything else is read as a message."""
    return [user(raw)] if isinstance(raw, str) else read_messages(raw, where)


def _is_unit(h: Any) -> bool:
    """An engine history unit (a ``ContextItem``, or an object shaped like one): content and
    meta, and no role of its own (a provider SDK message has a role)."""
    if isinstance(h, ContextItem):
        return True
    return (
        not isinstance(h, (Mapping, Message, str))
        and hasattr(h, "content")
        and hasattr(h, "meta")
        and not hasattr(h, "role")
    )


def expand_history(history: Sequence[Any]) -> list[tuple[Any, str]]:
    """History as ``(raw message, where)`` pairs. Engine ``ContextItem`` history units (raw
    messages in ``meta["messages"]``, as ``HistorySource`` makes them) become their messages,
    each carrying the unit's audience restricted by its own: the most restrictive wins."""
    out: list[tuple[Any, str]] = []
    for i, h in enumerate(history):
        if not _is_unit(h):
            out.append((h, f"history[{i}]"))
            continue
        meta = getattr(h, "meta", None) or {}
        meta = meta if isinstance(meta, Mapping) else {}
        raw = meta.get("messages")
        msgs = list(raw) if raw else [{"role": meta.get("role") or "user", "content": h.content}]
        unit = parse_audience(getattr(h, "audience", None), f"history[{i}].audience")
        for k, m in enumerate(msgs):
            where = f"history[{i}].meta['messages'][{k}]"
            if isinstance(m, str):
                m = user(m)  # the engine's units may hold plain text (it renders it as user text)
            out.append((m if unit is None else _Labelled(m, unit), where))
    return out


@dataclass(frozen=True)
class _Labelled:
    """A unit's message with the unit's audience still to apply (when it is read)."""

    raw: Any
    audience: frozenset[str]

    def read(self, where: str) -> list[Message]:
        msgs = read_messages(self.raw, where)
        return [dataclasses.replace(m, audience=restrict(self.audience, m.audience)) for m in msgs]


def read_history_message(raw: Any, where: str) -> list[Message]:
    """One entry of ``expand_history`` as ``Message`` objects."""
    return raw.read(where) if isinstance(raw, _Labelled) else read_messages(raw, where)


@dataclass(frozen=True)
class Record:
    """Messages that leave the prompt together: one message, or a tool call with its results
    (a unit of ``ctxsieve.messages.units``). ``turn`` numbers the user turn the record belongs
    to (0 before the first user message); ``start`` is the index of its first message."""

    messages: tuple[Message, ...]
    turn: int
    start: int = 0


def group_records(messages: Sequence[Message]) -> list[Record]:
    """The units of ``messages`` as records; ``turn`` counts user messages up to each one."""
    records: list[Record] = []
    turn = 0
    for u in units(messages):
        if u.messages[0].role == "user":
            turn += 1
        records.append(Record(u.messages, turn, u.start))
        turn += sum(1 for m in u.messages[1:] if m.role == "user")
    return records


__all__ = [
    "Image",
    "Message",
    "Record",
    "ToolCall",
    "expand_history",
    "group_records",
    "read_history_message",
    "read_messages",
    "read_user",
]
