"""Stage 2: make scores from different sources comparable, then apply weights and signals.

A cosine of 0.82, a BM25 score of 14 and "the third most recent turn" mean nothing side by
side, so each source's raw scores are normalised within that source to [0, 1]:

* ``rank`` (the default): ``1 - r / n`` where ``r`` is the 0-based rank (ties share the best
  rank) among the source's ``n`` candidates; only the order a source gives matters.
* ``minmax``: ``(s - min) / (max - min)``; all equal gives 1.
* ``zscore``: the logistic of ``(s - mean) / std``; all equal gives 0.5 (no evidence either way).
* ``blend``: the mean of ``rank`` and ``minmax``; keeps the order and some of the gaps.
* ``raw``: the source's scores as they are (for sources that already score on [0, 1]).

Then ``x weight`` of the source, and the signals, each recorded as an adjustment in the trace:
stale ``x0.7``, trust ``"human-reviewed"`` ``x1.1``, deprecated marked (the policy leaves it out).

>>> rank_scores([3.0, 9.0, 9.0, 1.0]).tolist()
[0.5, 1.0, 1.0, 0.25]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ctxsieve.stages.candidates import Candidates
from ctxsieve.types import NO_SIGNALS, Signals

MODES = ("rank", "minmax", "zscore", "blend", "raw")
STALE_FACTOR = 0.7
HUMAN_REVIEWED_FACTOR = 1.1
HUMAN_REVIEWED = "human-reviewed"
# the trace's notes, made once: an f-string per marked item was a tenth of calibrate's time
STALE_NOTE = f"stale x{STALE_FACTOR:g}"
HUMAN_REVIEWED_NOTE = f"human-reviewed x{HUMAN_REVIEWED_FACTOR:g}"


def rank_scores(raw: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(raw, dtype=np.float64)
    n = a.size
    if n == 0:
        return a
    order = np.argsort(-a, kind="stable")
    ranked = a[order]
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=starts[1:])
    # the rank of each sorted position is the position where its run of equal values starts
    first = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = first
    return 1.0 - ranks / n


def minmax_scores(raw: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(raw, dtype=np.float64)
    if a.size == 0:
        return a
    lo, hi = a.min(), a.max()
    if hi == lo:
        return np.ones_like(a)
    return (a - lo) / (hi - lo)


def zscore_scores(raw: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(raw, dtype=np.float64)
    if a.size == 0:
        return a
    std = a.std()
    if std == 0:
        return np.full_like(a, 0.5)
    return 1.0 / (1.0 + np.exp(-(a - a.mean()) / std))


def normalise(raw: Sequence[float] | np.ndarray, mode: str) -> np.ndarray:
    if mode == "rank":
        return rank_scores(raw)
    if mode == "minmax":
        return minmax_scores(raw)
    if mode == "zscore":
        return zscore_scores(raw)
    if mode == "blend":
        return (rank_scores(raw) + minmax_scores(raw)) / 2.0
    if mode == "raw":
        return np.asarray(raw, dtype=np.float64)
    raise ValueError(f"unknown calibration mode {mode!r}; expected one of {', '.join(MODES)}")


def calibrate(cands: Candidates, weights: Sequence[float], modes: Sequence[str]) -> None:
    """Fill ``cands.calibrated`` and ``cands.final``; ``weights[r]`` and ``modes[r]`` belong to
    the source of rank ``r``."""
    n = len(cands)
    if n == 0:
        return
    raw = np.asarray(cands.raw, dtype=np.float64)
    ranks = np.asarray(cands.source_rank, dtype=np.intp)
    out = np.empty(n, dtype=np.float64)
    for r in np.unique(ranks).tolist():
        members = np.flatnonzero(ranks == r)
        out[members] = normalise(raw[members], modes[r]) * weights[r]
    calibrated = out.tolist()
    # signals are rare: find the items that carry one, then visit only those
    marked = [
        i for i, sig in enumerate(cands.signals) if sig is not NO_SIGNALS and (sig.stale or sig.deprecated or sig.trust)
    ]
    signals = cands.signals
    for i in marked:
        calibrated[i] = apply_signals(cands, i, signals[i], calibrated[i])
    cands.calibrated = calibrated
    cands.final = list(calibrated)


def apply_signals(cands: Candidates, i: int, sig: Signals, score: float, inherited: bool = False) -> float:
    """Score ``score`` after the signals in ``sig``, noting each in the trace. An inherited
    deprecation is already noted as ``inherited:deprecated:<id>``, so it gets no second note."""
    if sig.stale:
        score *= STALE_FACTOR
        cands.adjust(i, STALE_NOTE)
    if sig.trust == HUMAN_REVIEWED:
        score *= HUMAN_REVIEWED_FACTOR
        cands.adjust(i, HUMAN_REVIEWED_NOTE)
    if sig.deprecated:
        cands.deprecated[i] = True
        if not inherited:
            cands.adjust(i, "deprecated")
    return score
