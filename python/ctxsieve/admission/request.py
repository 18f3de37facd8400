"""The assembled request: system, attributed context, current message, the loop's messages.

* ``system``: runtime instructions, persona, tool policy and the skill roster. Never external
  messages or memories.
* ``context``: one user message with eligible memory, prior turns, labels and attribution. It
  is transient: admission regenerates it whenever what it retains changes.
* ``current``: the inbound user message, body and images.
* ``messages``: the assistant and tool messages the model/tool loop added during this turn.

``to_openai()`` and ``to_anthropic()`` render the request in each provider's shape, through the
codecs of ``ctxsieve.messages`` (admission writes no provider shape itself).

>>> from ctxsieve.messages import user
>>> r = Request(model="m", system="Be brief.", context=None, current=user("hi"), messages=(), tools=())
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

from ctxsieve.messages import Message, anthropic, openai_chat, system, user
from ctxsieve.messages.tools import anthropic_tool, openai_tool


@dataclass(frozen=True)
class Request:
    """What one admitted model call sends (provider-neutral)."""

    model: str | None
    system: str
    context: str | None
    current: Message
    messages: tuple[Message, ...]
    tools: tuple[Mapping[str, Any], ...]

    def conversation(self) -> list[Message]:
        """Everything sent, in order, as messages: system, context, current, the loop's."""
        head = ([system(self.system)] if self.system else []) + ([user(self.context)] if self.context else [])
        return [*head, self.current, *self.messages]

    def to_openai(self) -> dict[str, Any]:
        """An OpenAI chat-completions body (``model``, ``messages`` and ``tools`` when any)."""
        body: dict[str, Any] = {"model": self.model, "messages": openai_chat.write(self.conversation())}
        if self.tools:
            body["tools"] = [openai_tool(t) for t in self.tools]
        return body

    def to_anthropic(self) -> dict[str, Any]:
        """An Anthropic messages body: ``system`` apart, context and current message in one user
        turn, consecutive messages of a role merged (the API wants them alternating)."""
        system_param, msgs = anthropic.write(self.conversation())
        body: dict[str, Any] = {"model": self.model, "messages": msgs}
        if system_param:
            body["system"] = system_param
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
