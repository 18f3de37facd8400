"""The conversation as candidates: one item per unit, newest scored highest.

A unit is one message, except that an assistant message that calls tools travels with the
results of those calls and whatever sits between them: providers reject a tool call without
its result, so the two are never split (``ctxsieve.messages.exchanges``). Every message is read
with the codecs of ``ctxsieve.messages`` (OpenAI Chat, Anthropic, Responses), once while it stays
the same object: a malformed one is a ``MessageError`` naming it. System messages are skipped: the
system prompt is a ``StaticSource``.

``messages`` may be a list you keep appending to, or a callable returning the current list;
unit ids are ``<name>:<index of the unit's first message>``, so they stay the same as the
conversation grows and the rendered history stays byte-identical (what the prefix cache needs).

>>> src = HistorySource([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
>>> [(i.id, i.order_key) for i in src.candidates("q")]
[('history:0', '00000000'), ('history:1', '00000001')]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ctxsieve.messages.exchanges import exchange_spans
from ctxsieve.messages.model import Message as Model
from ctxsieve.messages.model import MessageError
from ctxsieve.messages.texts import read_any
from ctxsieve.types import ContextItem, Stability

Message = Mapping[str, Any]


Read = tuple[Message, Any, Any, list[Model]]  # (raw message, its content, its tool_calls, its reading)


def read_units(
    messages: Sequence[Message], read: Callable[[int, Message], list[Model]]
) -> list[tuple[int, list[Message]]]:
    """``(index of first message, messages)`` per unit, in order; system messages skipped.
    ``read(i, m)`` is message ``i`` in the one model (``ctxsieve.messages``): which calls it
    makes and which it answers come from there, never from the provider's fields."""
    models = [read(i, m) for i, m in enumerate(messages)]
    calls = [[c.id for x in ms for c in x.tool_calls] for ms in models]
    answers = [[r.call_id for x in ms for r in x.tool_results] for ms in models]
    system = [bool(ms) and all(x.role == "system" for x in ms) for ms in models]
    out: list[tuple[int, list[Message]]] = []
    for start, end in exchange_spans(calls, answers):
        unit = [messages[i] for i in range(start, end) if not system[i]]
        if unit:
            out.append((next(i for i in range(start, end) if not system[i]), unit))
    return out


def units(messages: Sequence[Message]) -> list[tuple[int, list[Message]]]:
    """``read_units`` reading every message afresh (``read_any``)."""
    return read_units(messages, lambda i, m: read_any(m, f"messages[{i}]"))


def unit_text(unit: Sequence[Message]) -> str:
    """What a unit costs and how it is compared: each message as ``role: content``, with tool
    calls as JSON (their arguments are tokens too)."""
    parts = []
    for m in unit:
        content = m.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
        calls = m.get("tool_calls")
        if calls:
            text += "\n" + json.dumps(calls, ensure_ascii=False, default=str)
        parts.append(f"{m.get('role')}: {text}")
    return "\n".join(parts)


def check_messages(messages: Any, name: str) -> Sequence[Message]:
    """``messages`` if it is a sequence of message dicts, else a ``MessageError`` naming the
    first message that is not one, and what is accepted."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise MessageError(
            f"HistorySource {name!r}: messages must be a list of message dicts (or a callable returning"
            f" one), got {type(messages).__name__}"
        )
    # type() first: every message of every build passes here, and nearly all are plain dicts
    for k, m in enumerate(messages):
        if type(m) is not dict and not isinstance(m, Mapping):
            kind = type(m)
            raise MessageError(
                f"HistorySource {name!r}: messages[{k}] is a {kind.__module__}.{kind.__qualname__}, not a"
                " message dict: a HistorySource reads dicts (Mapping) in the OpenAI Chat or Anthropic"
                " Messages shape; LangChain messages convert through ctxsieve.integrations.langchain,"
                " PydanticAI messages through ctxsieve.integrations.pydantic_ai"
            )
    return messages


def _label_copy(label: Any) -> Any:
    """A label as it is now: a list or set changed in place later must not compare equal."""
    if label is None or isinstance(label, str):
        return label
    try:
        return tuple(label)
    except TypeError:
        return label


class HistorySource:
    """The chat history. ``min_items`` (default 1: the newest unit) of the latest units always
    go in; a ``SourceConfig(min_items=...)`` or the ``Budget``'s ``min_items`` overrides it."""

    blocking = False

    def __init__(
        self,
        messages: Sequence[Message] | Callable[[], Sequence[Message]],
        *,
        name: str = "history",
        stability: Stability = "session",
        min_items: int = 1,
    ):
        if not callable(messages):
            check_messages(messages, name)  # here, where the mistake is, not at the first build
        self.messages = messages
        self.min_items = min_items  # read by SourceConfig (declared_min_items), checked there
        self.name = name
        self.stability = stability
        # start index -> (the unit's messages, their contents, position, item): a unit whose
        # messages are the same objects with the same content objects as on the last call
        # keeps its item, so a long conversation is not re-serialised on every call. Holding
        # the messages keeps their ids from being reused while cached. Edit a message by
        # replacing it (or its content), not by mutating nested fields in place.
        self._cache: dict[int, tuple[list[Message], list[Any], int, ContextItem]] = {}
        # id(raw message) -> its reading, kept while the message, its content and its tool calls
        # are the same objects: a long conversation is read once, not on every build
        self._read: dict[int, Read] = {}

    def _reading(self, i: int, m: Message) -> list[Model]:
        hit = self._read.get(id(m))
        content, calls = m.get("content"), m.get("tool_calls")
        if hit is not None and hit[0] is m and hit[1] is content and hit[2] is calls:
            return hit[3]
        got = read_any(m, f"HistorySource {self.name!r}: messages[{i}]")
        self._read[id(m)] = (m, content, calls, got)
        return got

    def candidates(self, query: str) -> list[ContextItem]:
        """One item per unit; ``MessageError`` when a message is not a message dict (checked on
        every call: the list may have grown, or come from a callable, since construction)."""
        msgs = check_messages(self.messages() if callable(self.messages) else self.messages, self.name)
        out = []
        cache: dict[int, tuple[list[Message], list[Any], int, ContextItem]] = {}
        for k, (start, unit) in enumerate(read_units(msgs, self._reading)):
            # the audience is compared by value: a label added in place must reach the item
            contents = [(m.get("content"), _label_copy(m.get("audience"))) for m in unit]
            hit = self._cache.get(start)
            if (
                hit is not None
                and hit[2] == k
                and len(hit[0]) == len(unit)
                and all(a is b for a, b in zip(hit[0], unit))
                and all(a[0] is b[0] and a[1] == b[1] for a, b in zip(hit[1], contents))
            ):
                cache[start] = hit
                out.append(hit[3])
                continue
            item = ContextItem(
                f"{self.name}:{start}",
                unit_text(unit),
                self.name,
                "history",
                self.stability,
                score=float(k),
                order_key=f"{start:08d}",
                meta={"messages": [dict(m) for m in unit], "role": unit[0].get("role")},
            )
            cache[start] = (unit, contents, k, item)
            out.append(item)
        self._cache = cache
        if len(self._read) > 2 * len(msgs) + 64:  # what left the list is forgotten
            self._read = {id(m): self._read[id(m)] for m in msgs if id(m) in self._read}
        return out
