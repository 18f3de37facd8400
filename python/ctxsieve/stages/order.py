"""Stage 6: the prompt order, built for the provider's prefix cache (one kernel call).

Stable items first in an order that never depends on the query (source, order key, id), then
session items, then volatile ones with the strongest at both edges of their block, where models
read best; history last and chronological (by order key).
"""

from __future__ import annotations

from ctxsieve import kernels
from ctxsieve.stages.candidates import Candidates


def order(cands: Candidates, included: list[int]) -> list[int]:
    """``included`` (candidate indices) permuted into prompt order."""
    if not included:
        return []
    items = cands.items
    perm = kernels.cache_order(
        [items[i].stability for i in included],
        [cands.final[i] for i in included],
        history=[cands.history[i] for i in included],
        source_rank=[cands.source_rank[i] for i in included],
        order_keys=[items[i].order_key or "" for i in included],
        ids=[cands.ids[i] for i in included],
    )
    return [included[p] for p in perm]
