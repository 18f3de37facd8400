"""Scripted agent turns for the conversation tests: OpenAI-shaped replies with tool calls."""

from __future__ import annotations

import json
from typing import Any

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look up an order.",
            "parameters": {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]},
        },
    }
]


def tool_reply(turn: int, n_calls: int) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{turn}_{k}",
            "type": "function",
            "function": {"name": "lookup", "arguments": json.dumps({"order": f"A-{turn}-{k}"})},
        }
        for k in range(n_calls)
    ]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def text_reply(turn: int) -> dict[str, Any]:
    return {"role": "assistant", "content": f"Turn {turn}: the order shipped on day {turn}."}


def run_turn(conv: Any, turn: int, *, calls: int = 2, result_chars: int = 200, model: str | None = None) -> list[Any]:
    """One user turn: a call that asks for ``calls`` tools, their results, a final answer.
    Returns the prepared calls."""
    conv.add_user(f"Where is my order number {turn}? Please check it.")
    prepared = [conv.prepare(model)]
    conv.record_response(tool_reply(turn, calls))
    for k in range(calls):
        conv.add_tool_result(f"call_{turn}_{k}", f"order A-{turn}-{k}: " + "shipped " * (result_chars // 8))
    prepared.append(conv.prepare(model))
    conv.record_response(text_reply(turn))
    return prepared


def orphans(body_messages: list[dict[str, Any]]) -> list[str]:
    """Tool-call ids without a result and results without a call, in an OpenAI Chat body."""
    called: list[str] = []
    answered: list[str] = []
    problems = []
    for m in body_messages:
        for c in m.get("tool_calls") or ():
            called.append(c["id"])
        if m.get("role") == "tool":
            if m["tool_call_id"] not in called:
                problems.append(f"result without call {m['tool_call_id']}")
            answered.append(m["tool_call_id"])
    problems += [f"call without result {c}" for c in called if c not in answered]
    return problems
