"""OpenAI Responses input items: ``read`` into the model, ``write`` back.

Shapes (https://platform.openai.com/docs/api-reference/responses/create, ``input``): a message
item ``{"type": "message" (optional), "role", "content"}`` with content a str or a list of
``input_text`` / ``output_text`` / ``input_image`` / ``refusal`` parts; ``function_call``
{call_id, name, arguments}; ``function_call_output`` {call_id, output}; ``reasoning`` {id,
summary: [summary_text], encrypted_content} (sent back to keep the model's reasoning across
calls, https://cookbook.openai.com/examples/responses_api/reasoning_items).

Items are flat where the model nests: the reasoning, text and function calls of one assistant
turn are consecutive items, and read as one assistant ``Message``; consecutive
``function_call_output`` items read as one ``tool`` message.

>>> msgs = read([{"role": "user", "content": "weather?"},
...     {"type": "function_call", "call_id": "c1", "name": "wx", "arguments": "{}"},
...     {"type": "function_call_output", "call_id": "c1", "output": "sunny"}])
>>> [(m.role, m.text) for m in msgs]
[('user', 'weather?'), ('assistant', ''), ('tool', 'sunny')]
>>> write(msgs)[1]
{'type': 'function_call', 'call_id': 'c1', 'name': 'wx', 'arguments': '{}'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ctxsieve.messages import _common as c
from ctxsieve.messages.model import Image, Message, MessageError, Part, Reasoning, Text, ToolCall, ToolResult
from ctxsieve.messages.wire import WireCache

ITEM_TYPES = frozenset({"message", "function_call", "function_call_output", "reasoning"})
ROLES = frozenset({"system", "developer", "user", "assistant"})
PART_TYPES = frozenset({"input_text", "output_text", "input_image", "refusal"})


def _parts(content: Any, where: str, *, images: bool) -> list[Text | Image]:
    if isinstance(content, str):
        return [Text(content)] if content else []
    if not isinstance(content, list):
        raise MessageError(f"{where}: expected a str or a list of parts, got {type(content).__name__}")
    out: list[Text | Image] = []
    for k, raw in enumerate(content):
        at = f"{where}[{k}]"
        part = c.mapping(raw, at, "a content part")
        kind = part.get("type")
        if kind in ("input_text", "output_text"):
            out.append(Text(c.string(part, "text", at) or ""))
        elif kind == "refusal":
            out.append(Text(c.string(part, "refusal", at) or ""))
        elif kind == "input_image" and images:
            url = part.get("image_url")
            if not isinstance(url, str) or not url:
                raise MessageError(f"{at}.image_url: expected a url (file_id images are not read), got {url!r:.60}")
            out.append(c.image_from_url(url))
        else:
            kinds = PART_TYPES if images else PART_TYPES - {"input_image"}
            raise MessageError(f"{at}.type: {kind!r} is not a content part type read here ({c.allowed(kinds)})")
    return out


def _reasoning(item: Mapping[str, Any], where: str) -> Reasoning:
    summary = item.get("summary") or []
    if not isinstance(summary, list):
        raise MessageError(f"{where}.summary: expected a list, got {type(summary).__name__}")
    texts = []
    for k, raw in enumerate(summary):
        part = c.mapping(raw, f"{where}.summary[{k}]", "a summary part")
        texts.append(c.string(part, "text", f"{where}.summary[{k}]") or "")
    return Reasoning(
        "\n\n".join(texts),
        signature=c.string(item, "encrypted_content", where, required=False),
        provider="openai",
        id=c.string(item, "id", where, required=False),
    )


def read_item(raw_item: Any, where: str) -> Message:
    """One input item as a ``Message`` (not merged with its neighbours)."""
    if isinstance(raw_item, Message):
        return raw_item
    item = c.mapping(raw_item, where, "an input item")
    kind = item.get("type", "message")
    audience = c.audience(item, where)
    if kind == "function_call":
        call = ToolCall(
            c.nonempty(item, "call_id", where), c.nonempty(item, "name", where), item.get("arguments", "{}")
        )
        if not isinstance(call.arguments, str):
            raise MessageError(f"{where}.arguments: expected a str, got {type(call.arguments).__name__}")
        return Message("assistant", (call,), audience)
    if kind == "function_call_output":
        output = item.get("output")
        parts = _parts(output, f"{where}.output", images=True)
        return Message("tool", (ToolResult(c.nonempty(item, "call_id", where), tuple(parts)),), audience)
    if kind == "reasoning":
        return Message("assistant", (_reasoning(item, where),), audience)
    if kind != "message":
        raise MessageError(f"{where}.type: {kind!r} is not an input item type read here ({c.allowed(ITEM_TYPES)})")
    role = item.get("role")
    if role not in ROLES:
        raise MessageError(f"{where}.role: {role!r} is not one of {c.allowed(ROLES)}")
    parts = _parts(item.get("content"), f"{where}.content", images=role == "user")
    return Message("system" if role == "developer" else role, tuple(parts), audience)  # type: ignore[arg-type]


def _joins(prev: Message, m: Message) -> bool:
    """Whether ``m`` continues ``prev``: one assistant turn, or one batch of tool results."""
    if prev.role != m.role or prev.audience != m.audience or m.role not in ("assistant", "tool"):
        return False
    # an assistant turn is reasoning, then text, then calls: text after a call starts a new turn
    return m.role == "tool" or not (prev.tool_calls and not m.tool_calls)


def read(items: Any, *, where: str = "input") -> list[Message]:
    """Responses input items as ``Message`` objects (a str ``input`` is one user message)."""
    if isinstance(items, str):
        return [Message("user", (Text(items),) if items else ())]
    out: list[Message] = []
    for i, raw in enumerate(c.items_list(items, where)):
        m = read_item(raw, f"{where}[{i}]")
        if out and not isinstance(raw, Message) and _joins(out[-1], m):
            out[-1] = Message(m.role, out[-1].parts + m.parts, m.audience)
        else:
            out.append(m)
    return out


def _content(parts: Sequence[Part], role: str, where: str) -> str | list[dict[str, Any]]:
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    text_type = "output_text" if role == "assistant" else "input_text"
    out: list[dict[str, Any]] = []
    for k, p in enumerate(parts):
        if isinstance(p, Text):
            out.append({"type": text_type, "text": p.text})
        elif isinstance(p, Image) and role == "user":
            out.append({"type": "input_image", "image_url": c.image_url(p, f"{where}.parts[{k}]"), "detail": "auto"})
        else:
            raise MessageError(f"{where}.parts[{k}]: a {role!r} message item cannot carry a {type(p).__name__}")
    return out


def write_one(m: Message, where: str) -> list[dict[str, Any]]:
    """``m`` as input items, in the order of its parts."""
    if m.role == "tool":
        return [
            {"type": "function_call_output", "call_id": r.call_id, "output": _content(r.parts, "user", where)}
            for r in m.tool_results
        ]
    out: list[dict[str, Any]] = []
    body: list[Part] = []

    def flush() -> None:
        if body:
            out.append({"role": m.role, "content": _content(body, m.role, where)})
            body.clear()

    for p in m.parts:
        if isinstance(p, ToolCall):
            flush()
            out.append({"type": "function_call", "call_id": p.id, "name": p.name, "arguments": p.arguments})
        elif isinstance(p, Reasoning):
            if p.provider != "openai":
                continue  # a reasoning block only goes back to the provider that made it
            flush()
            item: dict[str, Any] = {"type": "reasoning"}
            if p.id is not None:
                item["id"] = p.id
            item["summary"] = [{"type": "summary_text", "text": p.text}] if p.text else []
            if p.signature is not None:
                item["encrypted_content"] = p.signature
            out.append(item)
        else:
            body.append(p)
    flush()
    if not m.parts:  # an empty message stays one (parts a foreign provider made are not)
        out.append({"role": m.role, "content": ""})
    return out


def write(messages: Sequence[Message], *, cache: WireCache | None = None) -> list[dict[str, Any]]:
    """Responses input items for ``messages``. Only OpenAI's reasoning items are written.
    ``cache`` (a ``WireCache``) writes each message once across calls."""
    out: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        if cache is None:
            out += write_one(m, f"messages[{i}]")
        else:
            out += [dict(d) for d in cache.get("responses", m, lambda: write_one(m, f"messages[{i}]"))]  # noqa: B023
    return out


__all__ = ["ITEM_TYPES", "PART_TYPES", "ROLES", "read", "read_item", "write", "write_one"]
