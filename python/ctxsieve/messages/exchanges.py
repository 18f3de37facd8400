"""Where a conversation may be cut: the spans that keep every tool call with its results.

Providers reject a tool call without its result and a result without its call, so the engine's
history units, admission's records and the loop's units (compaction, session search) all group
messages into the spans computed here, one rule for the three of them: a span opened by a
message that calls tools runs at least to the first later message answering each of its calls,
and so on for every call made inside it. Messages that sit between a call and its result (a user
interjecting, a second assistant message) stay inside the span rather than splitting it.

A call whose result never comes spans only itself; a result no earlier call claims stands alone.

>>> # call a, the user interjects, result a, answer
>>> exchange_spans([["a"], [], [], []], [[], [], ["a"], []])
[(0, 3), (3, 4)]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Sequence


def exchange_spans(calls: Sequence[Collection[str]], answers: Sequence[Collection[str]]) -> list[tuple[int, int]]:
    """``(start, end)`` per span, in order, covering every message exactly once.

    ``calls[i]`` are the tool call ids message i makes (empty unless it may call tools: pass
    them for assistant messages only); ``answers[i]`` the call ids it carries results for.
    Cost: O(ids log n), whatever the distances between calls and results.
    """
    n = len(calls)
    if len(answers) != n:
        raise ValueError(f"calls and answers must have one entry per message, got {n} and {len(answers)}")
    where: dict[str, list[int]] = {}
    for i, ids in enumerate(answers):
        for cid in ids:
            where.setdefault(cid, []).append(i)
    spans: list[tuple[int, int]] = []
    i = 0
    while i < n:
        end, j = i + 1, i
        while j < end:
            for cid in calls[j]:
                at = where.get(cid)
                if at:
                    k = bisect_right(at, j)  # the first answer after the call
                    if k < len(at) and at[k] + 1 > end:
                        end = at[k] + 1
            j += 1
        spans.append((i, end))
        i = end
    return spans


__all__ = ["exchange_spans"]
