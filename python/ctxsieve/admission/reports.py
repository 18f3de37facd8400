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


def _int_or_none(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def provider_numbers(usage: Any) -> tuple[int | None, int | None, int | None]:
    """(input, output, total) from an OpenAI-style, Anthropic-style or attribute usage object."""
    if usage is None:
        return None, None, None

    def get(name: str) -> Any:
        return usage.get(name) if isinstance(usage, Mapping) else getattr(usage, name, None)

    inp = _int_or_none(get("prompt_tokens"))
    if inp is None:
        inp = _int_or_none(get("input_tokens"))
        if inp is not None:
            # Anthropic reports cached prompt parts apart from input_tokens; they are input too
            inp += sum(_int_or_none(get(k)) or 0 for k in ("cache_creation_input_tokens", "cache_read_input_tokens"))
    out = _int_or_none(get("completion_tokens"))
    if out is None:
        out = _int_or_none(get("output_tokens"))
    return inp, out, _int_or_none(get("total_tokens"))


@dataclass(frozen=True)
class RequestUsage:
    """Usage of one request. ``source`` is ``provider`` when the provider reported input and
    output, ``partial`` when it reported only some, ``estimate`` when it reported nothing."""

    input_tokens: int
    output_tokens: int
    total_tokens: int
    input_budget: int
    estimated_input_tokens: int
    source: str
    breakdown: dict[str, int] = field(default_factory=dict)

    @classmethod
    def build(
        cls, *, estimated_input: int, input_budget: int, breakdown: Mapping[str, int], provider: Any = None
    ) -> RequestUsage:
        inp, out, total = provider_numbers(provider)
        if inp is not None and out is not None:
            source = "provider"
        else:  # a reported 0 is still reported
            source = "partial" if inp is not None or out is not None else "estimate"
        i = inp if inp is not None else estimated_input
        o = out if out is not None else 0
        t = total if total is not None else i + o
        return cls(
            i, o, t, input_budget, estimated_input, source, {k: int(breakdown.get(k, 0)) for k in USAGE_BREAKDOWN}
        )


@dataclass
class UsageTotals:
    """Running totals; a Session keeps one across turns, a Turn one for itself."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0

    def add(self, u: RequestUsage) -> None:
        self.requests += 1
        self.input_tokens += u.input_tokens
        self.output_tokens += u.output_tokens
        self.total_tokens += u.total_tokens
