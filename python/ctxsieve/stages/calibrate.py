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
from itertools import compress

from ctxsieve.kernels.build import calibrate_scores
from ctxsieve.kernels.build_reference import (
    HUMAN_REVIEWED_FACTOR,
    MODES,
    REVIEWED,
    STALE,
    STALE_FACTOR,
    minmax_scores,
    normalise,
    rank_scores,
    zscore_scores,
)
from ctxsieve.stages.candidates import DEPRECATED, HUMAN_REVIEWED, Candidates
from ctxsieve.types import Signals

# the trace's notes, made once: an f-string per marked item was a tenth of calibrate's time
STALE_NOTE = f"stale x{STALE_FACTOR:g}"
HUMAN_REVIEWED_NOTE = f"human-reviewed x{HUMAN_REVIEWED_FACTOR:g}"
# each combination of signal bits -> its notes, in the order apply_signals writes them
_NOTES = tuple(
    tuple(n for bit, n in ((STALE, STALE_NOTE), (REVIEWED, HUMAN_REVIEWED_NOTE), (DEPRECATED, "deprecated")) if m & bit)
    for m in range(8)
)


def calibrate(cands: Candidates, weights: Sequence[float], modes: Sequence[str]) -> None:
    """Fill ``cands.calibrated`` and ``cands.final``; ``weights[r]`` and ``modes[r]`` belong to
    the source of rank ``r``. One kernel call (``kernels.build.calibrate_scores``) normalises
    every source and applies the signals' factors; the signals' notes go into ``cands.notes``
    (shared tuples; a later stage's notes go into the adjustment log, ``Candidates.notes_of``
    reads both). This replaced
    ~15 numpy calls per source, a Python loop over the marked items and a list of notes per
    marked item: 1k candidates 0.31-0.46 -> 0.10 ms, 10k 2.4-4.6 -> 0.9 ms (CPU time, load 8)."""
    n = len(cands)
    if n == 0:
        return
    sigmask = cands.sigmask
    marked = list(compress(range(n), sigmask))  # signals are rare: visit only those
    masks = list(map(sigmask.__getitem__, marked))
    calibrated = calibrate_scores(cands.raw, cands.source_rank, modes, weights, marked, [m & 3 for m in masks])
    cands.notes.update(zip(marked, map(_NOTES.__getitem__, masks)))
    deprecated = cands.deprecated
    for i in compress(marked, [m & DEPRECATED for m in masks]):
        deprecated[i] = True
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


__all__ = [
    "HUMAN_REVIEWED_FACTOR",
    "MODES",
    "STALE_FACTOR",
    "apply_signals",
    "calibrate",
    "minmax_scores",
    "normalise",
    "rank_scores",
    "zscore_scores",
]
