"""PydanticAI messages to and from the one message model (``ctxsieve.messages.Message``).

A ``ModelRequest`` holds parts of several roles; ``from_pydantic_ai`` reads each part in order:
a ``SystemPromptPart`` is a system message, a ``UserPromptPart`` a user message (its text and
images: ``ImageUrl``, image ``BinaryContent``), and each run of parts answering tool calls one
tool message (a ``ToolReturnPart``; a ``RetryPromptPart`` naming a tool, or a return whose
``outcome`` is not ``success``, is a failed call; a ``RetryPromptPart`` naming no tool is the
user message PydanticAI sends for it, as is a ``RetryFeedbackPart``). A ``ModelResponse`` is one assistant message:
``TextPart``, ``ToolCallPart`` (arguments as JSON text), ``ThinkingPart`` (kept with its
signature and provider; Anthropic's redacted thinking is the part PydanticAI marks with the id
``redacted_thinking``). ``to_pydantic_ai`` writes consecutive non-assistant messages into one
``ModelRequest`` (as PydanticAI merges them itself before a model sees them).

A tool return whose content is not a str is read as the text the model is sent
(``model_response_str()``); it is written back as that str. Any other part (a built-in tool
call, a file, audio or video content) is a ``MessageError`` naming ``messages[i].parts[k]``.

>>> from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
>>> msgs = from_pydantic_ai([ModelRequest([UserPromptPart("disk?")]),
...                          ModelResponse([ToolCallPart("df", {"path": "/"}, tool_call_id="c1")]),
...                          ModelRequest([ToolReturnPart("df", "91% used", tool_call_id="c1")])])
>>> [m.role for m in msgs], msgs[1].tool_calls[0].arguments, msgs[2].text
(['user', 'assistant', 'tool'], '{"path":"/"}', '91% used')
>>> [type(m).__name__ for m in to_pydantic_ai(msgs)]
['ModelRequest', 'ModelResponse', 'ModelRequest']
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from ctxsieve.integrations._common import require
from ctxsieve.messages import Image, Message, MessageError, Reasoning, Text, ToolCall, ToolResult
from ctxsieve.messages._common import compact_json, image_from_url

_m = require("pydantic_ai.messages", "pydantic-ai", "pydantic-ai-slim")

REDACTED = "redacted_thinking"  # the id PydanticAI gives Anthropic's redacted thinking part


def _user_content(content: Any, where: str) -> list[Text | Image]:
    if isinstance(content, str):
        return [Text(content)]
    out: list[Text | Image] = []
    for k, c in enumerate(content):
        if isinstance(c, str):
            out.append(Text(c))
        elif isinstance(c, _m.ImageUrl):
            out.append(image_from_url(c.url))
        elif isinstance(c, _m.BinaryContent) and c.is_image:
            out.append(Image(data=base64.b64encode(c.data).decode("ascii"), media_type=c.media_type))
        else:
            raise MessageError(f"{where}.content[{k}]: {type(c).__name__} content is not read (text and images are)")
    return out


def _answer(part: Any) -> ToolResult:
    if isinstance(part, _m.RetryPromptPart):
        text = part.content if isinstance(part.content, str) else part.model_response()
        return ToolResult(str(part.tool_call_id), (Text(text),), part.tool_name, True)
    content = part.content
    text = content if isinstance(content, str) else str(part.model_response_str())
    return ToolResult(str(part.tool_call_id), (Text(text),), part.tool_name, part.outcome != "success")


def _answers(part: Any) -> bool:
    return isinstance(part, _m.ToolReturnPart) or (isinstance(part, _m.RetryPromptPart) and part.tool_name is not None)


def _request(msg: Any, where: str) -> list[tuple[Message, tuple[Any, ...]]]:
    out: list[tuple[Message, tuple[Any, ...]]] = []
    results: list[tuple[ToolResult, Any]] = []

    def flush() -> None:
        if results:
            out.append((Message("tool", tuple(r for r, _ in results)), tuple(p for _, p in results)))
            results.clear()

    for k, part in enumerate(msg.parts):
        at = f"{where}.parts[{k}]"
        if _answers(part):
            if not part.tool_call_id:
                raise MessageError(f"{at}: a tool return must name the call it answers")
            results.append((_answer(part), part))
            continue
        flush()
        if isinstance(part, _m.SystemPromptPart):
            out.append((Message("system", (Text(part.content),)), (part,)))
        elif isinstance(part, _m.UserPromptPart):
            out.append((Message("user", tuple(_user_content(part.content, at))), (part,)))
        elif isinstance(part, (_m.RetryPromptPart, _m.RetryFeedbackPart)):
            # a retry answering no tool call: PydanticAI sends it as a user message, in these words
            out.append((Message("user", (Text(part.model_response()),)), (part,)))
        else:
            raise MessageError(f"{at}: a {type(part).__name__} is not read in a request")
    flush()
    return out


def _response(msg: Any, where: str) -> Message:
    parts: list[Any] = []
    for k, part in enumerate(msg.parts):
        at = f"{where}.parts[{k}]"
        if isinstance(part, _m.TextPart):
            parts.append(Text(part.content))
        elif isinstance(part, _m.ToolCallPart):
            if not part.tool_call_id:
                raise MessageError(f"{at}: a tool call needs an id")
            args = part.args
            text = args if isinstance(args, str) else compact_json(args or {})
            parts.append(ToolCall(part.tool_call_id, part.tool_name, text))
        elif isinstance(part, _m.ThinkingPart):
            provider = part.provider_name or ""
            if part.id == REDACTED:
                parts.append(Reasoning("", redacted=True, data=part.signature or "", provider=provider))
            else:
                parts.append(Reasoning(part.content, signature=part.signature, provider=provider, id=part.id))
        else:
            raise MessageError(f"{at}: a {type(part).__name__} is not read in a response")
    return Message("assistant", tuple(parts))


def read_one(msg: Any, where: str) -> list[tuple[Message, Any]]:
    """One ``ModelMessage`` as ``(message, origin)`` pairs: the origin of an assistant message
    is its ``ModelResponse``, of any other message the request parts it was read from."""
    if isinstance(msg, _m.ModelRequest):
        return list(_request(msg, where))
    if isinstance(msg, _m.ModelResponse):
        return [(_response(msg, where), msg)]
    raise MessageError(f"{where}: a {type(msg).__name__} is not a ModelRequest or ModelResponse")


def from_pydantic_ai(messages: Sequence[Any], *, where: str = "messages") -> list[Message]:
    """PydanticAI ``ModelMessage``s as ``Message`` objects, strictly checked."""
    if isinstance(messages, (str, Mapping)) or not isinstance(messages, Sequence):
        raise MessageError(f"{where}: expected a list of PydanticAI messages, got {type(messages).__name__}")
    return [m for i, msg in enumerate(messages) for m, _ in read_one(msg, f"{where}[{i}]")]


def _prompt_content(m: Message, where: str) -> Any:
    if len(m.parts) == 1 and isinstance(m.parts[0], Text):
        return m.parts[0].text
    out: list[Any] = []
    for p in m.parts:
        if isinstance(p, Text):
            out.append(p.text)
        elif isinstance(p, Image) and p.url is not None:
            out.append(_m.ImageUrl(p.url))
        elif isinstance(p, Image):
            out.append(_m.BinaryContent(base64.b64decode(p.data or ""), media_type=p.media_type))
        else:
            raise MessageError(f"{where}: a user message carries text and images, not a {type(p).__name__}")
    return out


def request_parts(m: Message, where: str) -> list[Any]:
    """A system, user or tool message as the request parts that carry it."""
    if m.role == "system":
        return [_m.SystemPromptPart(m.text)]
    if m.role == "user":
        return [_m.UserPromptPart(_prompt_content(m, where))]
    out = []
    for r in m.tool_results:
        if any(isinstance(p, Image) for p in r.parts):
            raise MessageError(f"{where}: a PydanticAI tool return written here carries text, not images")
        # a failed call is a retried return (pydantic-ai 2.x; RetryPromptPart is deprecated there)
        outcome = "retried" if r.is_error else "success"
        out.append(_m.ToolReturnPart(r.name or "", r.text, tool_call_id=r.call_id, outcome=outcome))
    return out


def _response_parts(m: Message, where: str) -> list[Any]:
    out: list[Any] = []
    for p in m.parts:
        if isinstance(p, Text):
            out.append(_m.TextPart(p.text))
        elif isinstance(p, ToolCall):
            out.append(_m.ToolCallPart(p.name, p.arguments, tool_call_id=p.id))
        elif isinstance(p, Reasoning) and p.redacted:
            out.append(_m.ThinkingPart("", id=REDACTED, signature=p.data, provider_name=p.provider or None))
        elif isinstance(p, Reasoning):
            out.append(_m.ThinkingPart(p.text, id=p.id, signature=p.signature, provider_name=p.provider or None))
        else:  # an image an assistant made: PydanticAI has no response part for it here
            raise MessageError(f"{where}: an assistant message written for PydanticAI carries no images")
    return out


def response(m: Message, where: str) -> Any:
    """An assistant message as a ``ModelResponse``."""
    return _m.ModelResponse(_response_parts(m, where))


def to_pydantic_ai(messages: Sequence[Message]) -> list[Any]:
    """``Message`` objects as ``ModelRequest``/``ModelResponse``s (``from_pydantic_ai`` reads
    them back equal)."""
    out: list[Any] = []
    pending: list[Any] = []
    for i, m in enumerate(messages):
        if m.role == "assistant":
            if pending:
                out.append(_m.ModelRequest(pending))
                pending = []
            out.append(response(m, f"messages[{i}]"))
        else:
            pending += request_parts(m, f"messages[{i}]")
    if pending:
        out.append(_m.ModelRequest(pending))
    return out


__all__ = ["REDACTED", "from_pydantic_ai", "read_one", "request_parts", "response", "to_pydantic_ai"]
