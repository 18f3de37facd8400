"""What a conversation's overflows taught it (``ctxsieve.conversation.overflow``): kept by the
conversation's state from its start, so every later limit is tightened by it."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ctxsieve.admission.limits import InputLimit

OVERFLOW_MARGIN = 0.02
ORIGIN = "provider_overflow"


class Learned:
    """What this conversation's overflows taught it: the provider's count per estimated token
    (1.0 until an overflow) and the largest input it accepts (None: not said)."""

    def __init__(self) -> None:
        self.ratio = 1.0
        self.maximum: int | None = None
        self.retried: set[int] = set()  # call indexes already retried once

    @property
    def active(self) -> bool:
        return self.ratio != 1.0 or self.maximum is not None

    def tokens(self, limit: int, overhead: int, covered: float = 1.0) -> int:
        """``limit`` tightened by what was learned: the protocol overhead is a reserve in the
        provider's tokens, the prompt's estimate is what the ratio scales. ``covered``: the part
        of the ratio a usage calibrator already takes off the same call's limit (so the two do
        not compound)."""
        ratio = max(1.0, self.ratio / max(1.0, covered))
        room = limit - overhead if self.maximum is None else min(limit - overhead, self.maximum)
        return min(limit, overhead + math.floor(max(0, room) / ratio * (1 - OVERFLOW_MARGIN)))

    def tighten(self, limit: InputLimit, conv: Any = None, model: str | None = None) -> InputLimit:
        """``limit`` with what was learned applied (unchanged before any overflow)."""
        if not self.active:
            return limit
        n = self.tokens(limit.tokens, conv.limits.protocol_overhead, _calibrated(conv, model))
        if n >= limit.tokens:
            return limit
        said = f"the provider counted {self.ratio:.3f}x the estimate" + (
            f" and accepts at most {self.maximum} tokens" if self.maximum is not None else ""
        )
        note = f"input limit tightened from {limit.tokens} to {n}: an earlier call overflowed ({said})"
        return replace(limit, tokens=n, origin=ORIGIN, note=_joined(limit.note, note))


def _calibrated(conv: Any, model: str | None) -> float:
    """The factor a usage calibrator (``Conversation(calibrator=...)``, issue 16) will apply to
    this model's limit after this one: 1.0 without one."""
    cal = getattr(conv, "calibrator", None)
    if cal is None or model is None:
        return 1.0
    try:
        return float(cal.calibration(str(conv.estimator.name), model).factor)
    except Exception:  # the calibrator reports its own store failures; here it only relaxes a bound
        return 1.0


def _joined(a: str | None, b: str) -> str:
    return b if not a else f"{a}; {b}"
