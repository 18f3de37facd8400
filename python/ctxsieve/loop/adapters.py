"""Message adapters: how the loop helpers see the messages of the caller's list.

The helpers ask an adapter for a message's role, its text, the tool calls it makes, the tool
results it carries (an Anthropic user message may carry several), and for copies with results
replaced or with a summary; adapters never mutate a message. Provider messages (OpenAI Chat,
Anthropic, Responses dicts or SDK objects, and ``ctxsieve.messages.Message``) go through
``MessagesAdapter`` (``ctxsieve.loop.codec``), which reads them with the codecs of
``ctxsieve.messages``; ``OpenAIAdapter`` and ``AnthropicAdapter`` are that adapter, writing new
messages in their provider's shape. Implement ``MessageAdapter`` only for a framework's own
message type (the LangChain and PydanticAI integrations do).

>>> a = OpenAIAdapter()
>>> call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
...         "function": {"name": "ls", "arguments": "{}"}}]}
>>> a.tool_call_ids(call), a.tool_result_ids({"role": "tool", "tool_call_id": "c1", "content": "a b"})
(['c1'], ['c1'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ctxsieve.admission.limits import DEFAULT_IMAGE_TOKENS
from ctxsieve.loop.codec import AnthropicAdapter, MessagesAdapter, OpenAIAdapter
from ctxsieve.messages import Message, sent_texts
from ctxsieve.messages.summary import parse_summary, summary_header
from ctxsieve.messages.texts import shape_of
from ctxsieve.tokenizers import EstimatorLike, resolve_estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

# the summary marker is ctxsieve.messages.summary's; the integrations import it from here
__all__ = [
    "MESSAGE_FRAMING_TOKENS",
    "AnthropicAdapter",
    "MessageAdapter",
    "MessagesAdapter",
    "OpenAIAdapter",
    "adapter_for",
    "message_tokens",
    "parse_summary",
    "summary_header",
]


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


def adapter_for(messages: Sequence[Any], style: str | MessageAdapter | None = None) -> MessageAdapter:
    """The adapter to use: ``style`` when given (an adapter, or ``"openai"``, ``"anthropic"``,
    ``"responses"``, ``"model"``: the shape new messages are written in), else a
    ``MessagesAdapter`` writing in the shape of the first message that is not plain OpenAI Chat
    (plain-text messages read the same in every shape). Provider messages are read here, so a
    malformed one is a ``MessageError`` naming ``messages[i]`` before any helper acts."""
    if style is not None and not isinstance(style, str):
        adapter: Any = style
    elif style is not None:
        adapter = _BY_STYLE[style]() if style in _BY_STYLE else MessagesAdapter(style)
    else:
        shapes = (shape_of(m, f"messages[{i}]") for i, m in enumerate(messages))
        found = next((k for k in shapes if k != "openai_chat"), "openai_chat")
        adapter = _BY_SHAPE[found]()
    if isinstance(adapter, MessagesAdapter):
        adapter.read_all(messages)
    return adapter  # type: ignore[no-any-return]


_BY_STYLE: dict[str, type[MessagesAdapter]] = {"openai": OpenAIAdapter, "anthropic": AnthropicAdapter}
_BY_SHAPE: dict[str, Any] = {
    "openai_chat": OpenAIAdapter,
    "anthropic": AnthropicAdapter,
    "responses": lambda: MessagesAdapter("responses"),
    "model": lambda: MessagesAdapter("model"),
}


def message_tokens(
    adapter: MessageAdapter,
    messages: Sequence[Any],
    estimator: EstimatorLike = None,
    image_tokens: int = DEFAULT_IMAGE_TOKENS,
) -> list[int]:
    """Estimated tokens per message, counted as admission counts them (one estimator call for
    the whole list): per ``Message`` it reads as, ``MESSAGE_FRAMING_TOKENS`` + the estimate of
    everything it sends as text (``ctxsieve.messages.sent_texts``) + ``image_tokens`` per image.
    A framework adapter without ``messages()`` is counted by its ``cost_text``."""
    est = resolve_estimator(estimator)
    read = getattr(adapter, "messages", None)
    if not callable(read):
        return [c + MESSAGE_FRAMING_TOKENS for c in est.count([adapter.cost_text(m) for m in messages])]
    per: list[list[Message]] = [read(m) for m in messages]
    texts = [sent_texts(m) for msgs in per for m in msgs]
    flat = iter(est.count([t for ts in texts for t in ts]))
    sizes = iter(texts)
    out = []
    for msgs in per:
        total = 0
        for m in msgs:
            total += MESSAGE_FRAMING_TOKENS + sum(next(flat) for _ in next(sizes)) + image_tokens * len(m.images)
        out.append(total)
    return out
