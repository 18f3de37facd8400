"""Recorded provider payloads, written from each provider's documentation (docs/providers.md has
the page and section of every rule they exercise). Plain data: the tests read them as a
provider's response or usage would arrive."""

from __future__ import annotations

from typing import Any

# ---- usage payloads -------------------------------------------------------------------------

# Anthropic, prompt caching, "Tracking cache performance": input_tokens is what follows the last
# breakpoint; reads and writes are reported apart. A first call writes the prefix ...
ANTHROPIC_USAGE_WRITE: dict[str, Any] = {
    "input_tokens": 21,
    "cache_creation_input_tokens": 188_086,
    "cache_read_input_tokens": 0,
    "output_tokens": 393,
}
# ... and the next one reads it.
ANTHROPIC_USAGE_READ: dict[str, Any] = {
    "input_tokens": 50,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 100_000,
    "output_tokens": 503,
}

# OpenAI Chat Completions, prompt caching, "Requirements": cached_tokens is part of prompt_tokens.
OPENAI_CHAT_USAGE: dict[str, Any] = {
    "prompt_tokens": 2006,
    "completion_tokens": 300,
    "total_tokens": 2306,
    "prompt_tokens_details": {"cached_tokens": 1920},
    "completion_tokens_details": {"reasoning_tokens": 0, "accepted_prediction_tokens": 0},
}

# OpenAI Responses (response object, ``usage``): the same numbers under the Responses names.
RESPONSES_USAGE: dict[str, Any] = {
    "input_tokens": 2006,
    "input_tokens_details": {"cached_tokens": 1920},
    "output_tokens": 300,
    "output_tokens_details": {"reasoning_tokens": 64},
    "total_tokens": 2306,
}

# Gemini generateContent, ``usageMetadata``: cachedContentTokenCount is part of promptTokenCount;
# thinking models report their thoughts apart from the candidates.
GEMINI_USAGE_METADATA: dict[str, Any] = {
    "promptTokenCount": 2150,
    "candidatesTokenCount": 100,
    "thoughtsTokenCount": 20,
    "totalTokenCount": 2270,
    "cachedContentTokenCount": 2048,
}

# DeepSeek, context caching: prompt_tokens = prompt_cache_hit_tokens + prompt_cache_miss_tokens.
DEEPSEEK_USAGE: dict[str, Any] = {
    "prompt_tokens": 1200,
    "completion_tokens": 50,
    "total_tokens": 1250,
    "prompt_cache_hit_tokens": 1024,
    "prompt_cache_miss_tokens": 176,
    "completion_tokens_details": {"reasoning_tokens": 30},
}

# ---- responses with reasoning ----------------------------------------------------------------

SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" + "x" * 40


def anthropic_thinking_tool_use(call_id: str, thought: str) -> dict[str, Any]:
    """Anthropic extended thinking with tool use: a thinking block with its signature, then the
    tool_use block (extended thinking, "Preserving thinking blocks")."""
    return {
        "id": f"msg_{call_id}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "thinking", "thinking": thought, "signature": SIGNATURE + call_id},
            {"type": "tool_use", "id": call_id, "name": "get_weather", "input": {"location": "Paris"}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 400, "output_tokens": 60},
    }


def anthropic_thinking_answer(text: str, thought: str, *, redacted: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = (
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}
        if redacted
        else {"type": "thinking", "thinking": thought, "signature": SIGNATURE + "final"}
    )
    return {
        "type": "message",
        "role": "assistant",
        "content": [block, {"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 500, "output_tokens": 40},
    }


def responses_reasoning_call(call_id: str, reasoning_id: str) -> dict[str, Any]:
    """A Responses response whose output is a reasoning item (encrypted, store=false) and the
    function call it led to (reasoning items cookbook)."""
    return {
        "id": f"resp_{call_id}",
        "object": "response",
        "output": [
            {
                "type": "reasoning",
                "id": reasoning_id,
                "summary": [{"type": "summary_text", "text": "Need the weather first."}],
                "encrypted_content": "gAAAAABo" + reasoning_id * 8,
            },
            {
                "type": "function_call",
                "id": f"fc_{call_id}",
                "call_id": call_id,
                "name": "get_weather",
                "arguments": '{"location":"Paris"}',
            },
        ],
        "usage": RESPONSES_USAGE,
    }


def deepseek_message(content: str | None, thought: str, *, call_id: str | None = None) -> dict[str, Any]:
    """A DeepSeek thinking-mode chat completion: reasoning_content next to content and tool_calls
    (thinking mode, "Input and Output Parameters")."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "reasoning_content": thought}
    if call_id is not None:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"location":"Paris"}'},
            }
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "deepseek-v4-pro",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if call_id else "stop"}],
        "usage": DEEPSEEK_USAGE,
    }
