"""When compacting pays: the minimum-gain rule and the arithmetic behind it.

A compaction rewrites the transcript's head, so every token after the rewrite point leaves the
provider's prompt cache. Whether that pays depends on prices and on how long the run goes on.
All prices are in units of the model's base input price per token (``CachePricing``):

* ``r`` (``read``): a cached input token; ``w`` (``write``): an input token the call writes to
  the cache; ``o`` (``output``): an output token.
* ``D``: the tokens the compaction removes (the old summary and notice included), ``S``: the
  summary message that replaces them (its verbatim sections exactly, plus ``summary_ratio * D``
  for the text the summariser will write), ``R``: the retained tokens after them that the last
  call sent (cached now, rewritten after the compaction), ``P``: the prefix the summariser's
  request shares with the last call, ``U``: the rest of that request (the messages since the
  last call and the instruction), ``N``: the expected remaining calls.

Without compaction, the next call reads ``D + R`` from the cache (``r * (D + R)``; ``w *
(D + R)`` when the last call's prefix is not in the cache anyway); with it, the next call
writes ``S + R`` (``w * (S + R)``), so the rewrite costs once::

    rewrite    = w * (S + R) - (r or w) * (D + R)
    summariser = r * P + w * U + o * (S - verbatim)
    saving     = r * (D - S)                    for each later call
    gain       = (N - 1) * saving - rewrite - summariser

and the optional compaction happens only when ``gain > 0``. Savings are counted for every
expected remaining call, also past the point where the input limit would force a compaction:
the run without an early compaction pays that forced one too. (Capping the savings there was
tried: on the 80-turn run of ``benches/bench_compaction.py`` the rule then declined until the
forced compactions came and billed 4 % more than a plain threshold; uncapped it bills 5 % less.)

The rule only governs optional compaction (``CompactionPolicy.compact_at``). When a call does
not fit at all, the conversation compacts (or, without a compactor or when the summariser
fails, cuts) whatever the arithmetic says; the decision is still computed and reported, as
``forced``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from ctxsieve.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Callable

# the conversation is typed Any here: state.py imports this module, and no two modules import
# each other (tests/test_layers.py)
State = Any

COMPACTION_EVENT = "lifecycle.compaction"


@dataclass(frozen=True)
class CachePricing:
    """Token prices relative to the base input price: a cache read, a cache write, an output
    token. ``source``: where the numbers come from (docs/providers.md lists them)."""

    read: float
    write: float
    output: float
    source: str = "user"

    def __post_init__(self) -> None:
        for name in ("read", "write", "output"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ConfigError(f"CachePricing.{name}: expected a finite number >= 0, got {v!r}")
        if not isinstance(self.source, str):
            raise ConfigError(f"CachePricing.source: expected a str, got {self.source!r}")
        if self.read > self.write:
            raise ConfigError(f"CachePricing: a cache read ({self.read}) costing more than a write ({self.write})")


# Anthropic: cache reads 0.1x base input, 5-minute cache writes 1.25x, 1-hour writes 2x; output
# 5x input on Claude Sonnet and Opus ($3/$15, $15/$75 per million tokens).
ANTHROPIC_5M = CachePricing(0.1, 1.25, 5.0, "anthropic prompt caching, 5-minute TTL")
ANTHROPIC_1H = CachePricing(0.1, 2.0, 5.0, "anthropic prompt caching, 1-hour TTL")
# OpenAI: automatic caching, no write premium; cached input 0.5x on GPT-4o ($1.25 of $2.50),
# less on later models (pass their ratio); output 4x input on GPT-4o ($10 of $2.50).
OPENAI = CachePricing(0.5, 1.0, 4.0, "openai prompt caching, gpt-4o")


@dataclass(frozen=True)
class CompactionPolicy:
    """When a conversation with a compactor compacts before it has to.

    ``compact_at``: the share of the room for older turns they may fill before an optional
    compaction is considered (None: compact only when a call does not fit). ``pricing``: the
    provider's cache prices. ``remaining_calls``: the calls the run is expected to make still,
    an int or ``callable(conversation) -> int``; None: as many as it has made so far (a run
    that went on for n calls is as likely as not to go on for n more), at most what
    ``RunLimits.max_model_calls`` leaves. ``summary_ratio``: summary tokens the summariser is
    expected to write per summarised token (before it has written them). ``rule``: False
    compacts whenever ``compact_at`` is passed (a plain threshold; the arithmetic is still
    reported)."""

    compact_at: float | None = None
    pricing: CachePricing = ANTHROPIC_5M
    remaining_calls: int | Callable[[State], int] | None = None
    summary_ratio: float = 0.1
    rule: bool = True

    def __post_init__(self) -> None:
        c = self.compact_at
        if c is not None and (isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c <= 1):
            raise ConfigError(f"CompactionPolicy.compact_at: expected a share in (0, 1] or None, got {c!r}")
        s = self.summary_ratio
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1:
            raise ConfigError(f"CompactionPolicy.summary_ratio: expected a number in [0, 1], got {s!r}")
        if not isinstance(self.pricing, CachePricing):
            # a dict of prices would fail only at the first decision, deep in a call
            raise ConfigError(f"CompactionPolicy.pricing: expected a CachePricing, got {self.pricing!r}")
        if not isinstance(self.rule, bool):
            raise ConfigError(f"CompactionPolicy.rule: expected a bool, got {self.rule!r}")
        n = self.remaining_calls
        if n is not None and not callable(n) and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise ConfigError(f"CompactionPolicy.remaining_calls: expected an int >= 0, a callable or None, got {n!r}")


DEFAULT_POLICY = CompactionPolicy()


@dataclass(frozen=True)
class GainInputs:
    """The token counts of one compaction decision (see the module doc for the letters)."""

    dropped: int  # D
    summary: int  # S
    verbatim: int  # the part of S known before the summariser writes (header, kept sections)
    retained: int  # R
    prefix: int  # P
    uncached: int  # U
    remaining_calls: int  # N
    cached: bool = True  # the last call's prefix is what the next call would read


@dataclass(frozen=True)
class Decision:
    """The arithmetic of one compaction decision and its outcome (``outcome``: ``compacted``,
    ``declined`` (the rule), ``forced`` (the call does not fit: compacted whatever the gain),
    ``skipped`` (the summariser failed or its summary did not fit))."""

    call_index: int
    forced: bool
    inputs: GainInputs
    pricing: CachePricing
    rewrite: float
    summariser: float
    saving_per_call: float
    counted_calls: int
    gain: float
    break_even_calls: float | None
    outcome: Literal["compacted", "declined", "forced", "skipped"] = "declined"

    @property
    def pays(self) -> bool:
        return self.gain > 0

    def event(self) -> dict[str, Any]:
        """Flat attributes for ``lifecycle.compaction``."""
        out: dict[str, Any] = {"call_index": self.call_index, "outcome": self.outcome, "forced": self.forced}
        out.update(asdict(self.inputs))
        out.update({"read_price": self.pricing.read, "write_price": self.pricing.write})
        out.update({"output_price": self.pricing.output, "pricing": self.pricing.source})
        out.update({"rewrite_cost": round(self.rewrite, 3), "summariser_cost": round(self.summariser, 3)})
        out.update({"saving_per_call": round(self.saving_per_call, 3), "counted_calls": self.counted_calls})
        out["gain"] = round(self.gain, 3)
        if self.break_even_calls is not None:
            out["break_even_calls"] = round(self.break_even_calls, 2)
        return out

    def note(self) -> str:
        """One line for the call's report."""
        i = self.inputs
        be = "never" if self.break_even_calls is None else f"{self.break_even_calls:.1f}"
        return (
            f"compaction {self.outcome}: gain {self.gain:.0f} = {self.counted_calls} later calls x "
            f"{self.saving_per_call:.1f} saved - rewrite {self.rewrite:.0f} - summariser {self.summariser:.0f} "
            f"(D={i.dropped} S={i.summary} R={i.retained} P={i.prefix} U={i.uncached} N={i.remaining_calls}, "
            f"r={self.pricing.read} w={self.pricing.write} o={self.pricing.output}; breaks even after {be} calls)"
        )

    def counts(self) -> dict[str, int]:
        """Integer fields for the report's ``counts["compaction"]``."""
        i = self.inputs
        return {
            "compacted": int(self.outcome in ("compacted", "forced")),
            "forced": int(self.forced),
            "dropped_tokens": i.dropped,
            "summary_tokens": i.summary,
            "retained_tokens": i.retained,
            "remaining_calls": i.remaining_calls,
            "gain": round(self.gain),
        }


