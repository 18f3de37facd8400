"""What a message sends as text, and the reading of one message in whatever shape it came.

>>> from ctxsieve.messages.model import assistant, ToolCall
>>> sent_texts(assistant("ok", ToolCall("c1", "ls", "{}")))
['ok', 'c1', 'ls', '{}']
>>> result = {"type": "tool_result", "tool_use_id": "t", "content": "x"}
>>> [m.role for m in read_any({"role": "user", "content": [result]}, "history[0]")]
['tool']
>>> call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}
>>> read_any(call, "history[1]")[0].tool_calls[0].name
'f'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ctxsieve.messages import _common as c
from ctxsieve.messages import anthropic, openai_chat, responses
from ctxsieve.messages.model import Message, Reasoning, Text, ToolCall, ToolResult

_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "input_image"})


def sent_texts(m: Message) -> list[str]:
    """Every text ``m`` sends, for token counting: text parts, each tool call's id, name and
    arguments, each result's call id and text, reasoning text with its signature or redacted
    data, and the sender's ``name``. An upper bound: a provider that gets no reasoning back
    sends less."""
    out: list[str] = [m.name] if m.name else []
    for p in m.parts:
        if isinstance(p, Text):
            out.append(p.text)
        elif isinstance(p, ToolCall):
            out += [p.id, p.name, p.arguments]
        elif isinstance(p, ToolResult):
            out.append(p.call_id)
            out += [q.text for q in p.parts if isinstance(q, Text)]
        elif isinstance(p, Reasoning):
            out += [s for s in (p.text, p.signature, p.data) if s]
    return out


def _is_anthropic(raw: Mapping[str, Any]) -> bool:
    content = raw.get("content")
    if not isinstance(content, list) or raw.get("role") not in anthropic.ROLES or "tool_calls" in raw:
        return False
    kinds = set()
    for block in content:
        block = c.as_mapping(block)
        if isinstance(block, Mapping):
            kind = block.get("type")
            kinds.add("image_source" if kind == "image" and "source" in block else kind)
    if kinds & _ANTHROPIC_BLOCKS or "image_source" in kinds:
        return True
    # an Anthropic response dumped by its SDK is a "message" of plain "text" blocks (a
    # Responses message item's text parts are "input_text"/"output_text")
    return raw.get("type") == "message" and "text" in kinds


Shape = Literal["model", "anthropic", "responses", "openai_chat"]


def shape_of(raw: Any, where: str = "message") -> Shape:
    """The shape ``read_any`` reads ``raw`` as, so what is read can be written back with the same
    codec: ``"model"`` for a ``Message``, else the name of the codec module."""
    if isinstance(raw, Message):
        return "model"
    item = c.mapping(raw, where)
    if _is_anthropic(item):
        return "anthropic"
    if item.get("type") in responses.ITEM_TYPES or _has_responses_parts(item):
        return "responses"
    return "openai_chat"


def _has_responses_parts(raw: Mapping[str, Any]) -> bool:
    """A Responses message item written without its optional ``"type": "message"``: its parts
    are ``input_text`` / ``output_text`` / ``input_image`` (Chat Completions has none of them)."""
    content = raw.get("content")
    if not isinstance(content, list):
        return False
    for part in content:
        part = c.as_mapping(part)
        if isinstance(part, Mapping) and part.get("type") in _RESPONSES_PARTS:
            return True
    return False


def read_any(raw: Any, where: str) -> list[Message]:
    """One message in any shape as ``Message`` objects (two for an Anthropic user message
    holding tool results and text). A ``Message`` passes through; a Responses item is known by
    its ``type`` or its ``input_text``/``output_text``/``input_image`` parts; an Anthropic
    message by its blocks; anything else is read as OpenAI Chat.
    ``where`` names the message in errors (``history[3]``)."""
    shape = shape_of(raw, where)
    if shape == "model":
        return [raw]
    item = c.mapping(raw, where)
    if shape == "anthropic":
        return anthropic.read_one(item, where)
    if shape == "responses":
        return [responses.read_item(item, where)]
    return [openai_chat.read_one(item, where)]


__all__ = ["Shape", "read_any", "sent_texts", "shape_of"]
