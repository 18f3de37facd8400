"""Stage 5: the policy fills the budget with what survived deduplication.

``reserve`` tokens of the budget (the framing of the messages the window may open, from
``stages.cost.framing_reserve``) are set aside first: the policy fills what is left.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from itertools import compress

from ctxsieve.errors import BudgetExceededError, ContextError
from ctxsieve.kernels import FILL_REASONS
from ctxsieve.kernels.build import fill_open
from ctxsieve.stages.candidates import Candidates
from ctxsieve.stages.policies import Policy, Pool, ScoredKnapsack
from ctxsieve.types import INCLUDED_REASONS, Budget

_KNOWN = frozenset(FILL_REASONS)
_INCLUDED = frozenset(INCLUDED_REASONS)


def select(cands: Candidates, policy: Policy, budget: Budget, reserve: int = 0) -> list[int]:
    """Write the policy's reason into ``cands.reasons`` for every undecided item; returns the
    indices of the included items, in candidate order."""
    if type(policy) is ScoredKnapsack:
        return _knapsack(cands, policy, budget, reserve)
    reasons_now = cands.reasons
    if reasons_now.count(None) == len(reasons_now):
        open_ = list(range(len(reasons_now)))  # nothing decided yet: no pass over the reasons
    else:
        open_ = [i for i, r in enumerate(reasons_now) if r is None]
    if reserve >= budget.total:
        return _no_room(cands, open_, budget, reserve)
    room = Budget(budget.total - reserve, budget.caps, budget.min_items) if reserve else budget
    columns = (cands.ids, cands.sources, cands.tokens, cands.final, cands.pinned, cands.deprecated)
    if len(open_) == len(cands):
        pool = Pool(*columns)  # type: ignore[arg-type]
    else:
        # compress (a C loop) rather than a comprehension per column: 6 x 0.4 ms at 10k
        undecided = [r is None for r in reasons_now]
        pool = Pool(*(list(compress(c, undecided)) for c in columns))  # type: ignore[arg-type]
    with _framing_named(budget, reserve):
        reasons = policy.select(pool, room)
    if len(reasons) != len(open_):
        raise ContextError(f"policy {policy!r} returned {len(reasons)} reasons for {len(open_)} candidates")
    if not _KNOWN.issuperset(reasons):
        unknown = set(reasons) - _KNOWN
        raise ContextError(f"policy {policy!r} returned unknown reasons {sorted(unknown)}; expected {FILL_REASONS}")
    # C loops (slice assignment, map, compress) rather than one Python loop over every reason
    if len(open_) == len(reasons_now):
        reasons_now[:] = reasons
        return list(compress(range(len(reasons)), map(_INCLUDED.__contains__, reasons)))
    for i, r in zip(open_, reasons):
        reasons_now[i] = r
    return list(compress(open_, map(_INCLUDED.__contains__, reasons)))


def _knapsack(cands: Candidates, policy: ScoredKnapsack, budget: Budget, reserve: int) -> list[int]:
    """The built-in policy's fill, straight over the build's columns (``kernels.build.fill_open``):
    the same reasons as ``policy.select`` on the ``Pool`` of the undecided rows, without the
    pool's six column copies, the source names' coding, the reasons' checks and the search for
    the included: select at 1k 0.49 -> 0.20 ms, 10k 5.3 -> 2.1 ms, 100k 74 -> 47 ms (CPU,
    median of 31, load 8). The rows come source by source, so their source ranks number the
    sources as the pool's first appearances would (the fill takes source minimums in that order).
    A policy of another type, a subclass included, gets the ``Pool``."""
    if reserve >= budget.total:
        open_ = [i for i, r in enumerate(cands.reasons) if r is None]
        return _no_room(cands, open_, budget, reserve)
    caps, mins = budget.caps, budget.min_items
    names = cands.names
    with _framing_named(budget, reserve):
        return fill_open(
            cands.tokens,  # type: ignore[arg-type]
            cands.final,
            cands.source_rank,
            cands.pinned,
            cands.deprecated,
            cands.ids,
            cands.reasons,
            budget.total - reserve,
            caps=[caps.get(s, -1) for s in names] if caps else [-1] * len(names),
            min_items=[mins.get(s, 0) for s in names] if mins else [0] * len(names),
            beta=policy.beta,
            min_score=policy.min_score,
            include_deprecated=policy.include_deprecated,
        )


@contextmanager
def _framing_named(budget: Budget, reserve: int) -> Iterator[None]:
    """A ``BudgetExceededError`` from the fill, saying that ``reserve`` tokens of message framing
    came off the budget first (when any did)."""
    try:
        yield
    except BudgetExceededError as exc:
        if not reserve:
            raise
        raise BudgetExceededError(
            f"{exc} (the budget of {budget.total} less {reserve} tokens of message framing)", exc.items, budget.total
        ) from None


def _no_room(cands: Candidates, open_: list[int], budget: Budget, reserve: int) -> list[int]:
    # the framing alone fills the budget (a budget of a few tokens): nothing fits, and a pinned
    # item, which must go in, cannot
    pinned = [(cands.ids[i], cands.tokens[i] or 0) for i in open_ if cands.pinned[i]]
    if pinned:
        listing = ", ".join(f"{i} ({t} tokens)" for i, t in pinned[:20])
        raise BudgetExceededError(
            f"pinned items need {sum(t for _, t in pinned)} tokens but the budget of {budget.total} is taken by"
            f" {reserve} tokens of message framing: {listing}",
            pinned,
            budget.total,
        )
    for i in open_:
        cands.reasons[i] = "budget"
    return []
