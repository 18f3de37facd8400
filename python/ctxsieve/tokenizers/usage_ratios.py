"""What the usage calibrator keeps per (estimator, model), the store protocol that holds it for a
fleet, and the in-process store used when no shared one is given.

A sample is one call's ratio of the tokens the provider reported to the estimator's count of
the same prompt. A store keeps, per (estimator, model), the most recent ``window`` ratios
(oldest first), how many were ever merged and when the last merge happened. Merging is atomic:
several workers appending at once each keep their samples, and every worker then reads the same
window (``UsageRatioStore.merge_usage_ratios``).

The estimator name and the model name are identities. They are never altered to fit a backend:
stores key them by ``identity_key`` (JSON with ASCII escapes, a bijection, so NUL, lone
surrogates and any script come back exactly) and its SHA-256 (``identity_hash``, so a 50,000-char
name never meets an index's key-size limit). Only a name that is empty, not a ``str`` or longer
than ``MAX_NAME`` characters is refused, with a ``ConfigError`` saying which and why.

>>> store = MemoryUsageRatios()
>>> store.merge_usage_ratios("calibrated:o200k", "gpt-4o", [1.1, 1.2, 1.3], window=2, now=5.0)
UsageRatios(estimator='calibrated:o200k', model='gpt-4o', ratios=(1.2, 1.3), samples=3, updated=5.0)
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ctxsieve.errors import ConfigError

# A longer "model name" is a bug upstream (a prompt passed as the model), not a model.
MAX_NAME = 65_536
# No window may hold more samples: the state is rewritten whole on every merge.
MAX_WINDOW = 4096


@dataclass(frozen=True)
class UsageRatios:
    """The stored usage state of one (estimator, model): the recent ``ratios`` (reported /
    estimated prompt tokens, oldest first), ``samples`` ever merged, ``updated`` (seconds since
    the epoch of the last merge)."""

    estimator: str
    model: str
    ratios: tuple[float, ...]
    samples: int
    updated: float


@runtime_checkable
class UsageRatioStore(Protocol):
    """What the usage calibrator needs of a store; SQLite, Redis and PostgreSQL implement it."""

    def merge_usage_ratios(
        self, estimator: str, model: str, ratios: Sequence[float], *, window: int, now: float
    ) -> UsageRatios:
        """Append ``ratios`` to the (estimator, model) state atomically, keep the last
        ``window`` of all it holds, add their number to ``samples``, set ``updated`` to ``now``
        (never back in time); return the merged state."""
        ...

    def load_usage_ratios(self, estimator: str, model: str) -> UsageRatios | None:
        """The stored state, or None when nothing was merged for that pair."""
        ...


def check_name(kind: str, value: object) -> str:
    """``value`` when it can be an identity of the calibration state, else ConfigError.

    >>> check_name("model", "claude-sonnet-4-5")
    'claude-sonnet-4-5'
    >>> check_name("model", "")
    Traceback (most recent call last):
    ...
    ctxsieve.errors.ConfigError: usage calibration: model name must be a non-empty str, got ''
    """
    if not isinstance(value, str) or not value:
        raise ConfigError(f"usage calibration: {kind} name must be a non-empty str, got {value!r:.80}")
    if len(value) > MAX_NAME:
        raise ConfigError(
            f"usage calibration: {kind} name is {len(value)} characters, at most {MAX_NAME} (it starts {value[:40]!r})"
        )
    return value


def identity_key(estimator: str, model: str) -> str:
    """The stored key of a pair: ``json.dumps([estimator, model])`` in ASCII, which reads back as
    exactly the two strings (any code point, lone surrogates and NUL included).

    >>> identity_key("bytes/3", "模型\\x00")
    '["bytes/3", "\\\\u6a21\\\\u578b\\\\u0000"]'
    """
    return json.dumps([check_name("estimator", estimator), check_name("model", model)], ensure_ascii=True)


def identity_hash(key: str) -> str:
    """SHA-256 of an ``identity_key``, hex: a fixed-size primary key for any name's length."""
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def check_ratios(ratios: Sequence[float]) -> list[float]:
    """The ratios as floats, each finite and > 0, else ConfigError (a store keeps only those)."""
    out = []
    for i, r in enumerate(ratios):
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) or r <= 0:
            raise ConfigError(f"usage calibration: ratio {i} must be a finite number > 0, got {r!r}")
        out.append(float(r))
    return out


def check_window(window: object) -> int:
    if isinstance(window, bool) or not isinstance(window, int) or not 1 <= window <= MAX_WINDOW:
        raise ConfigError(f"usage calibration: window must be an int in [1, {MAX_WINDOW}], got {window!r}")
    return window


def checked_merge(
    estimator: str, model: str, ratios: Sequence[float], window: int, now: float
) -> tuple[str, list[float], int, float]:
    """What every backend checks before a merge: (identity key, ratios, window, now)."""
    key = identity_key(estimator, model)
    if isinstance(now, bool) or not isinstance(now, (int, float)) or not math.isfinite(now):
        raise ConfigError(f"usage calibration: now must be a finite number of seconds, got {now!r}")
    return key, check_ratios(ratios), check_window(window), float(now)


def merged(
    old: UsageRatios | None, estimator: str, model: str, ratios: list[float], window: int, now: float
) -> UsageRatios:
    """The state after one merge, from the state before (the backends that merge in Python)."""
    prior = old.ratios if old is not None else ()
    return UsageRatios(
        estimator,
        model,
        tuple([*prior, *ratios][-window:]),
        (old.samples if old is not None else 0) + len(ratios),
        max(now, old.updated) if old is not None else now,
    )


class MemoryUsageRatios:
    """A ``UsageRatioStore`` in this process's memory: what a calibrator without a store uses
    (the conversations of one process share it when they share the calibrator)."""

    def __init__(self) -> None:
        self._states: dict[str, UsageRatios] = {}
        self._lock = threading.Lock()

    def merge_usage_ratios(
        self, estimator: str, model: str, ratios: Sequence[float], *, window: int, now: float
    ) -> UsageRatios:
        key, checked, window, now = checked_merge(estimator, model, ratios, window, now)
        with self._lock:
            state = merged(self._states.get(key), estimator, model, checked, window, now)
            self._states[key] = state
        return state

    def load_usage_ratios(self, estimator: str, model: str) -> UsageRatios | None:
        return self._states.get(identity_key(estimator, model))

    def __repr__(self) -> str:
        return f"MemoryUsageRatios({len(self._states)} pairs)"


__all__ = [
    "MAX_NAME",
    "MAX_WINDOW",
    "MemoryUsageRatios",
    "UsageRatioStore",
    "UsageRatios",
    "check_name",
    "checked_merge",
    "identity_hash",
    "identity_key",
    "merged",
]
