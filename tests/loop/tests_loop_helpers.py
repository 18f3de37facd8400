"""Message builders for the loop tests (OpenAI and Anthropic shapes)."""

from __future__ import annotations

from typing import Any


def oa_call(*ids: str, text: str | None = None) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": f"tool_{i}", "arguments": '{"q": "x"}'}} for i in ids
        ],
    }


def oa_result(i: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": i, "content": text}


def an_call(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": "checking"}]
        + [{"type": "tool_use", "id": i, "name": f"tool_{i}", "input": {"q": i}} for i in ids],
    }


def an_results(*pairs: tuple[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": c} for i, c in pairs]}
