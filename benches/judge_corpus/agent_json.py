"""JSON that agent loops pass around: chat transcripts whose tool calls carry JSON inside JSON
strings, server-sent event streams, JSON escaped to ASCII, minified deep trees, identifier
listings, and the AWS CLI's real example outputs."""

from __future__ import annotations

import json
import random

from .common import fill, grow_json, hexid, uuid4
from .phrases import NAMES, TICKETS
from .sources import aws_outputs, english_sentences
from .tool_json import snippet


def gen_agent_transcript(rng: random.Random, target: int) -> tuple[str, str]:
    """An OpenAI-style messages array: tool calls whose ``arguments`` and tool results whose
    ``content`` are JSON dumped into a JSON string (escaped quotes, ``\\n``, ``\\u`` escapes)."""

    def msg(rng: random.Random, i: int) -> object:
        k = i % 3
        if k == 0:
            return {"role": "user", "content": snippet(rng)}
        call_id = "call_" + "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(24)
        )
        if k == 1:
            args = {
                "path": f"/workspace/{rng.choice(['src', 'tests', 'docs'])}/{hexid(rng, 6)}.py",
                "pattern": rng.choice(["def \\w+\\(", "TODO|FIXME", "import (os|sys)"]),
                "max_results": rng.randint(5, 50),
            }
            return {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": rng.choice(["grep", "read_file", "search"]),
                            "arguments": json.dumps(args),
                        },
                    }
                ],
            }
        result = {
            "matches": [
                {"line": rng.randint(1, 2000), "text": rng.choice(english_sentences())[:90], "name": rng.choice(NAMES)}
                for _ in range(rng.randint(1, 8))
            ]
        }
        return {
            "role": "tool",
            "tool_call_id": call_id,
            "content": json.dumps(result, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2])),
        }

    body = {
        "model": rng.choice(["gpt-4o-2024-08-06", "claude-sonnet-4-5", "deepseek-chat"]),
        "messages": grow_json(rng, target, msg),
    }
    return "agent-transcript", json.dumps(body, ensure_ascii=False, indent=rng.choice([None, 2]))


def gen_sse_stream(rng: random.Random, target: int) -> tuple[str, str]:
    """A streamed completion as the raw event stream a proxy logs."""
    sid = "chatcmpl-" + hexid(rng, 29)

    def event(rng: random.Random) -> str:
        words = snippet(rng).split(" ")
        chunk = " " + " ".join(words[: rng.randint(1, 3)])
        data = {
            "id": sid,
            "object": "chat.completion.chunk",
            "created": rng.randint(1_700_000_000, 1_760_000_000),
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "delta": {"content": chunk}, "finish_reason": None}],
        }
        return "data: " + json.dumps(data, ensure_ascii=rng.random() < 0.5, separators=(",", ":")) + "\n"

    return "sse", fill(rng, target, event) + "\ndata: [DONE]\n"


def gen_json_ascii_escaped(rng: random.Random, target: int) -> tuple[str, str]:
    """Tool results dumped with ``ensure_ascii=True`` (Python's default): every non-ASCII
    character, CJK and emoji included, becomes ``\\uXXXX`` (emoji as surrogate pairs)."""

    def item(rng: random.Random, i: int) -> object:
        lang = rng.choice(["zh", "ja", "ru", "ar", "es", "ko"])
        return {
            "id": i,
            "lang": lang,
            "text": rng.choice(TICKETS[lang]).split("{")[0],
            "author": rng.choice(NAMES),
            "emoji": rng.choice(["👍", "🎉", "🔥", "✅"]),
        }

    return "json-ascii", json.dumps(
        {"items": grow_json(rng, target, item)}, ensure_ascii=True, indent=rng.choice([None, 2])
    )


def gen_json_minified_deep(rng: random.Random, target: int) -> tuple[str, str]:
    """Minified, deeply nested configuration/state trees (no whitespace at all)."""
    keys = [
        "spec",
        "template",
        "metadata",
        "labels",
        "containers",
        "env",
        "resources",
        "limits",
        "a",
        "b",
        "x",
        "_id",
        "$ref",
        "@type",
        "v",
        "cfg",
        "ttl",
        "node",
    ]

    def tree(rng: random.Random, depth: int) -> object:
        if depth == 0 or rng.random() < 0.2:
            return rng.choice(
                [rng.randint(-9, 10**6), rng.random(), True, None, hexid(rng, rng.randint(4, 12)), "", [], {}]
            )
        if rng.random() < 0.3:
            return [tree(rng, depth - 1) for _ in range(rng.randint(1, 4))]
        return {
            rng.choice(keys) + (str(rng.randint(0, 9)) if rng.random() < 0.3 else ""): tree(rng, depth - 1)
            for _ in range(rng.randint(1, 4))
        }

    items = grow_json(rng, target, lambda r, i: tree(r, rng.randint(5, 11)), indent=None)
    return "json-minified", json.dumps(items, separators=(",", ":"))


def gen_aws_cli(rng: random.Random, target: int) -> tuple[str, str]:
    labels: list[str] = []

    def piece(rng: random.Random) -> str:
        label, out = aws_outputs(rng)
        labels.append(label)
        return out

    text = fill(rng, target, piece, sep="\n\n")
    return labels[0], text


def gen_id_lists(rng: random.Random, target: int) -> tuple[str, str]:
    """Listings of identifiers: UUIDs, SHA-256, git object names, ULIDs, S3 ETags."""
    crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

    def row(rng: random.Random, i: int) -> object:
        return {
            "uuid": uuid4(rng),
            "sha256": hexid(rng, 64),
            "commit": hexid(rng, 40),
            "ulid": "".join(rng.choice(crockford) for _ in range(26)),
            "etag": '"' + hexid(rng, 32) + "-" + str(rng.randint(1, 99)) + '"',
        }

    return "ids", json.dumps(grow_json(rng, target, row, indent=None), indent=rng.choice([None, 1]))
