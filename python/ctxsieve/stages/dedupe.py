"""Stage 4: drop exact and near-duplicates; the copy that stays inherits the signals.

One kernel call over all candidates (``kernels.dedupe``: same id, same normalised text, or
5-word shingle containment >= threshold). A dropped item's reason is ``duplicate_of:<kept id>``.
The kept copy then takes the dropped copy's signals in the kernel's visit order: deprecated
and stale are OR-ed, trust and citation filled when unset; each change is noted
``inherited:<field>:<dropped id>`` and a newly inherited stale or human-reviewed signal moves
the kept copy's final score like its own would have. So a RAG chunk of a policy that the
knowledge base marks deprecated goes out with it. History is never deduplicated.

With a ``memo`` (``stages.dedupe_memo``, native only) the kernel's decisions come from the texts
seen in earlier builds, the same decisions as without it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ctxsieve import kernels
from ctxsieve.kernels.gate import ungated
from ctxsieve.stages.calibrate import apply_signals
from ctxsieve.stages.candidates import Candidates
from ctxsieve.types import NO_SIGNALS, Signals


def dedupe(cands: Candidates, threshold: float | None = 0.8, memo: Any = None) -> int:
    """Mark duplicates in ``cands.reasons``; returns how many were dropped. ``None`` disables.
    ``memo``: a ``_native.DedupeMemo`` for ``threshold`` (``DedupeMemos.get``), or None."""
    if threshold is None or len(cands) < 2:
        return 0
    res = kernel(cands, threshold, memo)
    dup, ids, reasons, signals = res.duplicate_of, cands.ids, cands.reasons, cands.signals
    # the visit order walked here rather than `res.inheritance`: its (kept, dropped) tuples are
    # GC-tracked, and at 100k candidates their 15k set off most of the build's collections
    # (each one walking the build's young column lists: ~60 ms of a 650 ms build). The dropped
    # rows are picked out of the visit by a comprehension, and only they are visited by the
    # loop: 10k rows, 1.1k dropped, in cache 0.28-0.35 -> 0.17 ms. Lost: picking them by map
    # and compress instead, 0.79 ms (map(dup.__getitem__) and map(operator.ge) cost more than
    # the loop's own compares on CPython 3.11)
    dropped_count = 0
    for dropped in [i for i in res.visit_order if dup[i] >= 0]:
        kept = dup[dropped]
        dropped_count += 1
        reasons[dropped] = f"duplicate_of:{ids[kept]}"
        give = signals[dropped]
        # most copies carry no signal (``NO_SIGNALS``, or a ``Signals()`` of their own): nothing
        # to inherit, told here without a call (``inherit`` asks the same first)
        if give is not NO_SIGNALS and (give.trust or give.stale or give.deprecated or give.citation):
            inherit(cands, kept, dropped)
    return dropped_count


def kernel(cands: Candidates, threshold: float, memo: Any) -> kernels.DedupeResult:
    """The kernel's decisions, from the memo when there is one (benches time this call)."""
    if memo is None:
        return kernels.dedupe(
            cands.texts, cands.ids, cands.final, pinned=cands.pinned, history=cands.history, threshold=threshold
        )
    cols = [
        c if type(c) is list else list(c) for c in (cands.texts, cands.ids, cands.final, cands.pinned, cands.history)
    ]
    with ungated():  # as kernels.dedupe: the other builds of a build_many run their Python meanwhile
        dup, order, _ = memo.dedupe(*cols)
    return kernels.DedupeResult(dup, order)


def inherit(cands: Candidates, kept: int, dropped: int) -> None:
    have, give = cands.signals[kept], cands.signals[dropped]
    if give is have or not (give.trust or give.stale or give.deprecated or give.citation):
        return
    changes: dict[str, object] = {}
    if give.deprecated and not have.deprecated:
        changes["deprecated"] = True
    if give.stale and not have.stale:
        changes["stale"] = True
    if give.trust is not None and have.trust is None:
        changes["trust"] = give.trust
    if give.citation is not None and have.citation is None:
        changes["citation"] = give.citation
    if not changes:
        return
    dropped_id = cands.ids[dropped]
    for name in changes:
        cands.adjust(kept, f"inherited:{name}:{dropped_id}")
    if type(have) is Signals:  # its constructor, not dataclasses.replace: 1.5 -> 0.53 us, ~150 calls at 10k
        cands.signals[kept] = Signals(
            changes.get("trust", have.trust),  # type: ignore[arg-type]
            changes.get("stale", have.stale),  # type: ignore[arg-type]
            changes.get("deprecated", have.deprecated),  # type: ignore[arg-type]
            changes.get("citation", have.citation),  # type: ignore[arg-type]
        )
    else:
        cands.signals[kept] = dataclasses.replace(have, **changes)  # type: ignore[arg-type]
    # only the newly inherited signals move the score: the kept copy's own were applied already
    delta = Signals(
        trust=changes.get("trust"),  # type: ignore[arg-type]
        stale=bool(changes.get("stale", False)),
        deprecated=bool(changes.get("deprecated", False)),
    )
    cands.final[kept] = apply_signals(cands, kept, delta, cands.final[kept], inherited=True)
