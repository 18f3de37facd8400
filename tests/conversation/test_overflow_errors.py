"""The providers' "context too long" answers, recorded from their documentation and from public
reports of the real responses (each with its source), and what ``context_overflow`` reads in
them; and the answers that look alike but are not overflows (a rate limit, an output cap)."""

from __future__ import annotations

import json

import httpx
import pytest

from ctxsieve.conversation import Overflow, context_overflow, is_context_overflow

# https://github.com/earendil-works/pi/issues/102 (HTTP 400 of the Messages API, claude-opus-4-5)
ANTHROPIC_TOO_LONG = {
    "type": "error",
    "error": {"type": "invalid_request_error", "message": "prompt is too long: 219898 tokens > 200000 maximum"},
    "request_id": "req_011CVjxiYzEFcAQC4Fk87zw2",
}
# https://github.com/continuedev/continue/issues/6080: the input plus max_tokens over the window
ANTHROPIC_WITH_OUTPUT = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, "
        "decrease input length or `max_tokens` and try again",
    },
}
# https://github.com/daisuke-awaji/moca/issues/254: Anthropic's text through Amazon Bedrock
BEDROCK_TEXT = (
    "ValidationException: The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum"
)
# https://github.com/bytedance/deer-flow/issues/310 (openai.BadRequestError, tools counted apart)
OPENAI_RESULTED = {
    "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in "
    "202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the "
    "messages or functions.",
    "type": "invalid_request_error",
    "param": "messages",
    "code": "context_length_exceeded",
}
# https://github.com/Chanzhaoyu/chatgpt-web/issues/354: the completion counted in the request
OPENAI_REQUESTED = {
    "error": {
        "message": "This model's maximum context length is 4096 tokens. However, you requested 4130 tokens "
        "(3130 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}
# https://github.com/dyad-sh/dyad/issues/1672: the Responses API (a streamed error event), no numbers
OPENAI_RESPONSES = {
    "type": "error",
    "sequence_number": 2,
    "error": {
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
        "message": "Your input exceeds the context window of this model. Please adjust your input and try again.",
        "param": "input",
    },
}
# https://github.com/google-gemini/gemini-cli/issues/6678 (generateContent, gemini-2.5-pro)
GEMINI = {
    "error": {
        "code": 400,
        "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
        "errors": [
            {
                "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
                "domain": "global",
                "reason": "badRequest",
            }
        ],
        "status": "INVALID_ARGUMENT",
    }
}
# https://github.com/arkavo-org/arkavo-edge/issues/371: the count left out
GEMINI_NO_COUNT = {
    "error": {
        "code": 400,
        "message": "The input token count exceeds the maximum number of tokens allowed (1048576).",
        "status": "INVALID_ARGUMENT",
    }
}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (ANTHROPIC_TOO_LONG, ("anthropic", 219898, 200000)),
        (ANTHROPIC_WITH_OUTPUT, ("anthropic", 199759, 200000 - 8192)),
        (BEDROCK_TEXT, ("anthropic", 200049, 200000)),
        ({"error": OPENAI_RESULTED}, ("openai", 202868, 128000)),
        (OPENAI_REQUESTED, ("openai", 3130, 3096)),
        (OPENAI_RESPONSES, ("openai", None, None)),
        (GEMINI, ("gemini", 1200293, 1048576)),
        (GEMINI_NO_COUNT, ("gemini", None, 1048576)),
    ],
)
def test_every_recorded_shape_is_read_with_its_numbers(answer, expected):
    for form in (answer, json.dumps(answer) if not isinstance(answer, str) else answer):
        got = context_overflow(form)
        assert got is not None, form
        assert (got.provider, got.tokens, got.maximum) == expected
    if not isinstance(answer, str):
        assert context_overflow(json.dumps(answer).encode()) == context_overflow(answer)


