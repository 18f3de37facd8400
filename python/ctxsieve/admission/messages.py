"""The provider-neutral message, and the reading of OpenAI/Anthropic-style dicts into it.

Malformed input is never dropped: a message without a role is read as user text, a tool result
without a call id stays a tool result, non-JSON tool arguments are kept verbatim. Each such
message carries ``problems`` (short notes without bodies) that the assembly report repeats.

>>> m = coerce_message({"role": "assistant", "content": None,
...     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{oops"}}]})
>>> m.tool_calls[0].name, m.problems
('f', ('tool call c1: arguments are not valid JSON',))
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxsieve.audience import Audience, parse_audience, restrict
from ctxsieve.messages.exchanges import exchange_spans
from ctxsieve.types import ContextItem

ROLES = frozenset({"system", "user", "assistant", "tool"})


@dataclass(frozen=True)
class Image:
    """An image by URL or base64 data; ``description`` is what later calls see instead of it."""

    url: str | None = None
    data: str | None = None
    media_type: str = "image/png"
    description: str = ""


@dataclass(frozen=True)
class ToolCall:
    """A tool call as sent: ``arguments`` is the JSON text (kept verbatim even when invalid)."""

    id: str
    name: str
    arguments: str = "{}"


@dataclass(frozen=True)
class Message:
    """One message. ``audience`` (None: anyone) limits which calls may include it."""

    role: str
    text: str = ""
    images: tuple[Image, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    audience: frozenset[str] | None = None
    problems: tuple[str, ...] = field(default=(), compare=False)


@dataclass
class _Parts:
    texts: list[str] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    calls: list[Any] = field(default_factory=list)  # Anthropic tool_use blocks
    results: list[tuple[str, str]] = field(default_factory=list)  # Anthropic tool_result blocks


def _parts(content: Any, problems: list[str]) -> _Parts:
    out = _Parts()
    if content is None:
        return out
    if isinstance(content, str):
        out.texts.append(content)
        return out
    if not isinstance(content, list):
        problems.append(f"content of type {type(content).__name__} read as its JSON text")
        out.texts.append(json.dumps(content, default=str, ensure_ascii=False))
        return out
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if isinstance(part, str):
            out.texts.append(part)
        elif isinstance(part, Image):
            out.images.append(part)
        elif not isinstance(part, Mapping):
            problems.append(f"content part of type {type(part).__name__} read as its text")
            out.texts.append(str(part))
        elif kind == "text":
            out.texts.append(str(part.get("text", "")))
        elif kind == "image_url":
            iu = part.get("image_url")
            url = iu.get("url") if isinstance(iu, Mapping) else iu
            if url is None:
                problems.append("image_url part without a url")
            out.images.append(Image(url=None if url is None else str(url)))
        elif kind == "image":
            src = part.get("source") or {}
            if not isinstance(src, Mapping):
                # still an image (it costs one), whatever shape its source has
                problems.append(f"image source of type {type(src).__name__} read as its URL")
                out.images.append(Image(url=str(src)))
            elif src.get("type") == "base64":
                out.images.append(Image(data=src.get("data"), media_type=src.get("media_type", "image/png")))
            else:
                out.images.append(Image(url=src.get("url")))
        elif kind == "tool_use":
            out.calls.append(part)
        elif kind == "tool_result":
            inner = _parts(part.get("content"), problems)
            out.images += inner.images
            out.results.append((str(part.get("tool_use_id") or ""), "\n".join(inner.texts)))
        else:
            # unknown parts still cost tokens: keep their JSON text
            problems.append(f"content part of type {kind!r} read as its JSON text")
            out.texts.append(json.dumps(part, default=str, ensure_ascii=False))
    return out


def _as_mapping(raw: Any) -> Any:
    """Provider SDK objects (pydantic models) as their dicts; anything else unchanged."""
    dump = getattr(raw, "model_dump", None)
    if callable(dump) and not isinstance(raw, Mapping):
        try:
            return dump(exclude_none=True)
        except TypeError:
            return dump()
    return raw


def split_message(raw: Any) -> list[Any]:
    """An Anthropic user message carrying several ``tool_result`` blocks becomes one message
    per result (then its other blocks), so each result can join the call it answers."""
    m = _as_mapping(raw)
    content = m.get("content") if isinstance(m, Mapping) else None
    if not isinstance(content, list):
        return [raw]
    results = [p for p in content if isinstance(p, Mapping) and p.get("type") == "tool_result"]
    if len(results) < 2:
        return [raw]
    rest = [p for p in content if not (isinstance(p, Mapping) and p.get("type") == "tool_result")]
    # every part keeps the message's audience: a split must never make a result public
    label = {"audience": m["audience"]} if m.get("audience") is not None else {}
    out: list[Any] = [{"role": m.get("role", "user"), "content": [r], **label} for r in results]
    return out + ([{**m, "content": rest}] if rest else [])


def _tool_call(raw: Any, problems: list[str]) -> ToolCall:
    if isinstance(raw, ToolCall):
        return raw
    if not isinstance(raw, Mapping):
        problems.append("tool call that is not a mapping read as its JSON text")
        return ToolCall(id="", name="", arguments=json.dumps(raw, default=str))
    inner = raw.get("function")
    fn: Mapping[str, Any] = inner if isinstance(inner, Mapping) else raw
    call_id = str(raw.get("id") or "")
    name = str(fn.get("name") or "")
    args: Any = fn.get("arguments", fn.get("input", "{}"))
    if not isinstance(args, str):
        args = json.dumps(args, default=str, ensure_ascii=False)
    else:
        try:
            json.loads(args)
        except ValueError:
            problems.append(f"tool call {call_id or '?'}: arguments are not valid JSON")
    if not call_id:
        problems.append(f"tool call {name or '?'} has no id")
    return ToolCall(id=call_id, name=name, arguments=args)


def coerce_message(raw: Any) -> Message:
    """A ``Message`` from a Message, an OpenAI chat dict or an Anthropic-style dict."""
    if isinstance(raw, Message):
        return raw
    problems: list[str] = []
    if isinstance(raw, str):
        return Message(role="user", text=raw)
    raw = _as_mapping(raw)
    if not isinstance(raw, Mapping):
        problems.append(f"message of type {type(raw).__name__} read as user text")
        return Message(role="user", text=json.dumps(raw, default=str), problems=tuple(problems))
    role = raw.get("role")
    if role not in ROLES:
        problems.append(f"role {role!r} is not one of {sorted(ROLES)}; read as user text")
        role = "user"
    parts = _parts(raw.get("content"), problems)
    calls = tuple(_tool_call(c, problems) for c in [*(raw.get("tool_calls") or ()), *parts.calls])
    call_id = raw.get("tool_call_id")
    if parts.results and len(parts.results) == 1 and not parts.texts and role == "user":
        # an Anthropic tool result: a user turn holding one tool_result block
        role, (call_id, result_text) = "tool", parts.results[0]
        parts.texts.append(result_text)
    elif parts.results:
        problems.append(f"{len(parts.results)} tool results inside one {role} message read as text")
        parts.texts += [f"[tool result for call {cid or '(no call id)'}]\n{t}" for cid, t in parts.results]
    text, images = "\n".join(parts.texts), tuple(parts.images)
    if role == "tool" and not call_id:
        problems.append("tool result without a tool_call_id")
    return Message(
        role=role,
        text=text,
        images=images,
        tool_calls=calls,
        tool_call_id=str(call_id) if call_id else None,
        name=raw.get("name"),
        audience=parse_audience(raw.get("audience"), "message audience"),
        problems=tuple(problems),
    )


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


def _labelled(m: Any, unit: Audience, where: str) -> Any:
    """``m`` (a copy) carrying ``unit``'s audience restricted by its own: the most restrictive wins.
    A public unit leaves ``m`` as it is (the same object keeps its cached cost)."""
    if unit is None:
        return m
    raw = _as_mapping(m)
    if isinstance(raw, Mapping):
        return {**raw, "audience": restrict(unit, parse_audience(raw.get("audience"), where))}
    msg = coerce_message(raw)
    return dataclasses.replace(msg, audience=restrict(unit, msg.audience))


def expand_history(history: Sequence[Any]) -> Sequence[Any]:
    """History as raw messages: engine ``ContextItem`` history units (raw messages in
    ``meta["messages"]``, as ``HistorySource`` makes them) become their messages, each carrying
    the unit's audience restricted by its own (``Message`` objects, SDK objects, dicts and
    strings alike). Plain messages pass through."""
    if not any(_is_unit(h) for h in history):
        return history
    out: list[Any] = []
    for i, h in enumerate(history):
        if not _is_unit(h):
            out.append(h)
            continue
        meta = getattr(h, "meta", None) or {}
        meta = meta if isinstance(meta, Mapping) else {}
        raw = meta.get("messages")
        msgs = list(raw) if raw else [{"role": meta.get("role") or "user", "content": h.content}]
        unit = parse_audience(getattr(h, "audience", None), f"history[{i}].audience")
        out.extend(_labelled(m, unit, f"history[{i}].meta['messages'][{k}].audience") for k, m in enumerate(msgs))
    return out


@dataclass(frozen=True)
class Record:
    """Messages that leave the prompt together: one message, or a tool call with its results.

    ``turn`` numbers the user turn the record belongs to (0 before the first user message);
    ``start`` is the index of its first message in the grouped list (records are contiguous).
    """

    messages: tuple[Message, ...]
    turn: int
    start: int = 0


def group_records(messages: Sequence[Message]) -> list[Record]:
    """Group messages into whole records: an assistant message with tool calls takes the tool
    results that answer it, and any message between them, so a call never leaves without them
    (``ctxsieve.messages.exchanges``). ``turn`` counts user messages up to the record's first one."""
    calls = [[c.id for c in m.tool_calls] if m.role == "assistant" else [] for m in messages]
    answers = [[m.tool_call_id] if m.role == "tool" and m.tool_call_id else [] for m in messages]
    spans: list[list[int]] = []
    for start, end in exchange_spans(calls, answers):
        if spans and messages[start].role == "tool" and calls[spans[-1][0]]:
            # a result that names no call it answers, right after an exchange: it joins it
            # (a provider would reject it anywhere else), as consecutive tool messages always did
            spans[-1][1] = end
        else:
            spans.append([start, end])
    records: list[Record] = []
    turn = 0
    for start, end in spans:
        if messages[start].role == "user":
            turn += 1
        records.append(Record(tuple(messages[start:end]), turn, start))
        turn += sum(1 for m in messages[start + 1 : end] if m.role == "user")
    return records
