"""The data every layer shares: candidates, their scores, the budget and the trace.

Sources propose ``ContextItem`` values; the engine scores them (``ScoredItem``), fills a
``Budget`` and returns a ``Window`` (``ctxsieve.engine.window``) whose ``Trace`` holds one
``TraceEntry`` per proposed item. This module imports nothing but ``ctxsieve.errors``: every
layer may import it.

>>> item = ContextItem("faq-1", "Refunds are accepted within 30 days.", source="faq")
>>> item.kind, item.stability, item.signals.deprecated
('knowledge', 'volatile', False)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from ctxsieve.errors import ConfigError

Kind = Literal["instruction", "knowledge", "memory", "history", "tool_result", "tool_schema", "image"]
Stability = Literal["stable", "session", "volatile"]
Layout = Literal["seed", "cache"]
Style = Literal["openai", "anthropic"]

KINDS: frozenset[str] = frozenset(
    ("instruction", "knowledge", "memory", "history", "tool_result", "tool_schema", "image")
)
STABILITIES: frozenset[str] = frozenset(("stable", "session", "volatile"))
LAYOUTS: frozenset[str] = frozenset(("seed", "cache"))

# Every reason a TraceEntry can carry. ``duplicate_of:<kept id>`` is the only parametrised one.
INCLUDED_REASONS = ("pinned", "min_items", "selected")
EXCLUDED_REASONS = ("deprecated", "below_floor", "source_cap", "budget", "duplicate_of")
# Prefixes of Trace.events: ``source_error:<source>:<why>``, ``scorer_fallback:<reason>`` and
# ``audience_excluded:<source>:<count>`` (how many of a source's items the reader may not see;
# never their ids or content, see ctxsieve.audience).
EVENT_KINDS = ("source_error", "scorer_fallback", "audience_excluded")
# What only a ContextSession records (ctxsieve.engine.session): ``already_shown:<turn>`` and
# ``in_transcript`` reasons; ``session_cut:<turns>:<tokens omitted>:<tokens kept>``,
# ``stable_changed:<id>`` and ``shown_changed:<id>:<turn>`` events.
SESSION_REASONS = ("already_shown", "in_transcript")
SESSION_EVENT_KINDS = ("session_cut", "stable_changed", "shown_changed")


# Tokens a provider adds around each message (role marker, start/end separators), charged by
# admission and by the agent loop alike. OpenAI's published counting recipe uses 3 per message
# plus 3 to prime the reply; we charge 4 to stay on the safe side across providers, and the same
# per tool schema.
MESSAGE_FRAMING_TOKENS = 4


@dataclass(frozen=True, slots=True)
class Signals:
    """What a source knows about an item's reliability.

    ``trust`` is a free label; ``"human-reviewed"`` raises the score (x1.1). ``stale`` lowers it
    (x0.7); ``deprecated`` leaves the item out unless the policy asks for deprecated items.
    """

    trust: str | None = None
    stale: bool = False
    deprecated: bool = False
    citation: str | None = None

    def any(self) -> bool:
        """True when any signal is set (most items carry none, and skip the adjustment pass)."""
        return self.trust is not None or self.stale or self.deprecated or self.citation is not None


NO_SIGNALS = Signals()
# One shared, read-only empty mapping: an empty dict per item would cost 100k GC-tracked
# objects at 100k candidates, for metadata most items never carry.
NO_META: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One candidate for the context window.

    ``score`` is the source's raw score (any scale; calibration makes sources comparable).
    ``tokens`` is computed by the engine when None. ``order_key`` orders history
    chronologically and session items within their source. ``audience`` is None (or ``"public"``,
    ``"*"``, ``""``) for content anyone may see, else a label or a frozenset of labels of who may;
    the engine and admission leave the item out of any call whose readers are not all among
    them, before budgeting (``ctxsieve.audience`` has the rules). ``meta`` is carried
    through untouched; history items keep their raw messages in ``meta["messages"]``.
    """

    id: str
    content: str
    source: str = ""
    kind: Kind = "knowledge"
    stability: Stability = "volatile"
    score: float = 0.0
    tokens: int | None = None
    signals: Signals = NO_SIGNALS
    pinned: bool = False
    order_key: str | None = None
    audience: str | frozenset[str] | None = None
    meta: Mapping[str, Any] = field(default_factory=lambda: NO_META, hash=False, compare=False)

    def __post_init__(self) -> None:
        problem = item_problem(self)
        if problem is not None:
            raise ConfigError(f"ContextItem {self.id!r}: {problem}")


def item_problem(item: ContextItem) -> str | None:
    """Why ``item`` is malformed, or None. Objects built with ``object.__setattr__`` or by a
    source that bypasses the constructor are checked again by the engine."""
    if not isinstance(item.id, str) or not item.id:
        return "id must be a non-empty str"
    if not isinstance(item.content, str):
        return f"content must be a str, got {type(item.content).__name__}"
    if not isinstance(item.source, str):
        return f"source must be a str, got {type(item.source).__name__}"
    if item.kind not in KINDS:
        return f"kind must be one of {sorted(KINDS)}, got {item.kind!r}"
    if item.stability not in STABILITIES:
        return f"stability must be one of {sorted(STABILITIES)}, got {item.stability!r}"
    s = item.score
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
        return f"score must be a finite number, got {s!r}"
    t = item.tokens
    if t is not None and (isinstance(t, bool) or not isinstance(t, int) or t < 0):
        return f"tokens must be None or an int >= 0, got {t!r}"
    if not isinstance(item.signals, Signals):
        return f"signals must be Signals, got {type(item.signals).__name__}"
    if item.order_key is not None and not isinstance(item.order_key, str):
        return f"order_key must be None or a str, got {type(item.order_key).__name__}"
    a = item.audience
    if a is not None and not isinstance(a, str):
        # a frozenset, not any iterable: the item is hashable, and a list would fail far from here
        if not isinstance(a, frozenset) or not all(isinstance(x, str) for x in a):
            return f"audience must be None, a str or a frozenset of str, got {type(a).__name__} {a!r:.60}"
    # rendering and the eval read meta with .get: None here failed later, far from the item
    if item.meta is not NO_META and not isinstance(item.meta, Mapping):
        return f"meta must be a mapping, got {type(item.meta).__name__}"
    return None


