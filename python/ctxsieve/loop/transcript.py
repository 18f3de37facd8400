"""Plain-text renderings of messages, for summarisers and for search over dropped history.

>>> from ctxsieve.loop.adapters import OpenAIAdapter
>>> print(render(OpenAIAdapter(), [{"role": "user", "content": "hi"},
...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
...      "function": {"name": "search", "arguments": "{\\"q\\": \\"refund\\"}"}}]}]))
user: hi
assistant: [tool call c1] search({"q": "refund"})
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ctxsieve.loop.adapters import MessageAdapter


def _calls(message: Any) -> list[str]:
    """``name(arguments)`` for each tool call of an OpenAI or Anthropic assistant dict."""
    if not isinstance(message, Mapping):
        return []
    out = []
    for c in message.get("tool_calls") or ():
        if isinstance(c, Mapping):
            fn = c.get("function")
            fn = fn if isinstance(fn, Mapping) else {}  # malformed calls are still listed
            out.append(f"[tool call {c.get('id')}] {fn.get('name')}({fn.get('arguments', '')})")
    content = message.get("content")
    if isinstance(content, list):
        for b in content:
            if isinstance(b, Mapping) and b.get("type") == "tool_use":
                args = json.dumps(b.get("input", {}), ensure_ascii=False, default=str)
                out.append(f"[tool call {b.get('id')}] {b.get('name')}({args})")
    return out


def render_message(adapter: MessageAdapter, message: Any) -> str:
    role = adapter.role(message)
    results = adapter.tool_results(message)
    if results:
        parts = [f"[tool result {cid}] {text}" for cid, text in results]
        own = adapter.text(message)
        # Anthropic user messages may mix text with results; the text comes first in the output
        leftover = own
        for _, text in results:
            leftover = leftover.replace(text, "", 1)
        if leftover.strip():
            parts.insert(0, leftover.strip())
        return f"{role}: " + "\n".join(parts)
    pieces = [adapter.text(message)] if adapter.text(message) else []
    pieces.extend(_calls(message))
    return f"{role}: " + "\n".join(pieces)


def render(adapter: MessageAdapter, messages: Sequence[Any]) -> str:
    """One ``role: text`` block per message, tool calls and results labelled with their ids."""
    return "\n".join(render_message(adapter, m) for m in messages)
