"""Stage 3 (optional): rescore the best candidates with a model and blend the scores.

The ``top_n`` non-pinned candidates by calibrated score (ties by id) go to the scorer in one
call; each gets ``final = (1 - alpha) * calibrated + alpha * model`` and the adjustment
``llm <score>``. On failure every final score stays calibrated and the returned event is
``scorer_fallback:<reason>``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from ctxsieve.errors import ContextError
from ctxsieve.stages.candidates import Candidates


class ScorerError(ContextError):
    """The model's scores are unusable; ``reason`` goes into ``scorer_fallback:<reason>``.
    Defined here, with the stage that reads it, so that ``ctxsieve.scorer`` (the engine's
    ``LLMScorer``) raises the stage's error rather than the stage importing the engine."""

    def __init__(self, reason: str):
        super().__init__(f"scorer failed: {reason}")
        self.reason = reason


async def rescore(cands: Candidates, scorer: Any, query: str) -> str | None:
    """Blend the scorer's scores into ``cands.final``; returns a fallback event or None."""
    calibrated, ids = cands.calibrated, cands.ids
    pool = [i for i, p in enumerate(cands.pinned) if not p]
    if not pool:
        return None
    pool.sort(key=lambda i: (-calibrated[i], ids[i]))
    top = pool[: scorer.top_n]
    try:
        scores = await scorer.score(query, [cands.texts[i] for i in top])
    except ScorerError as exc:
        return f"scorer_fallback:{exc.reason}"
    except Exception as exc:  # a custom scorer's failure degrades like LLMScorer's
        return f"scorer_fallback:error:{type(exc).__name__}"
    # a custom scorer's answer is checked as LLMScorer checks the model's: a NaN or a string
    # would otherwise reach the policy and fail the whole build
    try:
        scores = list(scores)
    except TypeError:
        return "scorer_fallback:unparseable"
    if len(scores) != len(top):
        return f"scorer_fallback:wrong_count:{len(scores)}/{len(top)}"
    if not all(isinstance(s, numbers.Real) and not isinstance(s, bool) for s in scores):
        return "scorer_fallback:unparseable"
    if not all(math.isfinite(s) for s in scores):
        return "scorer_fallback:out_of_range"
    alpha = scorer.alpha
    for i, s in zip(top, scores):
        s = float(s)
        cands.final[i] = (1 - alpha) * calibrated[i] + alpha * s
        cands.adjust(i, f"llm {s:.2f}")
    return None
