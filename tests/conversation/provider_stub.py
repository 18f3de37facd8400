"""A provider on loopback for the overflow tests: a real HTTP server (``http.server``) that
answers the Anthropic Messages and the OpenAI Chat Completions paths.

It counts a request's input the way a real tokenizer would count more than the conversation's
``bytes/3`` estimate (``ceil(len(json of system, tools and messages) / CHARS_PER_TOKEN)``) and
refuses a request over ``maximum`` with that provider's documented 400 body
(tests/conversation/test_overflow_errors.py has the recorded originals). ``refuse`` scripts
refusals regardless of size (``refuse=1``: the first request only). Every request body is kept,
with its count, in ``requests``.
"""

from __future__ import annotations

import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHARS_PER_TOKEN = 2.0


def counted(body: dict[str, Any]) -> int:
    parts = [body.get("system"), body.get("tools"), body.get("messages")]
    return math.ceil(len(json.dumps(parts, separators=(",", ":"))) / CHARS_PER_TOKEN)


def anthropic_error(tokens: int, maximum: int) -> dict[str, Any]:
    message = f"prompt is too long: {tokens} tokens > {maximum} maximum"
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}, "request_id": "req_stub"}


def openai_error(tokens: int, maximum: int) -> dict[str, Any]:
    message = (
        f"This model's maximum context length is {maximum} tokens. However, your messages resulted in "
        f"{tokens} tokens. Please reduce the length of the messages."
    )
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


class ProviderStub:
    """``with ProviderStub(maximum=...) as stub: stub.url``; see the module doc."""

    def __init__(self, maximum: int, refuse: int = 0, with_counts: bool = True):
        self.maximum = maximum
        self.refuse = refuse
        self.with_counts = with_counts
        self.requests: list[tuple[str, dict[str, Any], int, int]] = []  # (path, body, count, status)
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet test output
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, reply = stub.answer(self.path, body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        n = counted(body)
        over = n > self.maximum or self.refuse > 0
        if over and self.refuse > 0:
            self.refuse -= 1
        anthropic = path.endswith("/messages")
        if over:
            self.requests.append((path, body, n, 400))
            if not self.with_counts:
                return 400, {
                    "error": {
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                        "message": "Your input exceeds the context window of this model. "
                        "Please adjust your input and try again.",
                    }
                }
            return 400, (anthropic_error if anthropic else openai_error)(n, self.maximum)
        self.requests.append((path, body, n, 200))
        if anthropic:
            return 200, {
                "id": "msg_stub",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": [{"type": "text", "text": "Noted."}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": n, "output_tokens": 2},
            }
        return 200, {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Noted."}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": n, "completion_tokens": 2, "total_tokens": n + 2},
        }

    def __enter__(self) -> ProviderStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
