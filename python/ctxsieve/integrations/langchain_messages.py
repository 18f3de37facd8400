"""LangChain messages to and from the one message model (``ctxsieve.messages.Message``).

``from_langchain`` reads a ``BaseMessage`` list; ``to_langchain`` writes one back. Each LangChain
message is one ``Message``; a ``Message`` is one LangChain message, except that a tool message
with several results becomes one ``ToolMessage`` per result (LangChain answers one call each).

What is read (langchain-core 1.x, https://python.langchain.com/docs/concepts/messages/):

* ``SystemMessage``, ``HumanMessage`` (``name`` kept), ``ChatMessage`` with a provider role;
* content as a str or a list of blocks: ``text``, images (LangChain's standard ``image`` block
  with ``url`` or ``base64``/``data`` and ``mime_type``, and OpenAI's ``image_url``), reasoning
  (the standard ``reasoning`` block, Anthropic's ``thinking`` / ``redacted_thinking`` with their
  signature, OpenAI's ``reasoning`` item with ``summary`` and ``encrypted_content``, DeepSeek's
  ``additional_kwargs["reasoning_content"]``); a provider's ``tool_use`` block is skipped,
  ``AIMessage.tool_calls`` being the calls;
* ``AIMessage.tool_calls`` (arguments written as compact JSON; ``invalid_tool_calls`` keep their
  text verbatim), ``ToolMessage`` (``status="error"`` is a failed call).

Anything else (a ``RemoveMessage``, a ``FunctionMessage``, an unknown block type) is a
``MessageError`` naming ``messages[i]`` and what was found. Reasoning goes back in the shape of
the provider that made it (``Reasoning.provider``).

>>> from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
>>> msgs = from_langchain([HumanMessage("hi"), AIMessage("", tool_calls=[{"name": "ls", "args": {}, "id": "c1"}]),
...                        ToolMessage("a.py", tool_call_id="c1", name="ls")])
>>> [m.role for m in msgs], msgs[1].tool_calls[0].arguments, msgs[2].text
(['user', 'assistant', 'tool'], '{}', 'a.py')
>>> [type(m).__name__ for m in to_langchain(msgs)]
['HumanMessage', 'AIMessage', 'ToolMessage']
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ctxsieve.integrations._common import require
from ctxsieve.messages import Image, Message, MessageError, Reasoning, Text, ToolCall, ToolResult
from ctxsieve.messages._common import compact_json, image_from_url

_lc = require("langchain_core.messages", "langchain", "langchain-core")

_ROLE_OF = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}
_CHAT_ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
_KNOWN = "SystemMessage, HumanMessage, AIMessage, ToolMessage or ChatMessage"


def _image(block: Mapping[str, Any], where: str) -> Image:
    if block.get("type") == "image_url":
        inner = block.get("image_url")
        url = inner.get("url") if isinstance(inner, Mapping) else inner
        if not isinstance(url, str) or not url:
            raise MessageError(f"{where}.image_url: expected a url, got {url!r:.60}")
        return image_from_url(url)
    data = block.get("base64", block.get("data"))
    media = block.get("mime_type") or "image/png"
    if isinstance(data, str) and data:
        return Image(data=data, media_type=str(media))
    url = block.get("url")
    if isinstance(url, str) and url:
        return image_from_url(url)
    raise MessageError(f"{where}: an image block needs a url or base64 data")


def _reasoning(block: Mapping[str, Any], where: str) -> Reasoning:
    kind = block.get("type")
    if kind == "thinking":  # Anthropic's own block, as ChatAnthropic keeps it
        return Reasoning(str(block.get("thinking", "")), signature=block.get("signature"), provider="anthropic")
    if kind == "redacted_thinking":
        return Reasoning("", redacted=True, data=str(block.get("data", "")), provider="anthropic")
    if "summary" in block:  # OpenAI's Responses reasoning item, as ChatOpenAI keeps it
        summary = block.get("summary") or []
        text = "\n".join(str(s.get("text", "")) for s in summary if isinstance(s, Mapping))
        return Reasoning(text, signature=block.get("encrypted_content"), provider="openai", id=block.get("id"))
    raw = block.get("extras")
    extras: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    text = block.get("reasoning", "")
    if not isinstance(text, str):
        raise MessageError(f"{where}.reasoning: expected a str, got {type(text).__name__}")
    return Reasoning(
        text, signature=extras.get("signature"), provider=str(extras.get("provider", "")), id=block.get("id")
    )


def _content(content: Any, where: str, *, reasoning: bool) -> list[Any]:
    if isinstance(content, str):
        return [Text(content)] if content else []
    if not isinstance(content, list):
        raise MessageError(f"{where}: expected a str or a list of blocks, got {type(content).__name__}")
    out: list[Any] = []
    for k, block in enumerate(content):
        at = f"{where}[{k}]"
        if isinstance(block, str):
            out.append(Text(block))
            continue
        if not isinstance(block, Mapping):
            raise MessageError(f"{at}: expected a str or a block dict, got {type(block).__name__}")
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                raise MessageError(f"{at}.text: expected a str, got {type(text).__name__}")
            out.append(Text(text))
        elif kind in ("image", "image_url"):
            out.append(_image(block, at))
        elif kind in ("reasoning", "thinking", "redacted_thinking") and reasoning:
            out.append(_reasoning(block, at))
        elif kind in ("tool_use", "tool_call") and reasoning:
            continue  # the provider's copy of a call: AIMessage.tool_calls carries it
        else:
            raise MessageError(f"{at}.type: {kind!r} is not a content block read here")
    return out


def _calls(message: Any, where: str) -> list[ToolCall]:
    out = []
    for k, c in enumerate(message.tool_calls):
        if not c.get("id"):
            raise MessageError(f"{where}.tool_calls[{k}]: a tool call needs an id")
        out.append(ToolCall(str(c["id"]), str(c["name"]), compact_json(c.get("args") or {})))
    for k, c in enumerate(message.invalid_tool_calls):
        if not c.get("id") or not c.get("name"):
            raise MessageError(f"{where}.invalid_tool_calls[{k}]: a tool call needs an id and a name")
        out.append(ToolCall(str(c["id"]), str(c["name"]), c.get("args") or ""))
    return out


def read_one(message: Any, where: str) -> Message:
    """One LangChain message as a ``Message``."""
    if not isinstance(message, _lc.BaseMessage) or isinstance(message, (_lc.RemoveMessage, _lc.FunctionMessage)):
        raise MessageError(f"{where}: a {type(message).__name__} is not read (expected a {_KNOWN})")
    kind = message.type
    role = _ROLE_OF.get(kind)
    if kind == "chat":
        role = _CHAT_ROLES.get(str(message.role))
        if role is None:
            raise MessageError(f"{where}.role: {message.role!r} is not one of {sorted(_CHAT_ROLES)}")
    if role is None:
        raise MessageError(f"{where}: message type {kind!r} is not read (expected a {_KNOWN})")
    if role == "tool":
        if not message.tool_call_id:
            raise MessageError(f"{where}.tool_call_id: a ToolMessage must name the call it answers")
        parts = _content(message.content, f"{where}.content", reasoning=False)
        err = getattr(message, "status", "success") == "error"
        return Message("tool", (ToolResult(str(message.tool_call_id), tuple(parts), message.name, err),))
    parts = _content(message.content, f"{where}.content", reasoning=role == "assistant")
    if role == "assistant":
        thought = message.additional_kwargs.get("reasoning_content")
        if isinstance(thought, str):
            parts.insert(0, Reasoning(thought, provider="deepseek"))
        if kind == "ai":
            parts += _calls(message, where)
    name = message.name if role == "user" else None
    return Message(role, tuple(parts), name=name)  # type: ignore[arg-type]


def from_langchain(messages: Sequence[Any], *, where: str = "messages") -> list[Message]:
    """LangChain messages as ``Message`` objects, one each, strictly checked."""
    if isinstance(messages, (str, Mapping)) or not isinstance(messages, Sequence):
        raise MessageError(f"{where}: expected a list of LangChain messages, got {type(messages).__name__}")
    return [read_one(m, f"{where}[{i}]") for i, m in enumerate(messages)]


def _image_block(img: Image) -> dict[str, Any]:
    if img.url is not None:
        return {"type": "image", "url": img.url}
    return {"type": "image", "base64": img.data or "", "mime_type": img.media_type}


def _reasoning_block(r: Reasoning) -> dict[str, Any]:
    if r.provider == "anthropic":
        if r.redacted:
            return {"type": "redacted_thinking", "data": r.data or ""}
        block: dict[str, Any] = {"type": "thinking", "thinking": r.text}
        if r.signature is not None:
            block["signature"] = r.signature
        return block
    if r.provider == "openai":
        block = {"type": "reasoning", "summary": [{"type": "summary_text", "text": r.text}] if r.text else []}
        if r.id is not None:
            block["id"] = r.id
        if r.signature is not None:
            block["encrypted_content"] = r.signature
        return block
    block = {"type": "reasoning", "reasoning": r.text}
    if r.id is not None:
        block["id"] = r.id
    extras = {k: v for k, v in (("signature", r.signature), ("provider", r.provider)) if v}
    if extras:
        block["extras"] = extras
    return block


def _blocks(parts: Sequence[Any]) -> str | list[Any]:
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    out: list[Any] = []
    for p in parts:
        if isinstance(p, Text):
            out.append({"type": "text", "text": p.text})
        elif isinstance(p, Image):
            out.append(_image_block(p))
        else:
            out.append(_reasoning_block(p))
    return out if out else ""


def write_one(m: Message) -> list[Any]:
    """``m`` as LangChain messages: one, or one ``ToolMessage`` per result of a tool message."""
    if m.role == "tool":
        return [
            _lc.ToolMessage(
                _blocks(r.parts), tool_call_id=r.call_id, name=r.name, status="error" if r.is_error else "success"
            )
            for r in m.tool_results
        ]
    if m.role == "system":
        return [_lc.SystemMessage(_blocks(m.parts))]
    if m.role == "user":
        return [_lc.HumanMessage(_blocks(m.parts), name=m.name)]
    deepseek = [p for p in m.parts if isinstance(p, Reasoning) and p.provider == "deepseek"]
    body = [p for p in m.parts if isinstance(p, (Text, Image)) or (isinstance(p, Reasoning) and p not in deepseek)]
    calls, invalid = [], []
    for c in m.tool_calls:
        try:
            args = json.loads(c.arguments)
        except ValueError:
            args = None
        if isinstance(args, dict):
            calls.append({"name": c.name, "args": args, "id": c.id, "type": "tool_call"})
        else:  # not a JSON object: LangChain keeps it as an invalid call, text verbatim
            invalid.append(
                {"name": c.name, "args": c.arguments, "id": c.id, "error": None, "type": "invalid_tool_call"}
            )
    kwargs = {"reasoning_content": "\n".join(r.text for r in deepseek)} if deepseek else {}
    return [_lc.AIMessage(_blocks(body), tool_calls=calls, invalid_tool_calls=invalid, additional_kwargs=kwargs)]


def to_langchain(messages: Sequence[Message]) -> list[Any]:
    """``Message`` objects as LangChain messages (``from_langchain`` reads them back equal)."""
    return [lc for m in messages for lc in write_one(m)]


__all__ = ["from_langchain", "read_one", "to_langchain", "write_one"]
