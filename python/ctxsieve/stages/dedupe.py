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
    """Row ``kept`` takes what ``dropped``'s signals add to its own and to what it inherited
    before: written to ``cands.inherited_*`` (columns of ints, bools and strings: a new
    ``Signals`` per row kept GC-tracked objects alive, see ``Candidates``)."""
    give = cands.signals_of(dropped)
    if not (give.trust or give.stale or give.deprecated or give.citation):
        return
    have = cands.signals[kept]
    k = cands.inherited.get(kept)
    if k is None:
        trust, stale, deprecated, citation = have.trust, have.stale, have.deprecated, have.citation
    else:
        trust = have.trust if cands.inherited_trust[k] is None else cands.inherited_trust[k]
        stale = have.stale or cands.inherited_stale[k]
        deprecated = have.deprecated or cands.inherited_deprecated[k]
        citation = have.citation if cands.inherited_citation[k] is None else cands.inherited_citation[k]
    changes: list[str] = []
    if give.deprecated and not deprecated:
        changes.append("deprecated")
    if give.stale and not stale:
        changes.append("stale")
    if give.trust is not None and trust is None:
        changes.append("trust")
    if give.citation is not None and citation is None:
        changes.append("citation")
    if not changes:
        return
    if k is None:
        k = cands.inherited[kept] = len(cands.inherited_trust)
        cands.inherited_trust.append(None)
        cands.inherited_stale.append(False)
        cands.inherited_deprecated.append(False)
        cands.inherited_citation.append(None)
    dropped_id = cands.ids[dropped]
    for name in changes:
        cands.adjust(kept, f"inherited:{name}:{dropped_id}")
    if "trust" in changes:
        cands.inherited_trust[k] = give.trust
    if "stale" in changes:
        cands.inherited_stale[k] = True
    if "deprecated" in changes:
        cands.inherited_deprecated[k] = True
    if "citation" in changes:
        cands.inherited_citation[k] = give.citation
    # only the newly inherited signals move the score: the kept copy's own were applied already
    delta = Signals(
        trust=give.trust if "trust" in changes else None,
        stale="stale" in changes,
        deprecated="deprecated" in changes,
    )
    cands.final[kept] = apply_signals(cands, kept, delta, cands.final[kept], inherited=True)
