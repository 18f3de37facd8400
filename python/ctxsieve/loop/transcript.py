"""Plain-text renderings of messages, for summarisers and for search over dropped history.

Provider messages are rendered from the ``Message`` objects they read as; a framework's own
messages through their adapter's ``text`` and ``tool_results``.

>>> from ctxsieve.loop.codec import OpenAIAdapter
>>> print(render(OpenAIAdapter(), [{"role": "user", "content": "hi"},
...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
...      "function": {"name": "search", "arguments": "{\\"q\\": \\"refund\\"}"}}]}]))
user: hi
assistant: [tool call c1] search({"q": "refund"})
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxsieve.loop.adapters import MessageAdapter
from ctxsieve.messages import Message


def render_message(m: Message) -> str:
    """``role: text``, each tool call as ``[tool call id] name(arguments)`` and each result as
    ``[tool result id] text``."""
    if m.role == "tool":
        return "tool: " + "\n".join(f"[tool result {r.call_id}] {r.text}" for r in m.tool_results)
    pieces = [m.text] if m.text else []
    pieces += [f"[tool call {c.id}] {c.name}({c.arguments})" for c in m.tool_calls]
    return f"{m.role}: " + "\n".join(pieces)


def _render_native(adapter: MessageAdapter, message: Any) -> str:
    role = adapter.role(message)
    results = adapter.tool_results(message)
    if not results:
        return f"{role}: {adapter.text(message)}"
    parts = [f"[tool result {cid}] {text}" for cid, text in results]
    # a framework message may mix text with results; its own text comes first
    leftover = adapter.text(message)
    for _, text in results:
        leftover = leftover.replace(text, "", 1)
    if leftover.strip():
        parts.insert(0, leftover.strip())
    return f"{role}: " + "\n".join(parts)


def render(adapter: MessageAdapter, messages: Sequence[Any]) -> str:
    """One ``role: text`` block per message, tool calls and results labelled with their ids."""
    read = getattr(adapter, "messages", None)
    if callable(read):
        return "\n".join(render_message(m) for raw in messages for m in read(raw))
    return "\n".join(_render_native(adapter, m) for m in messages)
