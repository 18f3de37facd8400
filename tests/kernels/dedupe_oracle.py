"""The dedupe algorithm before prefix filtering (issue 15), kept as a slow oracle: every visited
item counts its overlap with every kept item that holds any of its shingles. Quadratic when
texts share shingles, obviously right; the prefix-filtered kernels must agree with it exactly.
"""

from __future__ import annotations

from ctxsieve.kernels.reference import _content_hash, _shingle_set


def oracle_dedupe(
    texts: list[str], ids: list[str], scores: list[float], pinned: list[bool], history: list[bool], threshold: float
) -> tuple[list[int], list[int]]:
    """``(duplicate_of, visit_order)`` for valid input (no argument checks)."""
    n = len(texts)
    order = sorted(range(n), key=lambda i: (not pinned[i], -float(scores[i]), ids[i], i))
    duplicate_of = [-1] * n
    visit_rank: dict[int, int] = {}
    by_id: dict[str, int] = {}
    by_hash: dict[int, int] = {}
    postings: dict[int, list[int]] = {}  # shingle hash -> kept items holding it
    sizes: dict[int, int] = {}  # kept item -> number of shingles

    for rank, i in enumerate(order):
        if history[i]:
            continue
        shingles = _shingle_set(texts[i])
        chash = _content_hash(texts[i])
        if not pinned[i]:
            matches = []
            if ids[i] in by_id:
                matches.append(by_id[ids[i]])
            if chash is not None and chash in by_hash:
                matches.append(by_hash[chash])
            overlap: dict[int, int] = {}
            for s in shingles:
                for k in postings.get(s, ()):
                    overlap[k] = overlap.get(k, 0) + 1
            for k, common in overlap.items():
                if common / min(len(shingles), sizes[k]) >= threshold:
                    matches.append(k)
            if matches:
                duplicate_of[i] = min(matches, key=visit_rank.__getitem__)
                continue
        visit_rank[i] = rank
        by_id.setdefault(ids[i], i)
        if chash is not None:
            by_hash.setdefault(chash, i)
        for s in shingles:
            postings.setdefault(s, []).append(i)
        sizes[i] = len(shingles)
    return duplicate_of, order