@dataclass(frozen=True, slots=True)
class ScoredItem:
    """An item with its scores: ``raw`` from the source, ``calibrated`` after normalisation,
    weight and signals, ``final`` after the optional model rescoring."""

    item: ContextItem
    raw: float
    calibrated: float
    final: float
    tokens: int
    adjustments: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Budget:
    """The token budget: ``total`` for everything, per-source ``caps`` and ``min_items``.

    >>> Budget(0)
    Traceback (most recent call last):
    ...
    ctxsieve.errors.ConfigError: budget: must be a positive int, got 0
    """

    total: int
    caps: Mapping[str, int] = field(default_factory=dict)
    min_items: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.total, bool) or not isinstance(self.total, int) or self.total <= 0:
            raise ConfigError(f"budget: must be a positive int, got {self.total!r}")
        for name, table in (("caps", self.caps), ("min_items", self.min_items)):
            for source, n in table.items():
                if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                    raise ConfigError(f"budget.{name}[{source!r}]: must be an int >= 0, got {n!r}")


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """The fate of one proposed item."""

    id: str
    source: str
    kind: str
    raw: float
    calibrated: float
    final: float
    tokens: int
    included: bool
    reason: str
    adjustments: tuple[str, ...] = ()


class Trace:
    """One ``TraceEntry`` per proposed item, in proposal order, and the build's events.

    Entries are stored as columns and materialised on first access, so a build over 100k
    candidates does not pay for 100k objects nobody reads.
    """

    __slots__ = ("_columns", "_entries", "events")

    def __init__(self, entries: Sequence[TraceEntry] = (), events: Sequence[str] = (), *, columns: Any = None):
        self._entries: list[TraceEntry] | None = None if columns is not None else list(entries)
        self._columns = columns
        self.events: list[str] = list(events)

    @property
    def entries(self) -> list[TraceEntry]:
        if self._entries is None:
            self._entries = self._columns.entries()
            self._columns = None
        return self._entries

    def __len__(self) -> int:
        return len(self.entries) if self._columns is None else self._columns.size()

    def __iter__(self) -> Iterator[TraceEntry]:
        return iter(self.entries)

    def entry(self, item_id: str) -> TraceEntry:
        """The first entry for ``item_id``; KeyError names the id when there is none."""
        for e in self.entries:
            if e.id == item_id:
                return e
        raise KeyError(f"no trace entry for item {item_id!r}")

    def reasons(self) -> Counter[str]:
        """How many items ended with each reason (``duplicate_of:*`` counted as ``duplicate_of``)."""
        return Counter(e.reason.split(":", 1)[0] for e in self.entries)

    def excluded(self, reason_prefix: str = "") -> list[TraceEntry]:
        return [e for e in self.entries if not e.included and e.reason.startswith(reason_prefix)]

    def explain(self, limit: int | None = None) -> str:
        """The trace as a plain-text table, best final score first, then the events.

        >>> t = Trace([TraceEntry("a", "faq", "knowledge", 3.0, 1.0, 1.0, 12, True, "selected")])
        >>> print(t.explain())
        id  source  kind       raw   calib  final  tokens  in  reason
        a   faq     knowledge  3.00  1.000  1.000  12      +   selected
        """
        rows = sorted(self.entries, key=lambda e: (not e.included, -e.final, e.id))
        if limit is not None:
            rows = rows[:limit]
        header = ("id", "source", "kind", "raw", "calib", "final", "tokens", "in", "reason")
        table = [header] + [
            (
                e.id,
                e.source,
                e.kind,
                f"{e.raw:.2f}",
                f"{e.calibrated:.3f}",
                f"{e.final:.3f}",
                str(e.tokens),
                "+" if e.included else "-",
                e.reason + ("".join(f" [{a}]" for a in e.adjustments)),
            )
            for e in rows
        ]
        widths = [max(len(r[c]) for r in table) for c in range(len(header) - 1)]
        lines = ["  ".join(r[c].ljust(widths[c]) for c in range(len(header) - 1)) + "  " + r[-1] for r in table]
        lines += [f"event: {ev}" for ev in self.events]
        return "\n".join(line.rstrip() for line in lines)


__all__ = [
    "EVENT_KINDS",
    "EXCLUDED_REASONS",
    "INCLUDED_REASONS",
    "KINDS",
    "LAYOUTS",
    "SESSION_EVENT_KINDS",
    "SESSION_REASONS",
    "STABILITIES",
    "Budget",
    "ContextItem",
    "Kind",
    "Layout",
    "ScoredItem",
    "Signals",
    "Stability",
    "Style",
    "Trace",
    "TraceEntry",
    "item_problem",
]
