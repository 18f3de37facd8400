"""Recognising a provider's "context too long" answer, without importing any provider SDK.

What is recognised (the shapes, recorded in tests/conversation/test_overflow_errors.py with the
reports they come from; docs/providers.md lists the sources):

* Anthropic, HTTP 400 ``invalid_request_error``: ``prompt is too long: 208310 tokens > 200000
  maximum`` (the input alone), and ``input length and `max_tokens` exceed context limit: 199759
  + 8192 > 200000`` (input plus the requested output: the input may then hold ``200000 -
  8192``). Through Amazon Bedrock the same text comes inside a ``ValidationException``.
* OpenAI (and the OpenAI-compatible APIs, DeepSeek's among them), HTTP 400 with
  ``code: context_length_exceeded``: ``This model's maximum context length is 128000 tokens.
  However, your messages resulted in 130532 tokens`` (``(... in the messages, ... in the
  functions)`` may follow), or ``However, you requested 4268 tokens (4012 in the messages, 256 in
  the completion)`` (the input may then hold ``M - 256``). The Responses API says ``Your input
  exceeds the context window of this model`` with the same code and no numbers.
* Gemini, HTTP 400 ``INVALID_ARGUMENT``: ``The input token count (1200293) exceeds the maximum
  number of tokens allowed (1048576).`` (the count is sometimes left out).

Each may arrive as the HTTP body (a dict, a JSON ``str`` or ``bytes``), the provider's error
message, or an exception: the SDKs' ``BadRequestError`` (OpenAI's ``.code`` and ``.body``, the
``error`` object; Anthropic's ``.body``, the whole body), google-genai's ``ClientError``
(``.status``, ``.message``, ``.details``), PydanticAI's ``ModelHTTPError`` (``.body``),
``httpx.HTTPStatusError`` (``.response``), and any exception whose text carries the message
(LiteLLM's wrappers, a framework that re-raises). Not an overflow: a rate limit ("Request too
large ... tokens per min", code ``rate_limit_exceeded``), ``max_tokens`` above the model's output
limit, and Anthropic's 413 ``request_too_large`` (a byte limit, not a token limit).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

OVERFLOW_CODES = frozenset({"context_length_exceeded"})
_MAX_DEPTH = 6  # bodies nest an error object or two; a deeper walk is not a provider body

_ANTHROPIC = re.compile(r"prompt is too long:\s*(\d+)\s*tokens?\s*>\s*(\d+)\s*maximum", re.I)
_ANTHROPIC_OUTPUT = re.compile(
    r"input length and `?max_tokens`? exceed context limit:\s*(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)", re.I
)
_OPENAI_MAX = re.compile(r"maximum context length is\s*(\d+)\s*tokens", re.I)
_OPENAI_RESULTED = re.compile(r"your messages resulted in\s*(\d+)\s*tokens", re.I)
_OPENAI_REQUESTED = re.compile(r"you requested (?:about )?(\d+)\s*tokens", re.I)
_OPENAI_COMPLETION = re.compile(r"(\d+)\s*(?:in|for) the completion", re.I)
_OPENAI_WINDOW = re.compile(r"input exceeds the context window of this model", re.I)
_GEMINI = re.compile(
    r"input token count(?:\s*\((\d+)\))?\s*exceeds the maximum number of tokens allowed(?:\s*\((\d+)\))?", re.I
)


@dataclass(frozen=True)
class Overflow:
    """A recognised "context too long" answer: whose shape it has (``anthropic``, ``openai``,
    ``gemini``, ``unknown``), its message, the input tokens the provider counted and the
    largest input it accepts (each None when the answer does not say)."""

    provider: str
    message: str
    tokens: int | None
    maximum: int | None


def _texts(value: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """``("message", text)`` and ``("code", value)`` pairs found in a body, an exception or a text."""
    if depth > _MAX_DEPTH or value is None:
        return
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            parsed = json.loads(value) if value.lstrip()[:1] in ("{", "[") else None
        except ValueError:
            parsed = None
        if isinstance(parsed, (dict, list)):
            yield from _texts(parsed, depth + 1)
        yield "message", value
        return
    if isinstance(value, Mapping):
        for key in ("code", "type", "status"):
            if isinstance(value.get(key), str):
                yield "code", value[key]
        if isinstance(value.get("message"), str):
            yield from _texts(value["message"], depth + 1)
        for key in ("error", "errors", "details", "body"):
            if key in value:
                yield from _texts(value[key], depth + 1)
        return
    if isinstance(value, Sequence):
        for v in list(value)[:16]:
            yield from _texts(v, depth + 1)
        return
    if isinstance(value, BaseException):
        for attr in ("code", "status", "type"):
            got = getattr(value, attr, None)
            if isinstance(got, str):
                yield "code", got
        for attr in ("body", "details", "message"):
            got = getattr(value, attr, None)
            if got is not None:
                yield from _texts(got, depth + 1)
        response = getattr(value, "response", None)
        text = getattr(response, "text", None)
        if isinstance(text, str):  # httpx.Response (a requests.Response too)
            yield from _texts(text, depth + 1)
        yield "message", str(value)
        cause = value.__cause__ or value.__context__
        if cause is not None and cause is not value:
            yield from _texts(cause, depth + 1)


def _numbers(message: str) -> Overflow | None:
    if m := _ANTHROPIC.search(message):
        return Overflow("anthropic", message, int(m[1]), int(m[2]))
    if m := _ANTHROPIC_OUTPUT.search(message):
        return Overflow("anthropic", message, int(m[1]), int(m[3]) - int(m[2]))
    if m := _GEMINI.search(message):
        return Overflow("gemini", message, int(m[1]) if m[1] else None, int(m[2]) if m[2] else None)
    if m := _OPENAI_MAX.search(message):
        window = int(m[1])
        if r := _OPENAI_RESULTED.search(message):
            return Overflow("openai", message, int(r[1]), window)
        if r := _OPENAI_REQUESTED.search(message):
            c = _OPENAI_COMPLETION.search(message)
            completion = int(c[1]) if c else 0
            return Overflow("openai", message, int(r[1]) - completion, window - completion)
        return Overflow("openai", message, None, window)
    if _OPENAI_WINDOW.search(message):
        return Overflow("openai", message, None, None)
    return None


def context_overflow(value: Any) -> Overflow | None:
    """What a provider's answer says about a context overflow, or None when it is something
    else (see the module doc for the shapes).

    >>> body = {"type": "error", "error": {"type": "invalid_request_error",
    ...         "message": "prompt is too long: 208310 tokens > 200000 maximum"}}
    >>> got = context_overflow(body)
    >>> got.provider, got.tokens, got.maximum
    ('anthropic', 208310, 200000)
    >>> context_overflow({"error": {"code": "rate_limit_exceeded", "message": "Request too large"}}) is None
    True
    """
    coded = False
    messages: list[str] = []
    for kind, v in _texts(value):
        if kind == "code":
            coded = coded or v in OVERFLOW_CODES
        elif v not in messages:
            messages.append(v)
    for message in messages:
        got = _numbers(message)
        if got is not None:
            return got
    if coded:
        return Overflow("openai", messages[0] if messages else "", None, None)
    return None


def is_context_overflow(value: Any) -> bool:
    """True when ``value`` (an exception, an HTTP error body as a dict, ``str`` or ``bytes``, or
    the error's message) is a provider's "context too long" answer.

    >>> is_context_overflow('{"error": {"message": "The input token count (1200293) exceeds the '
    ...                     'maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}')
    True
    >>> is_context_overflow(ValueError("max_tokens: 100000 > 64000, the maximum allowed output tokens"))
    False
    """
    return context_overflow(value) is not None


__all__ = ["OVERFLOW_CODES", "Overflow", "context_overflow", "is_context_overflow"]
