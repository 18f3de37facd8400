"""What a source is, and how the engine is told to treat one.

A source has a ``name`` and ``candidates(query)``, which returns a list of ``ContextItem`` or an
awaitable of one. Sources only propose: none of them knows the budget. A synchronous source
runs on a worker thread (so it cannot stall the others and its timeout holds) unless it sets
``blocking = False``, which says it returns at once from memory and may run inline. A source
may also declare ``min_items``: how many of its best items go in first unless its
``SourceConfig`` or the ``Budget`` says otherwise (a ``HistorySource`` declares 1, its newest
unit).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ctxsieve.errors import ConfigError
from ctxsieve.stages.calibrate import MODES
from ctxsieve.types import ContextItem

Proposal = Sequence[ContextItem] | Awaitable[Sequence[ContextItem]]


@runtime_checkable
class Source(Protocol):
    name: str

    def candidates(self, query: str) -> Proposal: ...


@dataclass(frozen=True)
class SourceConfig:
    """How the engine treats one source.

    ``weight`` multiplies its calibrated scores; ``max_tokens`` caps its share of the budget;
    ``min_items`` of its best items go in first (default: what the source declares as its own
    ``min_items`` attribute, ``declared_min_items``: 1 for a ``HistorySource``, so the newest
    turn is always kept, else 0); ``timeout`` in seconds (default: the engine's);
    ``mode`` is its calibration (``rank``, ``minmax``, ``zscore``, ``blend``, ``raw``).
    """

    source: Any
    weight: float = 1.0
    max_tokens: int | None = None
    min_items: int | None = None
    timeout: float | None = None
    mode: str = "rank"

    def __post_init__(self) -> None:
        name = getattr(self.source, "name", None)
        if not isinstance(name, str) or not name:
            raise ConfigError(f"source {self.source!r}: needs a non-empty str name")
        if not callable(getattr(self.source, "candidates", None)):
            raise ConfigError(f"source {name!r}: has no candidates(query) method")
        w = self.weight
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
            raise ConfigError(f"source {name!r}: weight must be a finite number >= 0, got {w!r}")
        for field_name in ("max_tokens", "min_items"):
            v = getattr(self, field_name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise ConfigError(f"source {name!r}: {field_name} must be an int >= 0, got {v!r}")
        t = self.timeout
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0):
            raise ConfigError(f"source {name!r}: timeout must be > 0 seconds, got {t!r}")
        if self.mode not in MODES:
            raise ConfigError(f"source {name!r}: mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        declared = getattr(self.source, "min_items", None)
        if declared is not None and (isinstance(declared, bool) or not isinstance(declared, int) or declared < 0):
            raise ConfigError(f"source {name!r}: its min_items attribute must be None or an int >= 0, got {declared!r}")

    @property
    def declared_min_items(self) -> int:
        """The ``min_items`` the source declares for itself (0 when it declares none)."""
        return getattr(self.source, "min_items", None) or 0

    @property
    def name(self) -> str:
        return str(self.source.name)
