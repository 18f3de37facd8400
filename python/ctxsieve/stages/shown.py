"""Session stage: mark the candidates a session's prompt already shows (after dedupe, before
the policy), with the dedupe kernel's own rules: the same normalised text, or 5-word shingle
containment at or above the engine's threshold; the same id counts when the content is the same
or a near-duplicate too.

History candidates are the transcript's (``in_transcript``): a session's prompt already holds
the conversation. A candidate that matches a shown item is ``already_shown:<turn>``, where
``turn`` is the call that first showed it; it is not sent again, and costs no budget. Within one
build the same id alone makes a duplicate, but across a session an id's content can change (an
edited page, a search tool's ``top:0``): a shown id whose content no longer matches is sent
again, so the model never reads only a stale copy, and the event ``shown_changed:<id>:<turn>``
says so.

>>> from ctxsieve.stages.candidates import Candidates
>>> from ctxsieve.types import ContextItem
>>> shown = [(ContextItem("a", "Refunds are accepted within thirty days."), 2)]
>>> cands = Candidates([ContextItem("b", "refunds are accepted within THIRTY days.")], [0], ["rag"])
>>> mark_shown(cands, shown, 0.8, []), cands.reasons
([0], ['already_shown:2'])
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxsieve import kernels
from ctxsieve.stages.candidates import Candidates
from ctxsieve.types import ContextItem


def mark_shown(
    cands: Candidates, shown: Sequence[tuple[ContextItem, int]], threshold: float | None, events: list[str]
) -> list[int]:
    """Write ``in_transcript`` and ``already_shown:<turn>`` into the undecided candidates'
    reasons and ``shown_changed`` into ``events``; returns, for each already-shown candidate,
    the index in ``shown`` it matched. ``threshold`` None (near-duplicate detection off) keeps
    only the same text."""
    reasons = cands.reasons
    todo = []
    for i, r in enumerate(reasons):
        if r is None:
            if cands.history[i]:
                reasons[i] = "in_transcript"
            else:
                todo.append(i)
    if not shown or not todo:
        return []
    matched = _exact(cands, shown, todo) if threshold is None else _near(cands, shown, todo, threshold)
    found = []
    for i, k in matched:
        reasons[i] = f"already_shown:{shown[k][1]}"
        found.append(k)
    by_id = {item.id: turn for item, turn in shown}
    events += [
        f"shown_changed:{cands.ids[i]}:{by_id[cands.ids[i]]}"
        for i in todo
        if reasons[i] is None and cands.ids[i] in by_id
    ]
    return found


def _exact(cands: Candidates, shown: Sequence[tuple[ContextItem, int]], todo: list[int]) -> list[tuple[int, int]]:
    by_hash: dict[int, int] = {}
    for k, (item, _) in enumerate(shown):
        h = kernels.content_hash(item.content)
        if h is not None:
            by_hash.setdefault(h, k)
    out = []
    for i in todo:
        h = kernels.content_hash(cands.texts[i])
        hit = by_hash.get(h) if h is not None else None
        if hit is not None:
            out.append((i, hit))
    return out


def _near(
    cands: Candidates, shown: Sequence[tuple[ContextItem, int]], todo: list[int], threshold: float
) -> list[tuple[int, int]]:
    # one kernel call: shown items go in pinned, so they are visited first and never dropped,
    # and a candidate that matches one comes back as its duplicate; a match between two
    # candidates is the engine's dedupe's business (it ran already) and is ignored here. Shown
    # items get ids no candidate can have ("\x00" + position): a shown id alone is no match
    m = len(shown)
    result = kernels.dedupe(
        [item.content for item, _ in shown] + [cands.texts[i] for i in todo],
        [f"\x00{k}" for k in range(m)] + [cands.ids[i] for i in todo],
        [0.0] * m + [cands.final[i] for i in todo],
        pinned=[True] * m + [False] * len(todo),
        threshold=threshold,
    )
    dup = result.duplicate_of
    return [(i, dup[m + j]) for j, i in enumerate(todo) if 0 <= dup[m + j] < m]