# what looks alike and is not an overflow: cutting the prompt would not help
NOT_OVERFLOWS = [
    # a rate limit on tokens per minute (HTTP 429), https://github.com/openai/openai-python/issues/630
    {
        "error": {
            "message": "Request too large for gpt-4o in organization org-x on tokens per min (TPM): "
            "Limit 30000, Requested 50000.",
            "type": "tokens",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    },
    # max_tokens above the model's output limit: the output, not the input
    {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens",
        },
    },
    # Anthropic's 413: a byte limit on the request, not a token limit
    {"type": "error", "error": {"type": "request_too_large", "message": "Request exceeds the maximum size"}},
    {"error": {"code": 400, "message": "Invalid JSON payload received.", "status": "INVALID_ARGUMENT"}},
    "Internal server error",
    None,
    42,
]


@pytest.mark.parametrize("answer", NOT_OVERFLOWS)
def test_lookalikes_are_not_overflows(answer):
    assert context_overflow(answer) is None
    assert not is_context_overflow(answer)


class BadRequestError(Exception):
    """The attributes of openai-python's ``openai.BadRequestError`` (openai/_exceptions.py): the
    client passes the body's ``error`` object as ``body`` and copies its ``code``."""

    def __init__(self, message: str, body: dict):
        super().__init__(message)
        self.message = message
        self.body = body
        self.code = body.get("code")
        self.param = body.get("param")
        self.type = body.get("type")
        self.status_code = 400


class ClientError(Exception):
    """The attributes of google-genai's ``google.genai.errors.ClientError``."""

    def __init__(self, details: dict):
        err = details["error"]
        super().__init__(f"{err['code']} {err['status']}. {details}")
        self.code = err["code"]
        self.status = err["status"]
        self.message = err["message"]
        self.details = details


def test_sdk_exception_shapes_are_read_without_the_sdks():
    openai_exc = BadRequestError(f"Error code: 400 - {{'error': {OPENAI_RESULTED!r}}}", OPENAI_RESULTED)
    assert context_overflow(openai_exc) == Overflow("openai", OPENAI_RESULTED["message"], 202868, 128000)
    # the code alone says it, when the message carries no numbers
    bare = BadRequestError("Error code: 400", {"code": "context_length_exceeded", "message": "too long"})
    assert context_overflow(bare) is not None and context_overflow(bare).tokens is None
    gemini = context_overflow(ClientError(GEMINI))
    assert gemini is not None and (gemini.tokens, gemini.maximum) == (1200293, 1048576)
    # a framework that wraps the SDK's error keeps it as the cause
    try:
        try:
            raise openai_exc
        except BadRequestError as inner:
            raise RuntimeError("model call failed") from inner
    except RuntimeError as wrapped:
        assert context_overflow(wrapped).tokens == 202868


def test_httpx_status_error_is_read_from_its_response():
    request = httpx.Request("POST", "https://api.anthropic.com/v1/messages")
    response = httpx.Response(400, json=ANTHROPIC_TOO_LONG, request=request)
    with pytest.raises(httpx.HTTPStatusError) as info:
        response.raise_for_status()
    assert context_overflow(info.value).tokens == 219898


def test_the_anthropic_sdk_error_is_read():
    anthropic = pytest.importorskip("anthropic")
    request = httpx.Request("POST", "https://api.anthropic.com/v1/messages")
    response = httpx.Response(400, json=ANTHROPIC_TOO_LONG, request=request)
    exc = anthropic.BadRequestError("Error code: 400", response=response, body=ANTHROPIC_TOO_LONG)
    assert context_overflow(exc) == Overflow("anthropic", ANTHROPIC_TOO_LONG["error"]["message"], 219898, 200000)


def test_a_deep_or_huge_body_is_walked_boundedly():
    body: dict = {"error": {"message": "fine"}}
    for _ in range(50):
        body = {"error": body}
    assert context_overflow(body) is None
    assert context_overflow({"errors": [{"message": "x"}] * 10_000}) is None
