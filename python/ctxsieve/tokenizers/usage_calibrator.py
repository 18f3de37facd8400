"""Learning from provider usage: per model, how much the provider's count exceeds the estimate.

The provider's reported input tokens are the truth an estimate is judged by. After each call the
conversation gives the calibrator the estimate of the prompt it sent and the input tokens the
provider reported; the calibrator keeps the recent ratios per (estimator, model) in a store that
a fleet of workers shares (``UsageRatioStore``), and admission multiplies the prompt estimate by

    factor = max(1.0, the (trim + 1)-th largest of the last ``window`` ratios)

so that:

* the estimate is raised when the estimator under-counts, and never lowered below what the
  profile's bound gives (the factor is at least 1.0);
* one outlier (a report that belongs to another request, a provider's accounting glitch) is
  ignored (``trim=1``): it takes ``trim + 1`` high ratios in the window to raise the factor;
* a ratio that falls is learnt too: the high ratios leave the window after ``window`` newer
  samples (a model whose tokenizer changed, then changed back);
* every worker sharing the store reads the same window, hence the same factor.

What is compared, and why: the ratio is ``reported / prompt estimate``, where the prompt
estimate is the call's estimated input without the protocol overhead reserve
(``Call.prompt_tokens``). The reserve is a fixed allowance for what the provider adds, not an
estimate of anything in the request: counted in, a perfect estimator on a 2,000-token prompt
with the default 1,024-token reserve would show 0.66 and hide an under-count of the text.
The provider's count does include its own scaffolding (Anthropic's tool-use system prompt is a
few hundred tokens), which makes a ratio read high by scaffolding / prompt; calls whose prompt
estimate is below ``min_prompt_tokens`` (8,192) are therefore not learnt from, so that bias stays
within a few per cent, and on the safe side.

A report that is missing, not an int, zero, negative or NaN is not learnt from: the call gets a
note and a count by reason (``Calibrator.skipped``). So is a ratio above ``max_ratio`` or below
its inverse (4: no estimator in ctxsieve is that far off, so such a report does not describe the
prompt it was paired with). A store that fails keeps the samples pending (sent with the next
merge) and the last factor read; the loop goes on.

>>> cal = UsageCalibrator(min_prompt_tokens=1)
>>> [cal.observe("bytes/3", "m", 1000, n).learnt for n in (1120, 1100)]
[True, True]
>>> cal.calibration("bytes/3", "m").factor
1.1
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ctxsieve.errors import ConfigError, ContextError
from ctxsieve.tokenizers.usage_ratios import (
    MemoryUsageRatios,
    UsageRatios,
    UsageRatioStore,
    check_name,
    check_window,
    identity_key,
)

DEFAULT_WINDOW = 32
DEFAULT_TRIM = 1
DEFAULT_MIN_PROMPT_TOKENS = 8192
DEFAULT_MAX_RATIO = 4.0
DEFAULT_MAX_AGE = 5.0  # seconds a worker uses the factor it read before reading the store again
MAX_NOTES = 32


def factor_of(ratios: tuple[float, ...] | list[float], trim: int = DEFAULT_TRIM) -> float:
    """``max(1.0, the (trim+1)-th largest ratio)``; 1.0 while there are ``trim`` or fewer.

    >>> factor_of([1.0, 1.5, 1.12]), factor_of([2.0]), factor_of([0.8, 0.9])
    (1.12, 1.0, 1.0)
    """
    if len(ratios) <= trim:
        return 1.0
    return max(1.0, sorted(ratios)[-(trim + 1)])


def admitted_prompt(room: int, factor: float) -> int:
    """The largest prompt estimate ``p`` with ``ceil(p * factor) <= room``: what the limit lets
    the (uncalibrated) estimate reach when the factor applies.

    >>> p = admitted_prompt(100_000, 1.12)
    >>> p, math.ceil(p * 1.12), math.ceil((p + 1) * 1.12)
    (89285, 100000, 100001)
    """
    if factor <= 1.0 or room <= 0:
        return max(0, room)
    p = int(room / factor)
    # float rounding puts room / factor a step off either way at most
    while p > 0 and math.ceil(p * factor) > room:
        p -= 1
    while math.ceil((p + 1) * factor) <= room:
        p += 1
    return p


@dataclass(frozen=True)
class Calibration:
    """The factor in use for one (estimator, model): ``samples`` ever merged, ``window`` ratios
    held now, ``updated`` (epoch seconds of the last merge; None: never learnt)."""

    estimator: str
    model: str
    factor: float
    samples: int
    window: int
    updated: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "estimator": self.estimator,
            "factor": self.factor,
            "samples": self.samples,
            "window": self.window,
            "updated": self.updated,
        }


@dataclass(frozen=True)
class Observation:
    """What one call's usage taught: its ``ratio`` when ``learnt``; else why not (``reason``:
    ``small``, ``missing``, ``invalid``, ``outlier``) in ``note``."""

    learnt: bool
    ratio: float | None
    reason: str | None
    note: str | None


def _positive(name: str, value: Any, *, number: bool = False, at_least: float = 0) -> Any:
    ok = isinstance(value, (int, float) if number else int) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value < at_least:
        raise ConfigError(
            f"UsageCalibrator: {name} must be {'a number' if number else 'an int'} >= {at_least}, got {value!r}"
        )
    return value


class UsageCalibrator:
    """Per-model factors learnt from provider usage (see the module doc). ``store``: a
    ``UsageRatioStore`` (any ctxsieve store; None: this process's memory only). One calibrator
    may serve many conversations and threads."""

    def __init__(
        self,
        store: UsageRatioStore | None = None,
        *,
        window: int = DEFAULT_WINDOW,
        trim: int = DEFAULT_TRIM,
        min_prompt_tokens: int = DEFAULT_MIN_PROMPT_TOKENS,
        max_ratio: float = DEFAULT_MAX_RATIO,
        max_age: float = DEFAULT_MAX_AGE,
        clock: Callable[[], float] = time.time,
    ):
        if store is not None and not isinstance(store, UsageRatioStore):
            raise ConfigError(
                f"UsageCalibrator: store must have merge_usage_ratios and load_usage_ratios "
                f"(any ctxsieve store), got {type(store).__name__}"
            )
        self.store: UsageRatioStore = store if store is not None else MemoryUsageRatios()
        self.window = check_window(window)
        self.trim = _positive("trim", trim)
        if self.trim >= self.window:
            raise ConfigError(f"UsageCalibrator: trim ({trim}) must be below window ({window})")
        self.min_prompt_tokens = _positive("min_prompt_tokens", min_prompt_tokens, at_least=1)
        self.max_ratio = _positive("max_ratio", max_ratio, number=True, at_least=1)
        self.max_age = _positive("max_age", max_age, number=True)
        self._clock = clock
        self._lock = threading.Lock()
        self._known: dict[str, tuple[UsageRatios | None, float]] = {}  # key -> (state, when read)
        self._pending: dict[str, list[float]] = {}  # samples a failed merge still owes the store
        self.skipped: Counter[str] = Counter()
        self.notes: deque[str] = deque(maxlen=MAX_NOTES)

    def __repr__(self) -> str:
        return f"UsageCalibrator({self.store!r}, window={self.window}, trim={self.trim})"

    def _note(self, text: str) -> None:
        with self._lock:
            self.notes.append(text)

    def calibration(self, estimator: str, model: str) -> Calibration:
        """The factor to apply now: the state read from the store at most ``max_age`` ago."""
        key = identity_key(estimator, model)
        now = self._clock()
        with self._lock:
            known = self._known.get(key)
        if known is None or now - known[1] >= self.max_age:
            try:
                known = (self.store.load_usage_ratios(estimator, model), now)
            except ContextError as exc:  # a StoreError: keep the last factor read, and say so
                self._note(f"usage calibration of {model!r}: store read failed, kept the last factor ({exc})")
                known = (known[0] if known is not None else None, now)
            with self._lock:
                self._known[key] = known
        s = known[0]
        if s is None:
            return Calibration(estimator, model, 1.0, 0, 0, None)
        return Calibration(estimator, model, factor_of(s.ratios, self.trim), s.samples, len(s.ratios), s.updated)

    def observe(
        self, estimator: str, model: str, estimated: int, reported: Any, *, where: str = "a call"
    ) -> Observation:
        """Learn from one call: ``estimated`` prompt tokens (without the overhead reserve) and
        the input tokens the provider ``reported`` (None when it reported none)."""
        check_name("estimator", estimator)
        check_name("model", model)
        if isinstance(estimated, bool) or not isinstance(estimated, int) or estimated < 0:
            raise ConfigError(f"UsageCalibrator.observe: estimated must be an int >= 0, got {estimated!r}")
        if estimated < self.min_prompt_tokens:
            return self._skip("small", None)  # the common case: counted, no note
        if reported is None:
            return self._skip("missing", f"{where} ({model!r}): the provider reported no input tokens; not learnt")
        if isinstance(reported, bool) or not isinstance(reported, int) or reported <= 0:
            what = f"{type(reported).__name__} {reported!r:.40}"
            return self._skip(
                "invalid", f"{where} ({model!r}): reported input tokens {what} is not a count > 0; not learnt"
            )
        ratio = reported / estimated
        if not 1 / self.max_ratio <= ratio <= self.max_ratio:
            return self._skip(
                "outlier",
                f"{where} ({model!r}): reported {reported} input tokens for a prompt estimated at {estimated}"
                f" (ratio {ratio:.3f}, outside [1/{self.max_ratio:g}, {self.max_ratio:g}]):"
                " not this prompt's count; not learnt",
            )
        self._merge(estimator, model, ratio)
        return Observation(True, ratio, None, None)

    def _skip(self, reason: str, note: str | None) -> Observation:
        with self._lock:
            self.skipped[reason] += 1
            if note is not None:
                self.notes.append(note)
        return Observation(False, None, reason, note)

    def _merge(self, estimator: str, model: str, ratio: float) -> None:
        key = identity_key(estimator, model)
        with self._lock:
            batch = [*self._pending.pop(key, []), ratio][-self.window :]
        now = self._clock()
        try:
            state = self.store.merge_usage_ratios(estimator, model, batch, window=self.window, now=now)
        except ContextError as exc:
            with self._lock:
                self._pending[key] = [*batch, *self._pending.get(key, [])][-self.window :]
                self.notes.append(
                    f"usage calibration of {model!r}: store write failed, {len(batch)} samples pending ({exc})"
                )
            return
        with self._lock:
            self._known[key] = (state, now)

    def report(self) -> dict[str, Any]:
        """What the calibrator skipped (by reason), its recent notes and its settings."""
        with self._lock:
            return {
                "skipped": dict(self.skipped),
                "pending": sum(map(len, self._pending.values())),
                "notes": list(self.notes),
                "window": self.window,
                "trim": self.trim,
                "min_prompt_tokens": self.min_prompt_tokens,
            }


def checked_calibrator(calibrator: Any) -> UsageCalibrator | None:
    """``calibrator`` when it is a ``UsageCalibrator`` or None, else ConfigError."""
    if calibrator is not None and not isinstance(calibrator, UsageCalibrator):
        raise ConfigError(
            f"calibrator: expected a ctxsieve.tokenizers.UsageCalibrator or None, got {type(calibrator).__name__}"
        )
    return calibrator


__all__ = [
    "DEFAULT_MIN_PROMPT_TOKENS",
    "DEFAULT_TRIM",
    "DEFAULT_WINDOW",
    "Calibration",
    "Observation",
    "UsageCalibrator",
    "admitted_prompt",
    "checked_calibrator",
    "factor_of",
]
