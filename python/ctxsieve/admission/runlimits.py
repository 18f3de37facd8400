"""Run allowances: model calls, tool calls, tokens and wall time of one agent run.

They are separate from admission on purpose: admission decides what one call reads; a run's
allowances only ever count up, and nothing admission does (re-admitting for a fallback,
shrinking context) resets them.

>>> budget = RunBudget(RunLimits(max_model_calls=1))
>>> budget.check(); budget.model_calls += 1
>>> budget.check()
Traceback (most recent call last):
...
ctxsieve.admission.errors.RunLimitError: run limit reached: model_calls used 1 of 1; no further model call is admitted
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ctxsieve.admission.errors import RunLimitError
from ctxsieve.errors import ConfigError


@dataclass(frozen=True)
class RunLimits:
    """None means no allowance of that kind. ``max_tokens`` counts provider-reported total tokens."""

    max_model_calls: int | None = None
    max_tool_calls: int | None = None
    max_tokens: int | None = None
    max_wall_time: float | None = None

    def __post_init__(self) -> None:
        for name in ("max_model_calls", "max_tool_calls", "max_tokens"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v <= 0):
                raise ConfigError(f"RunLimits.{name}: must be a positive int or None, got {v!r}")
        w = self.max_wall_time
        if w is not None and (isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w <= 0):
            raise ConfigError(f"RunLimits.max_wall_time: must be a positive number of seconds or None, got {w!r}")


@dataclass
class RunBudget:
    """What a run has used so far; share one across turns to make allowances span them."""

    limits: RunLimits = field(default_factory=RunLimits)
    clock: Callable[[], float] = time.monotonic
    model_calls: int = 0
    tool_calls: int = 0
    tokens: int = 0
    started: float = field(default=math.nan)

    def __post_init__(self) -> None:
        if math.isnan(self.started):
            self.started = self.clock()

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started

    def check(self) -> None:
        """Raise ``RunLimitError`` when another model call would exceed an allowance."""
        lim = self.limits
        if lim.max_model_calls is not None and self.model_calls >= lim.max_model_calls:
            raise RunLimitError("model_calls", self.model_calls, lim.max_model_calls)
        if lim.max_tool_calls is not None and self.tool_calls > lim.max_tool_calls:
            raise RunLimitError("tool_calls", self.tool_calls, lim.max_tool_calls)
        if lim.max_tokens is not None and self.tokens >= lim.max_tokens:
            raise RunLimitError("tokens", self.tokens, lim.max_tokens)
        if lim.max_wall_time is not None and self.elapsed >= lim.max_wall_time:
            raise RunLimitError("wall_time", round(self.elapsed, 3), lim.max_wall_time)

    def snapshot(self) -> dict[str, float]:
        return {
            "model_calls": self.model_calls,
            "tool_calls": self.tool_calls,
            "tokens": self.tokens,
            "elapsed": round(self.elapsed, 6),
        }
