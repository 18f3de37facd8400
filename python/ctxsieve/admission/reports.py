"""The reports admission produces: one ``context_assembly`` per admitted call, usage per
request, and session totals across turns.

Reports hold numbers, reasons and notes: no evidence bodies, no actor identities.
Provider-reported usage is the source of truth; an estimate only fills what the provider did
not report, and never overwrites it.

>>> provider = {"prompt_tokens": 950, "completion_tokens": 40}
>>> u = RequestUsage.build(estimated_input=900, input_budget=4000, breakdown={}, provider=provider)
>>> (u.input_tokens, u.output_tokens, u.total_tokens, u.source)
(950, 40, 990, 'provider')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ctxsieve.admission.usage import usage_numbers

USAGE_BREAKDOWN = ("system", "tools", "skills", "memory", "messages")


@dataclass(frozen=True)
class ContextAssemblyReport:
    """What one admitted call contains, in numbers.

    ``limit``: input_limit, origin (``ceiling``/``model_window``), ceiling, window, output_reserve,
    lookup outcome. ``sections``: estimated tokens per section. ``counts``: per section, how many
    candidates were eligible, included and omitted (with reasons).
    """

    turn_id: str
    call_index: int
    attempt: int
    model: str | None
    estimator: str
    estimated_input_tokens: int
    headroom: int
    limit: dict[str, Any]
    sections: dict[str, int]
    counts: dict[str, dict[str, int]]
    notes: tuple[str, ...]
    snapshot_id: str | None
    kind: str = "context_assembly"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["notes"] = list(self.notes)
        return d


def provider_numbers(usage: Any) -> tuple[int | None, int | None, int | None]:
    """(input, output, total) from an OpenAI, Anthropic, Gemini, DeepSeek or attribute usage
    object; input is the whole prompt, cached part included (``ctxsieve.admission.usage``)."""
    n = usage_numbers(usage)
    return n.prompt, n.output, n.total


@dataclass(frozen=True)
class RequestUsage:
    """Usage of one request. ``source`` is ``provider`` when the provider reported input and
    output, ``partial`` when it reported only some, ``estimate`` when it reported nothing.

    ``input_tokens`` is the whole prompt the provider processed, its cached part included, for
    every provider (Anthropic's ``input_tokens`` + ``cache_read_input_tokens`` +
    ``cache_creation_input_tokens``): the provider's true prompt size, what a calibrator compares
    the estimate with. ``cached_input_tokens``: the part read from the provider's cache;
    ``cache_write_tokens``: the part written to it (Anthropic); ``uncached_input_tokens``:
    ``input_tokens - cached_input_tokens``; each None when the provider did not report it.
    ``ignored`` names usage fields that were present but not an int >= 0 (not used)."""

    input_tokens: int
    output_tokens: int
    total_tokens: int
    input_budget: int
    estimated_input_tokens: int
    source: str
    breakdown: dict[str, int] = field(default_factory=dict)
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    uncached_input_tokens: int | None = None
    ignored: tuple[str, ...] = ()

    @classmethod
    def build(
        cls, *, estimated_input: int, input_budget: int, breakdown: Mapping[str, int], provider: Any = None
    ) -> RequestUsage:
        n = usage_numbers(provider)
        inp, out, total = n.prompt, n.output, n.total
        if inp is not None and out is not None:
            source = "provider"
        else:  # a reported 0 is still reported
            source = "partial" if inp is not None or out is not None else "estimate"
        i = inp if inp is not None else estimated_input
        o = out if out is not None else 0
        t = total if total is not None else i + o
        cached = n.cached if inp is not None else None  # a share of a reported prompt only
        return cls(
            i,
            o,
            t,
            input_budget,
            estimated_input,
            source,
            {k: int(breakdown.get(k, 0)) for k in USAGE_BREAKDOWN},
            cached_input_tokens=cached,
            cache_write_tokens=n.written if inp is not None else None,
            uncached_input_tokens=None if cached is None else i - cached,
            ignored=n.ignored,
        )


@dataclass
class UsageTotals:
    """Running totals; a Session keeps one across turns, a Turn one for itself.

    ``cached_input_tokens`` / ``cache_write_tokens`` sum what the providers reported (0 for a
    request that reported nothing about its cache); ``uncached_input_tokens`` is
    ``input_tokens - cached_input_tokens``; ``cache_reported`` counts the requests whose usage
    said how much of the prompt was cached."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    uncached_input_tokens: int = 0
    cache_reported: int = 0

    def add(self, u: RequestUsage) -> None:
        self.requests += 1
        self.input_tokens += u.input_tokens
        self.output_tokens += u.output_tokens
        self.total_tokens += u.total_tokens
        cached = u.cached_input_tokens or 0
        self.cached_input_tokens += cached
        self.cache_write_tokens += u.cache_write_tokens or 0
        self.uncached_input_tokens += u.input_tokens - cached
        self.cache_reported += u.cached_input_tokens is not None
