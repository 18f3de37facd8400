"""Anthropic Messages: ``read`` into the model, ``write`` back with cache breakpoints.

Shapes (https://docs.anthropic.com/en/api/messages): ``system`` apart (a str or text blocks);
``messages`` alternate ``user`` and ``assistant``, content a str or blocks: ``text``,
``image`` (``source`` base64 or url), ``tool_use`` {id, name, input} from the assistant,
``tool_result`` {tool_use_id, content, is_error} from the user (first in its message),
``thinking`` {thinking, signature} and ``redacted_thinking`` {data}, sent back unchanged
(https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking). A block marked
``cache_control: {"type": "ephemeral"}`` ends a cached prefix; a request may mark at most 4
(https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).

>>> msgs = read([{"role": "assistant", "content": [
...     {"type": "tool_use", "id": "t1", "name": "ls", "input": {"dir": "/"}}]},
...     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"},
...                                  {"type": "text", "text": "and?"}]}], system="Be brief.")
>>> [(m.role, m.text) for m in msgs]
[('system', 'Be brief.'), ('assistant', ''), ('tool', 'a.py'), ('user', 'and?')]
>>> msgs[1].tool_calls[0].arguments
'{"dir":"/"}'
>>> system, out = write(msgs, breakpoints=[3])
>>> system, out[1]["content"][-1]
('Be brief.', {'type': 'text', 'text': 'and?', 'cache_control': {'type': 'ephemeral'}})
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ctxsieve.messages import _common as c
from ctxsieve.messages.model import Image, Message, MessageError, Part, Reasoning, Text, ToolCall, ToolResult
from ctxsieve.messages.wire import WireCache

ROLES = frozenset({"user", "assistant"})
BLOCK_TYPES = frozenset({"text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking"})
MAX_BREAKPOINTS = 4  # the API's limit on cache_control blocks per request


def _image(block: Mapping[str, Any], where: str) -> Image:
    src = c.mapping(block.get("source"), f"{where}.source", "an image source")
    kind = src.get("type")
    if kind == "base64":
        at = f"{where}.source"
        return Image(data=c.string(src, "data", at), media_type=c.string(src, "media_type", at) or "")
    if kind == "url":
        return Image(url=c.nonempty(src, "url", f"{where}.source"))
    raise MessageError(f"{where}.source.type: {kind!r} is not an image source read here ('base64', 'url')")


def _result_parts(content: Any, where: str) -> tuple[Text | Image, ...]:
    if content is None:
        return ()
    if isinstance(content, str):
        return (Text(content),) if content else ()
    if not isinstance(content, list):
        raise MessageError(f"{where}: expected a str or a list of blocks, got {type(content).__name__}")
    out: list[Text | Image] = []
    for k, raw in enumerate(content):
        at = f"{where}[{k}]"
        block = c.mapping(raw, at, "a block")
        kind = block.get("type")
        if kind == "text":
            out.append(Text(c.string(block, "text", at) or ""))
        elif kind == "image":
            out.append(_image(block, at))
        else:
            raise MessageError(f"{at}.type: {kind!r} is not a tool result block read here ('image', 'text')")
    return tuple(out)


def _block(block: Mapping[str, Any], role: str, where: str) -> Part:
    kind = block.get("type")
    if kind == "text":
        return Text(c.string(block, "text", where) or "")
    if kind == "image" and role == "user":
        return _image(block, where)
    if kind == "tool_use" and role == "assistant":
        args = block.get("input", {})
        if not isinstance(args, Mapping):
            raise MessageError(f"{where}.input: expected an object, got {type(args).__name__}")
        return ToolCall(c.nonempty(block, "id", where), c.nonempty(block, "name", where), c.compact_json(args))
    if kind == "tool_result" and role == "user":
        call_id = c.nonempty(block, "tool_use_id", where)
        parts = _result_parts(block.get("content"), f"{where}.content")
        return ToolResult(call_id, parts, is_error=bool(block.get("is_error", False)))
    if kind == "thinking" and role == "assistant":
        text = c.string(block, "thinking", where) or ""
        return Reasoning(text, signature=c.string(block, "signature", where, required=False), provider="anthropic")
    if kind == "redacted_thinking" and role == "assistant":
        return Reasoning(redacted=True, data=c.string(block, "data", where), provider="anthropic")
    if kind in BLOCK_TYPES:
        raise MessageError(f"{where}.type: a {kind!r} block cannot be in a {role!r} message")
    raise MessageError(f"{where}.type: {kind!r} is not a block type read here ({c.allowed(BLOCK_TYPES)})")


def read_system(system: Any, where: str = "system") -> list[Message]:
    """The ``system`` parameter (a str or text blocks) as a leading system message, or none."""
    if system is None or system == "":
        return []
    if isinstance(system, str):
        return [Message("system", (Text(system),))]
    if not isinstance(system, list):
        raise MessageError(f"{where}: expected a str or a list of text blocks, got {type(system).__name__}")
    parts: list[Part] = []
    for k, raw in enumerate(system):
        block = c.mapping(raw, f"{where}[{k}]", "a block")
        if block.get("type") != "text":
            raise MessageError(f"{where}[{k}].type: the system prompt takes text blocks, got {block.get('type')!r}")
        parts.append(Text(c.string(block, "text", f"{where}[{k}]") or ""))
    return [Message("system", tuple(parts))]


def read_one(raw_message: Any, where: str) -> list[Message]:
    """One Anthropic message as one ``Message``, or two: a user message's ``tool_result``
    blocks become a ``tool`` message, then its other blocks (if any) a ``user`` message."""
    if isinstance(raw_message, Message):
        return [raw_message]
    raw = c.mapping(raw_message, where)
    role = raw.get("role")
    if role not in ROLES:
        hint = " (pass the system prompt as system=)" if role == "system" else ""
        raise MessageError(f"{where}.role: {role!r} is not one of {c.allowed(ROLES)}{hint}")
    audience = c.audience(raw, where)
    content = raw.get("content")
    if isinstance(content, str):
        return [Message(role, (Text(content),) if content else (), audience)]
    if not isinstance(content, list):
        raise MessageError(f"{where}.content: expected a str or a list of blocks, got {type(content).__name__}")
    parts = [
        _block(c.mapping(b, f"{where}.content[{k}]", "a block"), role, f"{where}.content[{k}]")
        for k, b in enumerate(content)
    ]
    results = tuple(p for p in parts if isinstance(p, ToolResult))
    if not results:
        return [Message(role, tuple(parts), audience)]
    rest = tuple(p for p in parts if not isinstance(p, ToolResult))
    # every piece keeps the message's audience: a split never makes a result public
    return [Message("tool", results, audience)] + ([Message("user", rest, audience)] if rest else [])


def read(messages: Sequence[Any], *, system: Any = None, where: str = "messages") -> list[Message]:
    """Anthropic messages (and the ``system`` parameter) as ``Message`` objects."""
    out = read_system(system)
    for i, m in enumerate(c.items_list(messages, where)):
        out += read_one(m, f"{where}[{i}]")
    return out


def _image_block(img: Image, where: str) -> dict[str, Any]:
    if img.url is not None:
        return {"type": "image", "source": {"type": "url", "url": img.url}}
    if img.data is None:
        raise MessageError(f"{where}: an image needs a url or base64 data")
    return {"type": "image", "source": {"type": "base64", "media_type": img.media_type, "data": img.data}}


def _tool_use(call: ToolCall) -> dict[str, Any]:
    try:
        args = json.loads(call.arguments)
    except ValueError:
        args = None
    if not isinstance(args, dict):
        # tool_use input must be an object: keep what the model produced, unparsed, in one
        args = {"_raw_arguments": call.arguments}
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": args}


def _sendable(text: str) -> bool:
    # the API rejects an empty text block ("text content blocks must be non-empty"), a
    # whitespace-only one where it is a message's only text ("must contain non-whitespace
    # text"), and cache_control on either: such a block says nothing, so it is not written
    return not text.isspace() and bool(text)


def _blocks(m: Message, where: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k, p in enumerate(m.parts):
        at = f"{where}.parts[{k}]"
        if isinstance(p, Text):
            if _sendable(p.text):
                out.append({"type": "text", "text": p.text})
        elif isinstance(p, Image):
            out.append(_image_block(p, at))
        elif isinstance(p, ToolCall):
            out.append(_tool_use(p))
        elif isinstance(p, Reasoning):
            if p.provider != "anthropic":
                continue  # a reasoning block only goes back to the provider that made it
            if p.redacted:
                out.append({"type": "redacted_thinking", "data": p.data or ""})
            elif not p.signature:
                # the API requires a thinking block's signature (a stream cut before its
                # signature_delta leaves none): such a block cannot go back, so it is left out,
                # as a block of an earlier turn may be (conversation.reasoning counts the same)
                continue
            else:
                out.append({"type": "thinking", "thinking": p.text, "signature": p.signature})
        else:
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": p.call_id}
            inner = _result_blocks(p, at)
            if inner:
                result["content"] = inner
            if p.is_error:
                result["is_error"] = True
            out.append(result)
    return out


def _result_blocks(r: ToolResult, where: str) -> str | list[dict[str, Any]]:
    if len(r.parts) == 1 and isinstance(r.parts[0], Text):
        return r.parts[0].text
    out: list[dict[str, Any]] = []
    for k, p in enumerate(r.parts):
        if isinstance(p, Image):
            out.append(_image_block(p, f"{where}.parts[{k}]"))
        elif _sendable(p.text):
            out.append({"type": "text", "text": p.text})
    return out


def _checked_breakpoints(breakpoints: Collection[int], n: int, system_breakpoint: bool) -> set[int]:
    marks = set()
    for b in breakpoints:
        if not isinstance(b, int) or isinstance(b, bool) or not 0 <= b < n:
            raise MessageError(f"breakpoints: {b!r} is not the index of one of the {n} messages")
        marks.add(b)
    total = len(marks) + (1 if system_breakpoint else 0)
    if total > MAX_BREAKPOINTS:
        raise MessageError(f"breakpoints: {total} cache breakpoints asked for; the API allows {MAX_BREAKPOINTS}")
    return marks


def _markable(block: dict[str, Any]) -> bool:
    # thinking blocks cannot carry cache_control themselves (they are cached with what follows)
    return block["type"] not in ("thinking", "redacted_thinking")


def write(
    messages: Sequence[Message],
    *,
    breakpoints: Collection[int] = (),
    system_breakpoint: bool = False,
    cache: WireCache | None = None,
    ttl: str | None = None,
) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """``(system, messages)`` for the Messages API.

    System messages (wherever they are) join the ``system`` parameter: a str, or text blocks
    when there are several parts or ``system_breakpoint`` marks its last block. Consecutive
    messages of one role merge (a tool message is a user message of ``tool_result`` blocks, so
    parallel results share one message and a user text after them joins it, after them).
    ``breakpoints`` are indexes into ``messages``: the last block written for each gets
    ``cache_control`` (the last block before it when the message wrote none). ``cache`` (a
    ``WireCache``) writes each message's blocks once across calls; a marked block is a copy,
    so a breakpoint never stays behind in the cache. ``ttl`` (``"5m"``, ``"1h"``) goes in every
    mark: ``{"type": "ephemeral", "ttl": "1h"}``.
    """
    marks = _checked_breakpoints(breakpoints, len(messages), system_breakpoint)
    system_blocks: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    last: tuple[list[dict[str, Any]], int] | None = None  # where the last markable block sits
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if m.role == "system":
            for k, p in enumerate(m.parts):
                if not isinstance(p, Text):
                    raise MessageError(f"{where}.parts[{k}]: the system prompt holds text only, got {type(p).__name__}")
                if _sendable(p.text):
                    system_blocks.append({"type": "text", "text": p.text})
                    last = (system_blocks, len(system_blocks) - 1)
        else:
            blocks = _blocks(m, where) if cache is None else cache.get("anthropic", m, lambda: _blocks(m, where))  # noqa: B023
            role = "assistant" if m.role == "assistant" else "user"
            at = 0
            if blocks and out and out[-1]["role"] == role:
                content = out[-1]["content"]
                at = len(content)
                if m.role == "tool":
                    # the API wants a user message's tool_result blocks before its other blocks
                    # (a user who interjected between a call and its result)
                    at = next((j for j, b in enumerate(content) if b.get("type") != "tool_result"), at)
                content[at:at] = blocks
            elif blocks:
                content = list(blocks)
                out.append({"role": role, "content": content})
            for k in range(len(blocks) - 1, -1, -1):
                if _markable(blocks[k]):
                    last = (content, at + k)
                    break
        if i in marks and last is not None:
            _mark(*last, ttl)
    if system_breakpoint and system_blocks:
        _mark(system_blocks, len(system_blocks) - 1, ttl)
    system: str | list[dict[str, Any]] | None = None
    if len(system_blocks) == 1 and "cache_control" not in system_blocks[0]:
        system = system_blocks[0]["text"]
    elif system_blocks:
        system = system_blocks
    return system, out


def cache_control(ttl: str | None = None) -> dict[str, str]:
    """A ``cache_control`` mark, with its ``ttl`` when one is asked for."""
    return {"type": "ephemeral"} if ttl is None else {"type": "ephemeral", "ttl": ttl}


def _mark(blocks: list[dict[str, Any]], k: int, ttl: str | None = None) -> None:
    # a copy: the block itself may be shared with a WireCache
    blocks[k] = {**blocks[k], "cache_control": cache_control(ttl)}


def block_counts(messages: Sequence[Message], cache: WireCache | None = None) -> list[int]:
    """How many content blocks ``write`` makes of each message (merging never changes the
    number): Anthropic's 20-block look-back counts these."""
    out = []
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if m.role == "system":
            out.append(sum(1 for p in m.parts if isinstance(p, Text) and _sendable(p.text)))
        else:
            blocks = _blocks(m, where) if cache is None else cache.get("anthropic", m, lambda: _blocks(m, where))  # noqa: B023
            out.append(len(blocks))
    return out


__all__ = [
    "BLOCK_TYPES",
    "MAX_BREAKPOINTS",
    "ROLES",
    "block_counts",
    "cache_control",
    "read",
    "read_one",
    "read_system",
    "write",
]
