"""Stage 1: the token cost of every candidate, computed once per distinct text.

The engine counts with one ``ctxsieve.tokenizers.Estimator`` (``resolve_estimator`` turns its
``estimator=`` into one); the estimator's per-text cache makes a repeated candidate (the same
system prompt, the same history turn on every call) one dict lookup. A source's own ``tokens=``
is kept as given.

>>> from ctxsieve.tokenizers import resolve_estimator
>>> from ctxsieve.types import ContextItem
>>> cands = Candidates([ContextItem("a", "abcdef"), ContextItem("b", "x", tokens=9)], [0, 0], ["kb"])
>>> estimate(cands, resolve_estimator("bytes/3"))
>>> cands.tokens
[2, 9]
"""

from __future__ import annotations

from ctxsieve.stages.candidates import Candidates
from ctxsieve.tokenizers.estimator import Estimator


def estimate(cands: Candidates, estimator: Estimator) -> None:
    """Fill ``cands.tokens`` where the source left it None (one estimator call per build)."""
    known = cands.tokens
    if None not in known:
        return
    todo = [i for i, t in enumerate(known) if t is None]
    if len(todo) == len(known):
        cands.tokens = estimator.count(cands.texts)  # type: ignore[assignment]
        return
    for i, c in zip(todo, estimator.count([cands.texts[i] for i in todo])):
        known[i] = c
