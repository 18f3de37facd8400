"""Provider messages for the loop helpers, through the codecs of ``ctxsieve.messages``.

The helpers take the caller's list as it is (OpenAI Chat, Anthropic or Responses dicts, SDK
objects, or ``ctxsieve.messages.Message`` objects) and give back a list of the same kind:
``MessagesAdapter`` reads each message with ``read_any`` into ``Message`` objects (strictly: a
malformed message is a ``MessageError`` naming ``messages[i]``), answers every question from
them, and writes a changed message back with the codec it was read with (``shape_of``), so
nothing in ``ctxsieve.loop`` reads or writes a provider shape itself. A message that needs no
change is returned as the same object; an ``audience`` label on a rewritten dict is kept (the
codecs never write it: it is ctxsieve's label, not prompt text).

>>> a = MessagesAdapter()
>>> raw = {"role": "tool", "tool_call_id": "c1", "content": "a long listing"}
>>> a.tool_results(raw), a.replace_tool_result(raw, "c1", "short")
([('c1', 'a long listing')], {'role': 'tool', 'tool_call_id': 'c1', 'content': 'short'})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ctxsieve.messages import Message, Text, ToolResult, anthropic, openai_chat, read_any, responses, sent_texts, user
from ctxsieve.messages.summary import parse_summary, summary_header
from ctxsieve.messages.texts import Shape, shape_of


def _write(shape: Shape, original: Any, msgs: Sequence[Message], where: str) -> Any:
    """``msgs`` (read from ``original``) written back as one message of ``original``'s shape."""
    if shape == "model":
        (only,) = msgs
        return only
    if shape == "anthropic":
        system, out = anthropic.write(msgs)
        assert system is None and len(out) == 1, f"{where}: one Anthropic message reads back as one"
        raw: Any = out[0]
    elif shape == "responses":
        (raw,) = [item for m in msgs for item in responses.write_one(m, where)]
    else:
        (raw,) = openai_chat.write(msgs)
    if isinstance(original, Mapping) and "audience" in original:
        raw["audience"] = original["audience"]  # who may read it does not change with its text
    return raw


class MessagesAdapter:
    """The ``MessageAdapter`` of every provider shape the codecs read (and of ``Message``).

    ``style`` is the shape a new message (a compaction summary) is written in: ``"openai"``
    (Chat Completions), ``"anthropic"``, ``"responses"`` or ``"model"`` (a ``Message``).
    Messages read are cached per object (held, so its id is not reused) for the adapter's life.
    """

    style = "openai"

    def __init__(self, style: str | None = None, max_cached: int = 100_000):
        if style is not None:
            if style not in _STYLES:
                raise ValueError(f"style: expected one of {sorted(_STYLES)}, got {style!r}")
            self.style = style
        self._max = max_cached
        self._read: dict[int, tuple[Any, Shape, list[Message]]] = {}

    # -- reading ----------------------------------------------------------------------------

    def read(self, raw: Any, where: str = "message") -> tuple[Shape, list[Message]]:
        """``raw``'s shape and the messages it reads as."""
        hit = self._read.get(id(raw))
        if hit is not None and hit[0] is raw:
            return hit[1], hit[2]
        shape, msgs = shape_of(raw, where), read_any(raw, where)
        if len(self._read) >= self._max:
            self._read.clear()
        self._read[id(raw)] = (raw, shape, msgs)
        return shape, msgs

    def read_all(self, raws: Sequence[Any], where: str = "messages") -> list[list[Message]]:
        """The messages of each raw; an error names ``messages[i]``."""
        return [self.read(r, f"{where}[{i}]")[1] for i, r in enumerate(raws)]

    def messages(self, raw: Any) -> list[Message]:
        return self.read(raw)[1]

    def role(self, raw: Any) -> str:
        """The role of its first message (``"tool"`` for a message of tool results)."""
        msgs = self.messages(raw)
        return msgs[0].role if msgs else "user"

    def text(self, raw: Any) -> str:
        return "\n".join(t for t in (m.text for m in self.messages(raw)) if t)

    def cost_text(self, raw: Any) -> str:
        return "\n".join(t for m in self.messages(raw) for t in sent_texts(m))

    def tool_call_ids(self, raw: Any) -> list[str]:
        return [c.id for m in self.messages(raw) for c in m.tool_calls]

    def tool_result_ids(self, raw: Any) -> list[str]:
        return [r.call_id for m in self.messages(raw) for r in m.tool_results]

    def tool_results(self, raw: Any) -> list[tuple[str, str]]:
        return [(r.call_id, r.text) for m in self.messages(raw) for r in m.tool_results]

    def summary(self, raw: Any) -> tuple[int, str] | None:
        msgs = self.messages(raw)
        if len(msgs) != 1 or msgs[0].role != "user":
            return None
        return parse_summary(msgs[0].text)

    # -- writing ----------------------------------------------------------------------------

    def replace_tool_results(self, raw: Any, texts: Mapping[str, str]) -> Any:
        """A copy of ``raw`` whose results for the calls in ``texts`` read the given text (their
        images stay); ``raw`` itself when ``texts`` is empty."""
        if not texts:
            return raw
        shape, msgs = self.read(raw)
        missing = set(texts) - {r.call_id for m in msgs for r in m.tool_results}
        if missing:
            raise KeyError(f"message carries no result for tool call {sorted(missing)[0]!r}")
        out = [replace(m, parts=tuple(_retexted(p, texts) for p in m.parts)) for m in msgs]
        return _write(shape, raw, out, "message")

    def replace_tool_result(self, raw: Any, call_id: str, text: str) -> Any:
        """A copy of ``raw`` whose result for ``call_id`` reads ``text``."""
        return self.replace_tool_results(raw, {call_id: text})

    def make_summary(self, text: str, covered: int) -> Any:
        m = user(summary_header(covered) + text)
        return m if self.style == "model" else _write(_STYLES[self.style], None, [m], "summary")


def _retexted(p: Any, texts: Mapping[str, str]) -> Any:
    if not isinstance(p, ToolResult) or p.call_id not in texts:
        return p
    return replace(p, parts=(Text(texts[p.call_id]), *(q for q in p.parts if not isinstance(q, Text))))


_STYLES: dict[str, Shape] = {
    "openai": "openai_chat",
    "anthropic": "anthropic",
    "responses": "responses",
    "model": "model",
}


class OpenAIAdapter(MessagesAdapter):
    """``MessagesAdapter`` writing new messages as OpenAI Chat Completions dicts."""

    style = "openai"


class AnthropicAdapter(MessagesAdapter):
    """``MessagesAdapter`` writing new messages as Anthropic Messages dicts."""

    style = "anthropic"


__all__ = ["AnthropicAdapter", "MessagesAdapter", "OpenAIAdapter"]