def decide(inputs: GainInputs, pricing: CachePricing, *, call_index: int = 0, forced: bool = False) -> Decision:
    """The minimum-gain arithmetic (module doc) over ``inputs``."""
    r, w, o = pricing.read, pricing.write, pricing.output
    d, s = inputs.dropped, inputs.summary
    rewrite = w * (s + inputs.retained) - (r if inputs.cached else w) * (d + inputs.retained)
    summariser = r * inputs.prefix + w * inputs.uncached + o * max(0, s - inputs.verbatim)
    saving = r * (d - s)
    counted = max(0, inputs.remaining_calls - 1)
    gain = counted * saving - rewrite - summariser
    once = rewrite + summariser
    break_even = (once / saving if once > 0 else 0.0) if saving > 0 else None
    outcome: Literal["compacted", "declined", "forced", "skipped"] = (
        "forced" if forced else ("compacted" if gain > 0 else "declined")
    )
    return Decision(
        call_index, forced, inputs, pricing, rewrite, summariser, saving, counted, gain, break_even, outcome
    )


def expected_calls(conv: State, policy: CompactionPolicy) -> int:
    """``policy.remaining_calls`` for ``conv`` (module doc of ``CompactionPolicy``)."""
    n = policy.remaining_calls
    if callable(n):
        got = n(conv)
        if isinstance(got, bool) or not isinstance(got, int) or got < 0:
            raise ConfigError(f"CompactionPolicy.remaining_calls returned {got!r}, expected an int >= 0")
        return got
    if n is not None:
        return n
    guess = max(1, conv._call_index + 1)
    cap = conv.run.limits.max_model_calls
    return guess if cap is None else max(0, min(guess, cap - conv.run.model_calls))


def take_report(conv: State, notes: list[str], counts: dict[str, dict[str, int]]) -> None:
    """Put the compaction decision made before this call (if any) in its report, once."""
    d = conv._compaction_report
    if d is not None:
        notes.append(d.note())
        counts["compaction"] = d.counts()
        conv._compaction_report = None


__all__ = [
    "ANTHROPIC_1H",
    "ANTHROPIC_5M",
    "COMPACTION_EVENT",
    "DEFAULT_POLICY",
    "OPENAI",
    "CachePricing",
    "CompactionPolicy",
    "Decision",
    "GainInputs",
    "decide",
    "expected_calls",
    "take_report",
]
