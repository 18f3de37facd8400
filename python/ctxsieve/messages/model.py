"""One model of a conversation, whatever provider it came from or goes to.

A ``Message`` has a role and a tuple of parts. Parts are ``Text``, ``Image``, ``Reasoning``
(a thinking/reasoning block, kept byte-exact with its signature), ``ToolCall`` (an assistant's
request) and ``ToolResult`` (the answer, inside a message of role ``"tool"``). Every provider
shape is read into this model by a codec (``ctxsieve.messages.openai_chat``, ``.responses``,
``.anthropic``) and written back by the same codec; no other module reads provider shapes.

The model is strict where a provider is: a ``"tool"`` message holds tool results and nothing
else, tool calls come from assistants only. It is lenient only where nothing is lost: tool-call
arguments are kept as the exact text the model produced, valid JSON or not.

>>> m = Message("assistant", (Text("Looking."), ToolCall("c1", "search", '{"q": "refund"}')))
>>> m.text, [c.name for c in m.tool_calls]
('Looking.', ['search'])
>>> Message("tool", (Text("oops"),))
Traceback (most recent call last):
...
ctxsieve.messages.model.MessageError: message: a 'tool' message holds tool results only, got a Text part
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ctxsieve.errors import ContextError

Role = Literal["system", "user", "assistant", "tool"]
ROLES: frozenset[str] = frozenset(("system", "user", "assistant", "tool"))


class MessageError(ContextError, ValueError):
    """A message that cannot be read or sent as it is; the text names where (``messages[3]``)."""


@dataclass(frozen=True, slots=True)
class Text:
    text: str


@dataclass(frozen=True, slots=True)
class Image:
    """An image by ``url`` or base64 ``data``. ``width``/``height`` (pixels) when known let a
    provider's cost formula apply; ``description`` is what later calls may show instead."""

    url: str | None = None
    data: str | None = None
    media_type: str = "image/png"
    width: int | None = None
    height: int | None = None
    description: str = ""


@dataclass(frozen=True, slots=True)
class Reasoning:
    """A reasoning/thinking block. ``text`` is the visible thinking (empty when redacted);
    ``signature`` is Anthropic's signature or OpenAI's ``encrypted_content``; ``redacted``
    marks Anthropic ``redacted_thinking`` (``data`` then holds its opaque payload).
    ``provider`` says whose block it is (``"anthropic"``, ``"openai"``, ``"deepseek"``): a
    block is only ever sent back to the provider that made it. ``id`` is OpenAI's item id."""

    text: str = ""
    signature: str | None = None
    redacted: bool = False
    data: str | None = None
    provider: str = ""
    id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the model sent it: ``arguments`` is its JSON text, verbatim."""

    id: str
    name: str
    arguments: str = "{}"


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The result of call ``call_id``: text and images. ``is_error`` marks a failed call."""

    call_id: str
    parts: tuple[Text | Image, ...] = ()
    name: str | None = None
    is_error: bool = False

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if isinstance(p, Text))


Part = Text | Image | Reasoning | ToolCall | ToolResult
_PART_TYPES = (Text, Image, Reasoning, ToolCall, ToolResult)


@dataclass(frozen=True, slots=True)
class Message:
    """One message. ``audience`` (None: anyone) limits which calls may include it."""

    role: Role
    parts: tuple[Part, ...] = ()
    audience: frozenset[str] | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        problem = message_problem(self)
        if problem is not None:
            raise MessageError(f"message: {problem}")

    @property
    def text(self) -> str:
        """The text parts, joined by newlines (tool results' text for a tool message)."""
        if self.role == "tool":
            return "\n".join(r.text for r in self.parts if isinstance(r, ToolResult))
        return "\n".join(p.text for p in self.parts if isinstance(p, Text))

    @property
    def images(self) -> tuple[Image, ...]:
        out = [p for p in self.parts if isinstance(p, Image)]
        for r in self.parts:
            if isinstance(r, ToolResult):
                out += [p for p in r.parts if isinstance(p, Image)]
        return tuple(out)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolResult))

    @property
    def reasoning(self) -> tuple[Reasoning, ...]:
        return tuple(p for p in self.parts if isinstance(p, Reasoning))


def message_problem(m: Message) -> str | None:
    """Why ``m`` is malformed, or None."""
    if m.role not in ROLES:
        return f"role must be one of {sorted(ROLES)}, got {m.role!r}"
    if not isinstance(m.parts, tuple):
        return f"parts must be a tuple, got {type(m.parts).__name__}"
    for p in m.parts:
        if not isinstance(p, _PART_TYPES):
            return f"part of type {type(p).__name__} is not a Text, Image, Reasoning, ToolCall or ToolResult"
        if m.role == "tool" and not isinstance(p, ToolResult):
            return f"a 'tool' message holds tool results only, got a {type(p).__name__} part"
        if isinstance(p, ToolResult) and m.role != "tool":
            return f"tool results belong in a 'tool' message, not a {m.role!r} one"
        if isinstance(p, ToolCall) and m.role != "assistant":
            return f"tool calls come from the assistant, not from a {m.role!r} message"
        # providers pair a call and its result by id: without one, neither can be sent
        if isinstance(p, ToolCall) and not p.id:
            return "a tool call needs an id"
        if isinstance(p, ToolResult) and not p.call_id:
            return "a tool result needs the id of the call it answers"
        if isinstance(p, Reasoning) and m.role != "assistant":
            return f"reasoning comes from the assistant, not from a {m.role!r} message"
    if m.role == "tool" and not m.parts:
        return "a 'tool' message needs at least one tool result"
    return None


def user(text: str) -> Message:
    """A user message of plain text.

    >>> user("hi").parts
    (Text(text='hi'),)
    """
    return Message("user", (Text(text),))


def assistant(text: str = "", *calls: ToolCall) -> Message:
    """An assistant message: its text (may be empty) and the tool calls it makes."""
    parts: tuple[Part, ...] = ((Text(text),) if text else ()) + calls
    return Message("assistant", parts)


def tool_result(call_id: str, text: str, *, name: str | None = None, is_error: bool = False) -> Message:
    """A tool message carrying one text result for ``call_id``."""
    return Message("tool", (ToolResult(call_id, (Text(text),), name, is_error),))


def system(text: str) -> Message:
    return Message("system", (Text(text),))
