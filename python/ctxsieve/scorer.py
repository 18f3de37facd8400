"""LLMScorer: rescore the strongest candidates with a model, in one batched call.

The model sees the query and up to ``top_n`` numbered passages and answers with a JSON array of
relevance scores from 0 to 10. Whatever goes wrong (the call raises, takes longer than
``timeout``, or answers something that is not exactly that array) raises ``ScorerError`` with a
short reason; the engine then keeps the calibrated scores and records
``scorer_fallback:<reason>``. ``openai_compatible`` builds a ``complete`` callable for any
OpenAI-compatible chat endpoint (extra ``http``).

>>> scorer = LLMScorer(lambda prompt: "[10, 0]")
>>> scorer.parse("Scores: [7, 2.5]", 2)
[0.7, 0.25]
"""

from __future__ import annotations

import inspect
import json
import math
import re
from collections.abc import Awaitable, Callable
from typing import Any

from ctxsieve.errors import ConfigError, ContextError, MissingExtraError
from ctxsieve.stages.score import ScorerError
from ctxsieve.workers import Late, call_in_thread, within

Complete = Callable[[str], "str | Awaitable[str]"]

_ARRAY = re.compile(r"\[[^\[\]]*\]")

PROMPT = """Rate how useful each passage is for answering the query, from 0 (useless) to 10 \
(answers it). Reply with only a JSON array of {n} numbers, one per passage, in order.

Query: {query}

{passages}"""


class LLMScorer:
    """Blend ``alpha`` of the model's score (0-10 scaled to 0-1) into the calibrated score of
    the ``top_n`` best non-pinned candidates; passages are cut to ``max_chars``."""

    def __init__(
        self, complete: Complete, *, top_n: int = 20, alpha: float = 0.5, timeout: float = 10.0, max_chars: int = 1500
    ):
        if not callable(complete):
            raise ConfigError(f"LLMScorer: complete must be callable, got {type(complete).__name__}")
        if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n <= 0:
            raise ConfigError(f"LLMScorer.top_n: must be a positive int, got {top_n!r}")
        if not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
            raise ConfigError(f"LLMScorer.alpha: must be in [0, 1], got {alpha!r}")
        if not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ConfigError(f"LLMScorer.timeout: must be > 0 seconds, got {timeout!r}")
        self.complete = complete
        self.top_n = top_n
        self.alpha = float(alpha)
        self.timeout = float(timeout)
        self.max_chars = max_chars

    def prompt(self, query: str, texts: list[str]) -> str:
        passages = "\n\n".join(f"[{i + 1}] {t[: self.max_chars]}" for i, t in enumerate(texts))
        return PROMPT.format(n=len(texts), query=query, passages=passages)

    def parse(self, reply: Any, n: int) -> list[float]:
        """The scores in ``reply`` scaled to [0, 1]; ``ScorerError`` when there are not exactly
        ``n`` numbers between 0 and 10 in one JSON array."""
        if not isinstance(reply, str):
            raise ScorerError("unparseable")
        first: int | None = None  # the length of the first array of numbers, for the error
        for match in _ARRAY.finditer(reply):
            try:
                values = json.loads(match.group(0))
            except ValueError:
                continue
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                continue
            if len(values) != n:
                # a passage number the model echoes ("[1] is best: [9, 3]") is not the answer
                first = len(values) if first is None else first
                continue
            if not all(math.isfinite(v) and 0 <= v <= 10 for v in values):
                raise ScorerError("out_of_range")
            return [v / 10 for v in values]
        raise ScorerError("unparseable" if first is None else f"wrong_count:{first}/{n}")

    async def score(self, query: str, texts: list[str]) -> list[float]:
        """One model call for all ``texts``; raises ``ScorerError`` on any failure."""
        prompt = self.prompt(query, texts)

        async def call() -> Any:
            if inspect.iscoroutinefunction(self.complete):
                return await self.complete(prompt)
            # a daemon thread of its own, not asyncio.to_thread: a call that never returns
            # must neither hold build_sync past the timeout nor take a shared pool's worker
            result = await call_in_thread(self.complete, prompt, name="ctxsieve-scorer")
            return await result if inspect.isawaitable(result) else result

        try:
            # within, not wait_for: a model call that ignores its cancellation is left behind
            reply = await within(call(), self.timeout)
        except Late:
            raise ScorerError("timeout") from None
        except Exception as exc:  # any failure of the user's callable degrades to calibrated scores
            raise ScorerError(f"error:{type(exc).__name__}") from exc
        return self.parse(reply, len(texts))


def openai_compatible(
    base_url: str,
    model: str,
    *,
    api_key: str | None = None,
    timeout: float = 30.0,
    max_tokens: int = 256,
    client: Any = None,
) -> Callable[[str], Awaitable[str]]:
    """An async ``complete(prompt) -> str`` over ``POST {base_url}/chat/completions``.

    Needs httpx (``pip install 'ctxsieve[http]'``). Pass ``client`` (an ``httpx.AsyncClient``)
    to reuse connections; otherwise each call opens its own.
    """
    try:
        import httpx
    except ImportError:
        raise MissingExtraError("http", "httpx") from None
    url = base_url.rstrip("/") + "/chat/completions"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    async def complete(prompt: str) -> str:
        body = {
            "model": model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "max_tokens": max_tokens,
        }
        if client is not None:
            response = await client.post(url, json=body, headers=headers, timeout=timeout)
        else:
            async with httpx.AsyncClient(timeout=timeout) as own:
                response = await own.post(url, json=body, headers=headers)
        response.raise_for_status()
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ContextError(f"{url}: not an OpenAI chat completion: {exc!r}") from None
        if not isinstance(content, str):
            raise ContextError(f"{url}: message content is {type(content).__name__}, not str")
        return content

    return complete
