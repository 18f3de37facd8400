"""The engine's configuration, checked once when it is built: budget, policy, scorer, options."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxsieve.errors import ConfigError
from ctxsieve.sources.base import SourceConfig
from ctxsieve.stages.policies import POLICIES, Policy, ScoredKnapsack
from ctxsieve.types import LAYOUTS, Budget, Layout


def source_configs(sources: Sequence[Any]) -> list[SourceConfig]:
    configs = [s if isinstance(s, SourceConfig) else SourceConfig(s) for s in sources]
    seen: set[str] = set()
    for c in configs:
        if c.name in seen:
            raise ConfigError(f"duplicate source name {c.name!r}")
        seen.add(c.name)
    return configs


def merged_budget(budget: int | Budget, configs: Sequence[SourceConfig]) -> Budget:
    """``budget`` with each source's ``max_tokens`` and ``min_items`` merged in: a
    ``SourceConfig``'s own setting wins over the ``Budget``'s, which wins over what the source
    declares for itself (a ``HistorySource``'s ``min_items``: its newest unit, always)."""
    base = budget if isinstance(budget, Budget) else Budget(budget)
    caps, mins = dict(base.caps), dict(base.min_items)
    for c in configs:
        if c.max_tokens is not None:
            caps[c.name] = c.max_tokens
        if c.min_items is not None:
            mins[c.name] = c.min_items
        elif c.declared_min_items:
            mins.setdefault(c.name, c.declared_min_items)
    return Budget(base.total, caps, {k: v for k, v in mins.items() if v})


def resolve_policy(policy: Policy | str | None) -> Policy:
    if policy is None:
        return ScoredKnapsack()
    if isinstance(policy, str):
        if policy not in POLICIES or policy == "fixed_slots":
            known = "'scored_knapsack', 'everything' (fixed_slots needs shares: pass FixedSlots(...))"
            raise ConfigError(f"policy: unknown policy {policy!r}; by name: {known}")
        return POLICIES[policy]()  # type: ignore[no-any-return]
    if isinstance(policy, type):
        raise ConfigError(f"policy: pass an instance, e.g. {policy.__name__}(), not the class")
    if not callable(getattr(policy, "select", None)):
        raise ConfigError(f"policy: {policy!r} has no select(pool, budget) method")
    return policy


def check_layout(layout: Any, where: str = "layout") -> Layout:
    if layout not in LAYOUTS:
        raise ConfigError(f"{where}: must be 'seed' or 'cache', got {layout!r}")
    return layout  # type: ignore[no-any-return]


def check_threshold(threshold: Any) -> float | None:
    if threshold is not None and (
        isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1
    ):
        raise ConfigError(f"dedupe_threshold: must be in (0, 1] or None, got {threshold!r}")
    return threshold


def check_timeout(timeout: Any) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ConfigError(f"source_timeout: must be > 0 seconds, got {timeout!r}")
    return float(timeout)


def check_scorer(scorer: Any) -> None:
    """What ``rescore`` reads from a scorer: ``score``, ``top_n`` and ``alpha`` (an LLMScorer
    has them all; a scorer of one's own must too), checked here rather than at the first build."""
    if not callable(getattr(scorer, "score", None)):
        raise ConfigError(f"scorer: needs an async score(query, texts) method, got {scorer!r}")
    top_n = getattr(scorer, "top_n", None)
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n <= 0:
        raise ConfigError(f"scorer: needs top_n, a positive int (how many candidates it rescores), got {top_n!r}")
    alpha = getattr(scorer, "alpha", None)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise ConfigError(f"scorer: needs alpha, a number in [0, 1] (the model's share of the score), got {alpha!r}")
