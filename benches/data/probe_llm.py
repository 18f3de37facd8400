"""LLM API payloads as agents relay them, seeded (probe corpus): OpenAI chat completions (tool
calls with JSON-string arguments, logprobs with every token's bytes and alternatives, usage
details), Anthropic messages (thinking blocks with signatures, tool_use, cache usage) and
Anthropic SSE streams (text and input_json deltas). Shapes follow the public API references."""

from __future__ import annotations

import json
import random

from probe_api import dump
from probe_common import Sources
from probe_ids import PEOPLE, TITLES, b62, epoch, hexs, paragraph, sentence


def openai_response(rng: random.Random, src: Sources) -> tuple[str, str]:
    msg: dict[str, object] = {
        "role": "assistant",
        "content": None if rng.random() < 0.5 else paragraph(rng, 2),
        "refusal": None,
        "annotations": [],
    }
    if msg["content"] is None:
        msg["tool_calls"] = [
            {
                "id": "call_" + b62(rng, 24),
                "type": "function",
                "function": {
                    "name": rng.choice(["search_files", "run_sql", "get_weather"]),
                    "arguments": json.dumps(
                        {"query": sentence(rng, 3, 6), "limit": rng.randint(1, 50), "path": "/srv/app/src"}
                    ),
                },
            }
            for _ in range(rng.randint(1, 4))
        ]
    choice: dict[str, object] = {
        "index": 0,
        "message": msg,
        "logprobs": None,
        "finish_reason": "tool_calls" if msg["content"] is None else "stop",
    }
    if rng.random() < 0.6:  # logprobs: every token with its bytes and the top alternatives
        toks = []
        for w in sentence(rng, 15, 60).split():
            w = " " + w
            alts = [{"token": w, "logprob": -(rng.random() ** 4) * 3, "bytes": list(w.encode())}]
            alts += [
                {
                    "token": " " + rng.choice(PEOPLE)[:5],
                    "logprob": -rng.uniform(2, 18),
                    "bytes": list((" " + rng.choice(PEOPLE)[:5]).encode()),
                }
                for _ in range(rng.randint(0, 4))
            ]
            toks.append({**alts[0], "top_logprobs": alts})
        choice["logprobs"] = {"content": toks, "refusal": None}
    prompt = rng.randint(20, 120_000)
    body = {
        "id": "chatcmpl-" + b62(rng, 29),
        "object": "chat.completion",
        "created": epoch(rng),
        "model": rng.choice(["gpt-4o-2024-08-06", "gpt-4.1-mini-2025-04-14", "o3-2025-04-16"]),
        "choices": [choice],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": rng.randint(1, 4000),
            "total_tokens": prompt + 4000,
            "prompt_tokens_details": {"cached_tokens": prompt // 128 * 64, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": rng.randint(0, 2000),
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_" + hexs(rng, 10),
    }
    return dump(rng, body), "openai:chat.completion" + (":logprobs" if choice["logprobs"] else "")


def anthropic_stream(rng: random.Random, src: Sources) -> tuple[str, str]:
    mid = "msg_01" + b62(rng, 22)
    usage = {
        "input_tokens": rng.randint(5, 150_000),
        "cache_creation_input_tokens": rng.choice([0, 2048, 31_337]),
        "cache_read_input_tokens": rng.randint(0, 90_000),
        "output_tokens": 1,
    }
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-20250514",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
            },
        )
    ]
    events.append(
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        )
    )
    for w in paragraph(rng, rng.randint(2, 10)).split(" "):
        events.append(
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w + " "}},
            )
        )
    if rng.random() < 0.5:
        tid = "toolu_01" + b62(rng, 22)
        events.append(
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 1,
                    "content_block": {"type": "tool_use", "id": tid, "name": "bash", "input": {}},
                },
            )
        )
        args = json.dumps({"command": f"grep -rn '{rng.choice(TITLES)[:12]}' src/ | head -n {rng.randint(5, 50)}"})
        for k in range(0, len(args), 7):
            events.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 1,
                        "delta": {"type": "input_json_delta", "partial_json": args[k : k + 7]},
                    },
                )
            )
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": rng.randint(10, 4000)},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events), "anthropic:sse"


def anthropic_message(rng: random.Random, src: Sources) -> tuple[str, str]:
    content: list[dict[str, object]] = [
        {"type": "thinking", "thinking": paragraph(rng, 2), "signature": b62(rng, rng.choice([88, 344, 600])) + "=="}
    ]
    content.append({"type": "text", "text": paragraph(rng, 3)})
    for _ in range(rng.randint(1, 3)):
        content.append(
            {
                "type": "tool_use",
                "id": "toolu_01" + b62(rng, 22),
                "name": "str_replace_based_edit_tool",
                "input": {
                    "command": "view",
                    "path": f"/repo/src/{rng.choice(['app', 'lib', 'core'])}/{b62(rng, 6).lower()}.py",
                    "view_range": [1, rng.randint(20, 400)],
                },
            }
        )
    body = {
        "id": "msg_01" + b62(rng, 22),
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-1-20250805",
        "content": content,
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": rng.randint(4, 9000),
            "cache_creation_input_tokens": rng.randint(0, 20_000),
            "cache_read_input_tokens": rng.randint(0, 180_000),
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": rng.randint(0, 9000)},
            "output_tokens": rng.randint(1, 8000),
            "service_tier": "standard",
        },
    }
    return dump(rng, body), "anthropic:message"
