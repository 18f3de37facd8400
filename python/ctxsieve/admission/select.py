"""Choosing what optional context one call keeps: a pure function over costs.

Required content is reserved first. Optional content is then reduced in a fixed order:
section ceilings, then the lowest-ranked memories, then the oldest history. Retained memory is
always a prefix of the relevance-ranked list and retained history a suffix of the chronological
list, so a selection is two numbers, found by binary search over prefix sums: the work per call
does not grow with the length of the conversation.

``memory_max`` and ``history_min_start`` carry earlier calls' omissions, so what a turn
dropped never comes back.

>>> s = select_optional(100, {"system": 40}, [0, 10, 25, 45], [0, 20, 30, 40], gap_tokens=5)
>>> (s.memory_kept, s.history_start, s.memory_tokens, s.history_tokens)
(1, 0, 10, 40)
>>> select_optional(100, {"system": 80}, [0, 10, 25, 45], [0, 20, 30, 40], gap_tokens=5).history_start
2
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ctxsieve.admission.errors import BREAKDOWN_ORDER, ContextBudgetError


@dataclass(frozen=True)
class Selection:
    """``memory_kept`` ranked memories and the history records from ``history_start`` on.

    ``omitted`` counts dropped items per ``(section, reason)``; reasons: ``earlier_call``,
    ``section_ceiling``, ``budget``.
    """

    memory_kept: int
    history_start: int
    memory_tokens: int
    history_tokens: int
    gap_tokens: int
    omitted: dict[tuple[str, str], int] = field(default_factory=dict)


def _max_prefix(prefix: Sequence[int], budget: int, hi: int) -> int:
    """Largest k <= hi with prefix[k] <= budget (0 when even nothing fits a negative budget)."""
    if budget < 0:
        return 0
    return max(0, min(hi, bisect_right(prefix, budget, 0, hi + 1) - 1))


def _min_suffix_start(prefix: Sequence[int], budget: int, lo: int, gap: int) -> int:
    """Smallest s >= lo whose suffix (plus the gap notice when s > 0) costs <= budget."""
    n = len(prefix) - 1
    total = prefix[n]
    if lo == 0 and total <= budget:
        return 0
    # suffix(s) = total - prefix[s] <= budget - gap  <=>  prefix[s] >= total - budget + gap
    return min(n, max(lo, 1 if n else 0, bisect_left(prefix, total - budget + gap, lo, n + 1)))


def select_optional(
    limit: int,
    required: Mapping[str, int],
    memory_prefix: Sequence[int],
    history_prefix: Sequence[int],
    *,
    gap_tokens: int,
    memory_ceiling: int | None = None,
    history_ceiling: int | None = None,
    memory_max: int | None = None,
    history_min_start: int = 0,
    limit_origin: str = "ceiling",
    model: str | None = None,
) -> Selection:
    """Keep the most optional context that fits ``limit`` after ``required``.

    ``memory_prefix[k]`` is the cost of the k best memories; ``history_prefix[s]`` the cost of
    the s oldest records (both start at 0). Raises ``ContextBudgetError`` when required content
    does not fit.
    """
    n_mem = len(memory_prefix) - 1
    n_hist = len(history_prefix) - 1
    need = sum(required.values())
    if need > limit:
        breakdown = {k: int(required.get(k, 0)) for k in BREAKDOWN_ORDER}
        breakdown.update({k: int(v) for k, v in required.items()})
        raise ContextBudgetError(breakdown, limit, limit_origin=limit_origin, model=model)
    room = limit - need
    omitted: dict[tuple[str, str], int] = {}

    def drop(section: str, reason: str, count: int) -> None:
        if count > 0:
            omitted[(section, reason)] = omitted.get((section, reason), 0) + count

    # earlier calls of the turn: omitted stays omitted
    k = n_mem if memory_max is None else min(memory_max, n_mem)
    s = min(max(history_min_start, 0), n_hist)
    drop("memory", "earlier_call", n_mem - k)
    drop("history", "earlier_call", s)

    # 1. section ceilings
    if memory_ceiling is not None:
        k2 = _max_prefix(memory_prefix, memory_ceiling, k)
        drop("memory", "section_ceiling", k - k2)
        k = k2
    if history_ceiling is not None:
        s2 = _min_suffix_start(history_prefix, history_ceiling, s, gap_tokens)
        drop("history", "section_ceiling", s2 - s)
        s = s2

    def hist_cost(start: int) -> int:
        return history_prefix[n_hist] - history_prefix[start] + (gap_tokens if start > 0 else 0)

    # 2. lowest-ranked memories
    if memory_prefix[k] + hist_cost(s) > room:
        k2 = _max_prefix(memory_prefix, room - hist_cost(s), k)
        drop("memory", "budget", k - k2)
        k = k2
    # 3. oldest history
    if memory_prefix[k] + hist_cost(s) > room:
        s2 = _min_suffix_start(history_prefix, room, s, gap_tokens)
        if hist_cost(s2) > room:
            # not even the gap notice fits: the notice is mandatory once history is cut
            breakdown = {k_: int(required.get(k_, 0)) for k_ in BREAKDOWN_ORDER}
            breakdown.update({k_: int(v) for k_, v in required.items()})
            breakdown["history"] = gap_tokens
            raise ContextBudgetError(breakdown, limit, limit_origin=limit_origin, model=model)
        drop("history", "budget", s2 - s)
        s = s2
    gap = gap_tokens if s > 0 else 0
    return Selection(k, s, memory_prefix[k], hist_cost(s), gap, omitted)
