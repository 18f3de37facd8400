"""Policies: how the deduplicated candidates fill the budget.

All three take the same ``Pool`` and ``Budget`` and return one reason per candidate, so an eval
compares them as equals. Included: ``pinned``, ``min_items``, ``selected``; excluded:
``deprecated``, ``below_floor``, ``source_cap``, ``budget``. Each is one ``kernels.fill_budget``
call (FixedSlots is the same fill with a cap per source), except ``Everything`` without
truncation, which only checks that everything fits.

>>> pool = Pool(["a", "b", "c"], ["faq", "faq", "web"], [40, 40, 40], [0.9, 0.8, 0.7])
>>> ScoredKnapsack().select(pool, Budget(100))
['selected', 'selected', 'budget']
>>> FixedSlots({"faq": 0.5, "web": 0.5}).select(pool, Budget(100))
['selected', 'source_cap', 'selected']
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ctxsieve import kernels
from ctxsieve.errors import BudgetExceededError, ConfigError
from ctxsieve.types import Budget


@dataclass(frozen=True)
class Pool:
    """The candidates a policy chooses from, as parallel lists."""

    ids: list[str]
    sources: list[str]
    tokens: list[int]
    scores: list[float]
    pinned: list[bool] = field(default_factory=list)
    deprecated: list[bool] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.ids)
        if not self.pinned:
            object.__setattr__(self, "pinned", [False] * n)
        if not self.deprecated:
            object.__setattr__(self, "deprecated", [False] * n)


@runtime_checkable
class Policy(Protocol):
    """Anything with ``select(pool, budget) -> list[str]`` (one reason per pool item)."""

    name: str

    def select(self, pool: Pool, budget: Budget) -> list[str]: ...


def _check_score(name: str, value: float | None, allow_none: bool) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{name}: must be a finite number, got {value!r}")


class ScoredKnapsack:
    """One budget for every source on calibrated scores, with per-source caps and minimums.

    ``beta`` > 0 ranks by ``score / tokens**beta`` (value per token); the default 0 ranks by
    score alone. ``min_score`` excludes what scores below it (``below_floor``).
    """

    name = "scored_knapsack"

    def __init__(self, beta: float = 0.0, min_score: float | None = None, include_deprecated: bool = False):
        _check_score("beta", beta, allow_none=False)
        if beta < 0:
            raise ConfigError(f"beta: must be >= 0, got {beta!r}")
        _check_score("min_score", min_score, allow_none=True)
        self.beta = float(beta)
        self.min_score = min_score
        self.include_deprecated = include_deprecated

    def __repr__(self) -> str:
        return f"ScoredKnapsack(beta={self.beta:g}, min_score={self.min_score!r})"

    def select(self, pool: Pool, budget: Budget) -> list[str]:
        return _fill(pool, budget, budget.caps, self.beta, self.min_score, self.include_deprecated)


class FixedSlots:
    """A fixed share of the budget per source, each filled best first.

    Sources missing from ``shares`` split what the listed shares leave equally. Pinned items
    and per-source minimums still go in first.
    """

    name = "fixed_slots"

    def __init__(self, shares: Mapping[str, float], include_deprecated: bool = False):
        for source, share in shares.items():
            _check_score(f"shares[{source!r}]", share, allow_none=False)
            if share < 0:
                raise ConfigError(f"shares[{source!r}]: must be >= 0, got {share!r}")
        total = sum(shares.values())
        if total > 1 + 1e-9:
            raise ConfigError(f"shares: must sum to at most 1, got {total:g}")
        self.shares = dict(shares)
        self.include_deprecated = include_deprecated

    def __repr__(self) -> str:
        return f"FixedSlots({self.shares!r})"

    def select(self, pool: Pool, budget: Budget) -> list[str]:
        present = list(dict.fromkeys(pool.sources))
        unlisted = [s for s in present if s not in self.shares]
        rest = max(0.0, 1.0 - sum(self.shares.values()))
        caps: dict[str, int] = {}
        for s in present:
            share = self.shares[s] if s in self.shares else rest / len(unlisted)
            cap = math.floor(share * budget.total)
            caps[s] = min(cap, budget.caps[s]) if s in budget.caps else cap
        return _fill(pool, budget, caps, 0.0, None, self.include_deprecated)


class Everything:
    """Every candidate, or ``BudgetExceededError`` naming them all when they do not fit.

    ``truncate=True`` fills by score instead (the control: what stuffing it all in costs).
    """

    name = "everything"

    def __init__(self, truncate: bool = False, include_deprecated: bool = False):
        self.truncate = truncate
        self.include_deprecated = include_deprecated

    def __repr__(self) -> str:
        return f"Everything(truncate={self.truncate})"

    def select(self, pool: Pool, budget: Budget) -> list[str]:
        if self.truncate:
            return _fill(pool, budget, None, 0.0, None, self.include_deprecated)
        # a pinned item goes in even when deprecated, as in the kernel's fill (truncate=True)
        keep = [self.include_deprecated or not d or p for d, p in zip(pool.deprecated, pool.pinned)]
        total = sum(t for t, k in zip(pool.tokens, keep) if k)
        if total > budget.total:
            items = [(i, t) for i, t, k in zip(pool.ids, pool.tokens, keep) if k]
            shown = ", ".join(f"{i} ({t} tokens)" for i, t in items[:20])
            more = f" and {len(items) - 20} more" if len(items) > 20 else ""
            raise BudgetExceededError(
                f"Everything: {len(items)} candidates need {total} tokens but the budget is {budget.total} "
                f"(use truncate=True to fill by score): {shown}{more}",
                items,
                budget.total,
            )
        return [("pinned" if p else "selected") if k else "deprecated" for p, k in zip(pool.pinned, keep)]


def _fill(
    pool: Pool,
    budget: Budget,
    caps: Mapping[str, int] | None,
    beta: float,
    min_score: float | None,
    include_deprecated: bool,
) -> list[str]:
    return kernels.fill_reasons(
        pool.tokens,
        pool.scores,
        pool.sources,
        budget.total,
        ids=pool.ids,
        pinned=pool.pinned,
        deprecated=pool.deprecated,
        beta=beta,
        min_score=min_score,
        caps=caps,
        min_items=budget.min_items,
        include_deprecated=include_deprecated,
    )


POLICIES = {"scored_knapsack": ScoredKnapsack, "fixed_slots": FixedSlots, "everything": Everything}
