"""The assistant message of a provider's response, whichever API answered.

* OpenAI Chat Completions: ``choices[0].message``
  (https://platform.openai.com/docs/api-reference/chat/object).
* Anthropic Messages: ``{"type": "message", "role": "assistant", "content": [blocks]}``
  (https://docs.anthropic.com/en/api/messages).
* OpenAI Responses: ``{"object": "response", "output": [items]}``, its reasoning, message and
  function_call items (https://platform.openai.com/docs/api-reference/responses/object).

Objects from the providers' SDKs (pydantic models) are read through their dicts.

>>> response_message({"choices": [{"message": {"role": "assistant", "content": "Hi."}}]}).text
'Hi.'
>>> response_message({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Hi."}]}).text
'Hi.'
>>> response_message({"object": "response", "output": [{"type": "message", "role": "assistant",
...     "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]}]}).text
'Hi.'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxsieve.messages import _common as c
from ctxsieve.messages import anthropic, openai_chat, responses
from ctxsieve.messages.model import Message, MessageError


def is_response(raw: Any) -> bool:
    """Whether ``raw`` is a Chat Completions or Responses response rather than a message (an
    Anthropic response reads as a message as it is: ``read_any`` takes it)."""
    m = c.as_mapping(raw)
    if not isinstance(m, Mapping):
        return False
    # a function_call_output item has an "output" too, and a "type"; a response has neither
    # "type" nor "role" (and usually "object": "response")
    return (
        "choices" in m
        or m.get("object") == "response"
        or (isinstance(m.get("output"), list) and "type" not in m and "role" not in m)
    )


def response_message(resp: Any, where: str = "response") -> Message:
    """The one assistant ``Message`` a model call returned. ``MessageError`` for anything that
    is not a Chat Completions, Anthropic Messages or Responses response."""
    raw = c.mapping(resp, where, "a response")
    if "choices" in raw:
        choices = raw["choices"]
        if not isinstance(choices, list) or not choices:
            raise MessageError(f"{where}.choices: expected a non-empty list, got {choices!r:.60}")
        choice = c.mapping(choices[0], f"{where}.choices[0]", "a choice")
        message = c.mapping(choice.get("message"), f"{where}.choices[0].message")
        m = openai_chat.read_one(message, f"{where}.choices[0].message")
    elif "output" in raw:
        msgs = responses.read(raw["output"], where=f"{where}.output")
        if any(x.role != "assistant" for x in msgs):
            raise MessageError(f"{where}.output: a response's output holds assistant items only")
        m = Message("assistant", tuple(p for x in msgs for p in x.parts))
    elif raw.get("type") == "message" and "content" in raw:
        if raw.get("role") != "assistant":
            raise MessageError(f"{where}.role: the reply's role is {raw.get('role')!r}, expected 'assistant'")
        (m,) = anthropic.read_one({"role": raw.get("role"), "content": raw["content"]}, where)
    else:
        keys = ", ".join(sorted(map(str, raw))[:8])
        raise MessageError(
            f"{where}: not a Chat Completions (choices), Responses (output) or Anthropic (type 'message') "
            f"response; its keys are {keys or 'none'}"
        )
    if m.role != "assistant":
        raise MessageError(f"{where}: the reply's role is {m.role!r}, expected 'assistant'")
    return m


__all__ = ["is_response", "response_message"]
