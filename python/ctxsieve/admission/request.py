"""The assembled request: system, attributed context, current message, the loop's messages.

* ``system``: runtime instructions, persona, tool policy and the skill roster. Never external
  messages or memories.
* ``context``: one user message with eligible memory, prior turns, labels and attribution. It
  is transient: admission regenerates it whenever what it retains changes.
* ``current``: the inbound user message, body and images.
* ``messages``: the assistant and tool messages the model/tool loop added during this turn.

``to_openai()`` and ``to_anthropic()`` render the request in each provider's shape.

>>> r = Request(model="m", system="Be brief.", context=None, current=Message("user", "hi"), messages=(), tools=())
>>> r.to_openai()["messages"]
[{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'hi'}]
>>> r.to_anthropic()["messages"]
[{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxsieve.admission.messages import Image, Message


@dataclass(frozen=True)
class Request:
    """What one admitted model call sends (provider-neutral)."""

    model: str | None
    system: str
    context: str | None
    current: Message
    messages: tuple[Message, ...]
    tools: tuple[Mapping[str, Any], ...]

    def to_openai(self) -> dict[str, Any]:
        """An OpenAI chat-completions body (``model``, ``messages`` and ``tools`` when any)."""
        msgs: list[dict[str, Any]] = []
        if self.system:
            msgs.append({"role": "system", "content": self.system})
        if self.context:
            msgs.append({"role": "user", "content": self.context})
        msgs.append(_openai_message(self.current))
        msgs.extend(_openai_message(m) for m in self.messages)
        body: dict[str, Any] = {"model": self.model, "messages": msgs}
        if self.tools:
            body["tools"] = [openai_tool(t) for t in self.tools]
        return body

    def to_anthropic(self) -> dict[str, Any]:
        """An Anthropic messages body: ``system`` apart, context and current message in one user turn."""
        first: list[dict[str, Any]] = []
        if self.context:
            first.append({"type": "text", "text": self.context})
        first.extend(_anthropic_blocks(self.current) or [{"type": "text", "text": ""}])
        msgs: list[dict[str, Any]] = [{"role": "user", "content": first}]
        for m in self.messages:
            role = "assistant" if m.role == "assistant" else "user"
            blocks = _anthropic_blocks(m)
            if not blocks:
                continue  # the API rejects an empty text block, and an empty message says nothing
            # the API wants alternating roles: consecutive tool results share one user turn
            if msgs[-1]["role"] == role:
                msgs[-1]["content"].extend(blocks)
            else:
                msgs.append({"role": role, "content": blocks})
        body: dict[str, Any] = {"model": self.model, "messages": msgs}
        if self.system:
            body["system"] = self.system
        if self.tools:
            body["tools"] = [anthropic_tool(t) for t in self.tools]
        return body

    def payload(self) -> str:
        """Canonical JSON of the whole request, for snapshots. Inline images are kept by
        reference (media type, SHA-256 and size), not as their base64 bytes."""
        body = self.to_openai()
        for m in body["messages"]:
            if isinstance(m.get("content"), list):
                m["content"] = [_image_ref(part) for part in m["content"]]
        return json.dumps({"shape": "ctxsieve.request/1", **body}, ensure_ascii=False, sort_keys=True, default=str)


def _image_ref(part: dict[str, Any]) -> dict[str, Any]:
    url = part.get("image_url", {}).get("url", "") if part.get("type") == "image_url" else ""
    if not url.startswith("data:"):
        return part
    head, _, data = url.partition(",")
    digest = hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()
    return {"type": "image_ref", "media": head[5:], "sha256": digest, "base64_chars": len(data)}


def _image_url(img: Image) -> str:
    if img.url:
        return img.url
    return f"data:{img.media_type};base64,{img.data or ''}"


def _openai_message(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        if m.tool_call_id:
            return {"role": "tool", "tool_call_id": m.tool_call_id, "content": m.text}
        # a result no call claims cannot be sent as a tool message; keep it visible as user text
        return {"role": "user", "content": f"[tool result without a call id]\n{m.text}"}
    out: dict[str, Any] = {"role": m.role}
    if m.images:
        parts: list[dict[str, Any]] = [{"type": "text", "text": m.text}] if m.text else []
        parts += [{"type": "image_url", "image_url": {"url": _image_url(i)}} for i in m.images]
        out["content"] = parts
    else:
        out["content"] = m.text if (m.text or not m.tool_calls) else None
    if m.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in m.tool_calls
        ]
    return out


def _anthropic_blocks(m: Message) -> list[dict[str, Any]]:
    if m.role == "tool":
        if m.tool_call_id:
            return [{"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.text}]
        return [{"type": "text", "text": f"[tool result without a call id]\n{m.text}"}]
    blocks: list[dict[str, Any]] = [{"type": "text", "text": m.text}] if m.text else []
    for img in m.images:
        if img.url:
            blocks.append({"type": "image", "source": {"type": "url", "url": img.url}})
        else:
            src = {"type": "base64", "media_type": img.media_type, "data": img.data or ""}
            blocks.append({"type": "image", "source": src})
    for c in m.tool_calls:
        try:
            args = json.loads(c.arguments)
        except ValueError:
            args = None
        if not isinstance(args, dict):
            # tool_use input must be an object; keep what the model produced, unparsed
            args = {"_raw_arguments": c.arguments}
        blocks.append({"type": "tool_use", "id": c.id, "name": c.name, "input": args})
    return blocks


def _tool_parts(t: Mapping[str, Any]) -> tuple[str, str, Any]:
    inner = t.get("function")
    fn: Mapping[str, Any] = inner if isinstance(inner, Mapping) else t
    params = fn.get("parameters", fn.get("input_schema", {"type": "object", "properties": {}}))
    return str(fn.get("name", "")), str(fn.get("description", "")), params


def openai_tool(t: Mapping[str, Any]) -> dict[str, Any]:
    if t.get("type") == "function" and "function" in t:
        return dict(t)
    name, desc, params = _tool_parts(t)
    return {"type": "function", "function": {"name": name, "description": desc, "parameters": params}}


def anthropic_tool(t: Mapping[str, Any]) -> dict[str, Any]:
    name, desc, params = _tool_parts(t)
    return {"name": name, "description": desc, "input_schema": params}
