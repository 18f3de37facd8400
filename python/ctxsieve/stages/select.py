"""Stage 5: the policy fills the budget with what survived deduplication."""

from __future__ import annotations

from ctxsieve.errors import ContextError
from ctxsieve.kernels import FILL_REASONS
from ctxsieve.stages.candidates import Candidates
from ctxsieve.stages.policies import Policy, Pool
from ctxsieve.types import INCLUDED_REASONS, Budget

_KNOWN = frozenset(FILL_REASONS)


def select(cands: Candidates, policy: Policy, budget: Budget) -> list[int]:
    """Write the policy's reason into ``cands.reasons`` for every undecided item; returns the
    indices of the included items, in candidate order."""
    open_ = [i for i, r in enumerate(cands.reasons) if r is None]
    if len(open_) == len(cands):
        pool = Pool(cands.ids, cands.sources, cands.tokens, cands.final, cands.pinned, cands.deprecated)  # type: ignore[arg-type]
    else:
        pool = Pool(
            [cands.ids[i] for i in open_],
            [cands.sources[i] for i in open_],
            [cands.tokens[i] for i in open_],  # type: ignore[misc]
            [cands.final[i] for i in open_],
            [cands.pinned[i] for i in open_],
            [cands.deprecated[i] for i in open_],
        )
    reasons = policy.select(pool, budget)
    if len(reasons) != len(open_):
        raise ContextError(f"policy {policy!r} returned {len(reasons)} reasons for {len(open_)} candidates")
    unknown = set(reasons) - _KNOWN
    if unknown:
        raise ContextError(f"policy {policy!r} returned unknown reasons {sorted(unknown)}; expected {FILL_REASONS}")
    out = cands.reasons
    included = []
    for i, r in zip(open_, reasons):
        out[i] = r
        if r in INCLUDED_REASONS:
            included.append(i)
    return included
