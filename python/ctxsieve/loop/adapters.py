"""Message adapters: what the loop helpers need to know about one provider's message shape.

The helpers never touch a message directly; they ask an adapter for its role, its text, the
tool calls it makes, the tool results it carries (an Anthropic user message may carry several),
and for copies with one result replaced or with a summary. Adapters never mutate a message:
every change returns a new one, so the caller's list stays as it was.

>>> a = OpenAIAdapter()
>>> call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
...         "function": {"name": "ls", "arguments": "{}"}}]}
>>> a.tool_call_ids(call), a.tool_result_ids({"role": "tool", "tool_call_id": "c1", "content": "a b"})
(['c1'], ['c1'])
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ctxsieve.tokenizers import EstimatorLike, resolve_estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

_SUMMARY_RE = re.compile(r"\A\[Summary of the (\d+) earlier messages of this conversation\]\n")


def summary_header(covered: int) -> str:
    """The marker line that opens every summary message; it records how many original messages
    the summary replaces, so positions in the conversation survive repeated compaction."""
    return f"[Summary of the {covered} earlier messages of this conversation]\n"


def parse_summary(text: str) -> tuple[int, str] | None:
    """``(covered, summary text)`` when ``text`` is a summary made by ``make_summary``."""
    m = _SUMMARY_RE.match(text)
    return (int(m.group(1)), text[m.end() :]) if m else None


@runtime_checkable
class MessageAdapter(Protocol):
    """Implement this for a framework's own message type to use the loop helpers with it."""

    def role(self, message: Any) -> str: ...

    def text(self, message: Any) -> str:
        """The message's text, tool results included (what search and summaries read)."""
        ...

    def cost_text(self, message: Any) -> str:
        """Everything that costs tokens: the text plus tool-call names and arguments."""
        ...

    def tool_call_ids(self, message: Any) -> list[str]: ...

    def tool_result_ids(self, message: Any) -> list[str]: ...

    def tool_results(self, message: Any) -> list[tuple[str, str]]:
        """``(tool call id, result text)`` per result block, in order."""
        ...

    def replace_tool_result(self, message: Any, call_id: str, text: str) -> Any:
        """A copy of ``message`` whose result for ``call_id`` reads ``text``."""
        ...

    def make_summary(self, text: str, covered: int) -> Any: ...

    def summary(self, message: Any) -> tuple[int, str] | None:
        """``(covered, text)`` when the message is a summary, else None."""
        ...


