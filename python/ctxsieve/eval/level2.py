"""Level 2 (opt-in): answers from an OpenAI-compatible chat endpoint, graded by a judge model
against the reference answers, with latency and the provider's usage.

Each selected call's window is sent as the chat messages it renders to; the judge sees the
question, the reference and the answer and replies ``correct``, ``partial`` or ``incorrect``
(1, 0.5, 0). Provider-reported usage is kept as reported, including ``cached_tokens`` when the
provider returns it: that is the real prefix-cache hit, beside level 1's estimate.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxsieve.errors import ConfigError, ContextError, MissingExtraError
from ctxsieve.eval import metrics
from ctxsieve.eval.corpus import Corpus
from ctxsieve.eval.runner import CallRecord

JUDGE_PROMPT = """Grade the answer against the reference answer for the question.
Reply with one word: correct (same facts as the reference), partial (some of them, nothing wrong)
or incorrect (wrong, missing or contradicting the reference). A reference saying the knowledge
base does not answer counts an honest "I don't know" as correct.

Question: {question}
Reference answer: {reference}
Answer: {answer}"""

GRADES = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}
_GRADE = re.compile(r"\b(incorrect|partial|correct)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible chat endpoint: ``base_url`` ends before ``/chat/completions``."""

    base_url: str
    model: str
    api_key: str | None = None
    judge_model: str | None = None
    timeout: float = 60.0

    @classmethod
    def from_env(cls, base_url: str | None, model: str | None, judge_model: str | None = None) -> Endpoint:
        url = base_url or os.environ.get("CTXSIEVE_EVAL_BASE_URL")
        name = model or os.environ.get("CTXSIEVE_EVAL_MODEL")
        if not url or not name:
            raise ConfigError("level 2 needs --base-url and --model (or CTXSIEVE_EVAL_BASE_URL/CTXSIEVE_EVAL_MODEL)")
        key = os.environ.get("CTXSIEVE_EVAL_API_KEY") or os.environ.get("OPENAI_API_KEY")
        return cls(url.rstrip("/"), name, key, judge_model or os.environ.get("CTXSIEVE_EVAL_JUDGE_MODEL"))


@dataclass
class Reply:
    content: str
    latency: float
    usage: dict[str, Any] = field(default_factory=dict)


class ChatClient:
    """Synchronous chat completions over httpx (extra ``http``)."""

    def __init__(self, endpoint: Endpoint):
        try:
            import httpx
        except ImportError:
            raise MissingExtraError("http", "httpx") from None
        headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
        self.endpoint = endpoint
        self._http_error = httpx.HTTPError
        self.http = httpx.Client(base_url=endpoint.base_url, headers=headers, timeout=endpoint.timeout)

    def close(self) -> None:
        self.http.close()

    def chat(self, messages: Sequence[dict[str, Any]], model: str | None = None, max_tokens: int = 300) -> Reply:
        body = {"model": model or self.endpoint.model, "messages": list(messages), "temperature": 0}
        body["max_tokens"] = max_tokens
        start = time.perf_counter()
        try:
            response = self.http.post("/chat/completions", json=body)
        except self._http_error as exc:  # refused, timed out, reset: name the endpoint, not httpx
            raise ContextError(f"{self.endpoint.base_url}: request failed: {type(exc).__name__}: {exc}") from None
        latency = time.perf_counter() - start
        if response.status_code >= 400:
            raise ContextError(f"{self.endpoint.base_url}: HTTP {response.status_code}: {response.text[:200]}")
        try:
            data = response.json()
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ContextError(f"{self.endpoint.base_url}: not an OpenAI chat completion: {exc!r}") from None
        return Reply(str(content or ""), latency, dict(data.get("usage") or {}))

    def complete(self, prompt: str) -> str:
        """A ``complete(prompt) -> str`` for ``LLMScorer``."""
        return self.chat([{"role": "user", "content": prompt}], max_tokens=200).content


def parse_grade(text: str) -> float | None:
    """The judge's grade as a number, or None when its reply names none.

    >>> parse_grade("Partial: it misses the fee.")
    0.5
    """
    m = _GRADE.search(text)
    return GRADES[m.group(1).lower()] if m else None


@dataclass
class Graded:
    config: str
    budget: int
    question: str
    answer: str
    grade: float | None
    latency: float
    prompt_tokens: int | None
    completion_tokens: int | None
    cached_tokens: int | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _cached(usage: dict[str, Any]) -> int | None:
    details = usage.get("prompt_tokens_details") or {}
    value = details.get("cached_tokens") if isinstance(details, dict) else None
    return int(value) if isinstance(value, int) else None


def answer_and_grade(
    client: ChatClient, corpus: Corpus, records: Sequence[CallRecord], progress: Callable[[int], None] | None = None
) -> list[Graded]:
    questions = {q.id: q for q in corpus.questions}
    judge = client.endpoint.judge_model or client.endpoint.model
    out = []
    for r in records:
        q = questions[r.question]
        reply = client.chat(r.messages)
        grade: float | None = None
        if q.answer:
            verdict = client.chat(
                [
                    {
                        "role": "user",
                        "content": JUDGE_PROMPT.format(question=q.question, reference=q.answer, answer=reply.content),
                    }
                ],
                model=judge,
                max_tokens=10,
            )
            grade = parse_grade(verdict.content)
        usage = reply.usage
        out.append(
            Graded(
                r.config,
                r.budget,
                r.question,
                reply.content,
                grade,
                reply.latency,
                usage.get("prompt_tokens"),
                usage.get("completion_tokens"),
                _cached(usage),
            )
        )
        if progress is not None:
            progress(1)
    return out


def summarize_level2(graded: Sequence[Graded]) -> list[dict[str, Any]]:
    """Per configuration and budget: accuracy, mean latency, usage and the provider's cache hits."""
    groups: dict[tuple[str, int], list[Graded]] = {}
    for g in graded:
        groups.setdefault((g.config, g.budget), []).append(g)
    rows = []
    for (config, budget), gs in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        cached = [(g.cached_tokens, g.prompt_tokens) for g in gs if g.cached_tokens is not None and g.prompt_tokens]
        rows.append(
            {
                "config": config,
                "budget": budget,
                "answers": len(gs),
                "accuracy": metrics.mean(g.grade for g in gs),
                "latency_s": metrics.mean(g.latency for g in gs),
                "prompt_tokens": metrics.mean(None if g.prompt_tokens is None else float(g.prompt_tokens) for g in gs),
                "completion_tokens": metrics.mean(
                    None if g.completion_tokens is None else float(g.completion_tokens) for g in gs
                ),
                "provider_cached_share": metrics.ratio((c or 0, p or 0) for c, p in cached),
            }
        )
    return rows
