"""The conversation as candidates: one item per unit, newest scored highest.

A unit is one message, except that an assistant message that calls tools travels with the
results of those calls and whatever sits between them: providers reject a tool call without
its result, so the two are never split (``ctxsieve.messages.exchanges``). Both shapes are understood:
OpenAI (``tool_calls`` then ``role: "tool"`` messages) and Anthropic (``tool_use`` blocks then
a user message of ``tool_result`` blocks). System messages are skipped: the system prompt is a
``StaticSource``.

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
from ctxsieve.messages.model import MessageError
from ctxsieve.types import ContextItem, Stability

Message = Mapping[str, Any]


def _tool_call_ids(m: Message) -> set[str]:
    ids = {str(c.get("id")) for c in m.get("tool_calls") or () if isinstance(c, Mapping)}
    content = m.get("content")
    if isinstance(content, list):
        ids |= {str(b.get("id")) for b in content if isinstance(b, Mapping) and b.get("type") == "tool_use"}
    return ids


def _answers(m: Message) -> set[str]:
    """The tool call ids ``m`` carries results for."""
    if m.get("role") == "tool":
        return {str(m.get("tool_call_id"))}
    content = m.get("content")
    if m.get("role") == "user" and isinstance(content, list):
        return {str(b.get("tool_use_id")) for b in content if isinstance(b, Mapping) and b.get("type") == "tool_result"}
    return set()


def units(messages: Sequence[Message]) -> list[tuple[int, list[Message]]]:
    """``(index of first message, messages)`` per unit, in order; system messages skipped."""
    calls = [_tool_call_ids(m) if m.get("role") == "assistant" else set() for m in messages]
    answers = [_answers(m) for m in messages]
    out: list[tuple[int, list[Message]]] = []
    for start, end in exchange_spans(calls, answers):
        unit = [m for m in messages[start:end] if m.get("role") != "system"]
        if unit:
            out.append((start if messages[start].get("role") != "system" else start + 1, unit))
    return out


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

    def candidates(self, query: str) -> list[ContextItem]:
        """One item per unit; ``MessageError`` when a message is not a message dict (checked on
        every call: the list may have grown, or come from a callable, since construction)."""
        msgs = check_messages(self.messages() if callable(self.messages) else self.messages, self.name)
        out = []
        cache: dict[int, tuple[list[Message], list[Any], int, ContextItem]] = {}
        for k, (start, unit) in enumerate(units(msgs)):
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
        return out