def _part_text(content: Any) -> str:
    """Text of a string or of a list of content parts/blocks (non-text parts are skipped)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        out = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                out.append(part["text"])
        return "\n".join(out)
    return str(content)


class OpenAIAdapter:
    """OpenAI chat-completions dicts: ``tool_calls`` on assistant messages, one ``role: "tool"``
    message per result."""

    style = "openai"

    def role(self, message: Any) -> str:
        return str(message.get("role", ""))

    def text(self, message: Any) -> str:
        return _part_text(message.get("content"))

    def cost_text(self, message: Any) -> str:
        text = self.text(message)
        calls = message.get("tool_calls")
        if calls:
            text += "\n" + json.dumps(calls, ensure_ascii=False, default=str)
        return text

    def tool_call_ids(self, message: Any) -> list[str]:
        if message.get("role") != "assistant":
            return []
        return [str(c["id"]) for c in message.get("tool_calls") or () if isinstance(c, Mapping) and "id" in c]

    def tool_result_ids(self, message: Any) -> list[str]:
        if message.get("role") == "tool" and message.get("tool_call_id") is not None:
            return [str(message["tool_call_id"])]
        return []

    def tool_results(self, message: Any) -> list[tuple[str, str]]:
        return [(i, self.text(message)) for i in self.tool_result_ids(message)]

    def replace_tool_result(self, message: Any, call_id: str, text: str) -> Any:
        if self.tool_result_ids(message) != [call_id]:
            raise KeyError(f"message carries no result for tool call {call_id!r}")
        content = message.get("content")
        if isinstance(content, list):  # keep non-text parts, replace the text
            rest = [p for p in content if not (isinstance(p, Mapping) and p.get("type") == "text")]
            return {**message, "content": [{"type": "text", "text": text}, *rest]}
        return {**message, "content": text}

    def make_summary(self, text: str, covered: int) -> Any:
        return {"role": "user", "content": summary_header(covered) + text}

    def summary(self, message: Any) -> tuple[int, str] | None:
        if message.get("role") != "user":
            return None
        return parse_summary(self.text(message))


class AnthropicAdapter:
    """Anthropic messages dicts: ``tool_use`` blocks in assistant messages, ``tool_result``
    blocks (several per message allowed) in user messages."""

    style = "anthropic"

    @staticmethod
    def _blocks(message: Any) -> list[Any]:
        content = message.get("content")
        return content if isinstance(content, list) else []

    def role(self, message: Any) -> str:
        return str(message.get("role", ""))

    def text(self, message: Any) -> str:
        content = message.get("content")
        if isinstance(content, str):
            return content
        out = []
        for b in self._blocks(message):
            if not isinstance(b, Mapping):
                continue
            if b.get("type") == "text" and isinstance(b.get("text"), str):
                out.append(b["text"])
            elif b.get("type") == "tool_result":
                out.append(_part_text(b.get("content")))
        return "\n".join(out)

    def cost_text(self, message: Any) -> str:
        text = self.text(message)
        uses = [b for b in self._blocks(message) if isinstance(b, Mapping) and b.get("type") == "tool_use"]
        if uses:
            text += "\n" + json.dumps(uses, ensure_ascii=False, default=str)
        return text

    def tool_call_ids(self, message: Any) -> list[str]:
        return [
            str(b["id"])
            for b in self._blocks(message)
            if isinstance(b, Mapping) and b.get("type") == "tool_use" and "id" in b
        ]

    def tool_result_ids(self, message: Any) -> list[str]:
        return [i for i, _ in self.tool_results(message)]

    def tool_results(self, message: Any) -> list[tuple[str, str]]:
        return [
            (str(b["tool_use_id"]), _part_text(b.get("content")))
            for b in self._blocks(message)
            if isinstance(b, Mapping) and b.get("type") == "tool_result" and "tool_use_id" in b
        ]

    def replace_tool_result(self, message: Any, call_id: str, text: str) -> Any:
        blocks = self._blocks(message)
        out, found = [], False
        for b in blocks:
            if isinstance(b, Mapping) and b.get("type") == "tool_result" and str(b.get("tool_use_id")) == call_id:
                found = True
                inner = b.get("content")
                if isinstance(inner, list):  # keep images and other non-text blocks
                    rest = [p for p in inner if not (isinstance(p, Mapping) and p.get("type") == "text")]
                    b = {**b, "content": [{"type": "text", "text": text}, *rest]}
                else:
                    b = {**b, "content": text}
            out.append(b)
        if not found:
            raise KeyError(f"message carries no result for tool call {call_id!r}")
        return {**message, "content": out}

    def make_summary(self, text: str, covered: int) -> Any:
        return {"role": "user", "content": [{"type": "text", "text": summary_header(covered) + text}]}

    def summary(self, message: Any) -> tuple[int, str] | None:
        if message.get("role") != "user":
            return None
        return parse_summary(self.text(message))


def adapter_for(messages: Sequence[Any], style: str | MessageAdapter | None = None) -> MessageAdapter:
    """The adapter to use: ``style`` when given (``"openai"``, ``"anthropic"`` or an adapter),
    else guessed from the messages (Anthropic when any carries a ``tool_use``/``tool_result``
    block or block-list content, OpenAI otherwise: plain-text messages read the same in both)."""
    if style is not None and not isinstance(style, str):
        return style
    if style == "openai":
        return OpenAIAdapter()
    if style == "anthropic":
        return AnthropicAdapter()
    if style is not None:
        raise ValueError(f"style: expected 'openai', 'anthropic' or a MessageAdapter, got {style!r}")
    for m in messages:
        if not isinstance(m, Mapping):
            raise TypeError(f"messages must be dicts (or pass a MessageAdapter), got {type(m).__name__}")
        if m.get("tool_calls") or m.get("role") == "tool":
            return OpenAIAdapter()
        content = m.get("content")
        if isinstance(content, list) and any(
            isinstance(b, Mapping) and b.get("type") in ("tool_use", "tool_result", "image") for b in content
        ):
            return AnthropicAdapter()
    return OpenAIAdapter()


def message_tokens(adapter: MessageAdapter, messages: Sequence[Any], estimator: EstimatorLike = None) -> list[int]:
    """Estimated tokens per message (one estimator call for the whole list), framing included."""
    costs = resolve_estimator(estimator).count([adapter.cost_text(m) for m in messages])
    return [c + MESSAGE_FRAMING_TOKENS for c in costs]
