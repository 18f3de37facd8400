"""The reasoning floor of a conversation: the turn before which a ``"current_turn"`` rule sends
no reasoning (``ctxsieve.conversation.reasoning`` says why it moves only when the prefix is
rewritten anyway). Apart from ``reasoning`` because it works on the conversation's state, which
imports the rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxsieve.conversation.reasoning import without_reasoning

if TYPE_CHECKING:
    from ctxsieve.conversation.state import State


def floor_index(conv: State, start: int) -> int:
    """The first transcript index from ``start`` whose turn is at or after the floor (the
    entries' turns never decrease, so a binary search)."""
    t = conv.transcript
    lo, hi = start, len(t)
    while lo < hi:
        mid = (lo + hi) // 2
        if t[mid].turn < conv._reasoning_floor:
            lo = mid + 1
        else:
            hi = mid
    return lo


def move_floor(conv: State) -> None:
    """After a rewrite of the prefix (the retained start moved since the previous call), turns
    before the current one send no reasoning under a ``"current_turn"`` rule: their entries are
    costed again without it. No-op otherwise (the previous call's prefix is kept byte for byte)."""
    profile = conv.caching.profile
    prev = conv._last
    t = conv.transcript
    if profile is None or profile.reasoning != "current_turn" or prev is None or prev[0] == t.start:
        return
    if conv.turn <= conv._reasoning_floor:
        return
    lo = floor_index(conv, t.start)
    conv._reasoning_floor = conv.turn
    hi = floor_index(conv, t.start)
    costs = {}
    for k in range(lo, hi):
        m = t[k].message
        if m.role == "assistant" and m.reasoning:
            costs[k] = conv._cost(without_reasoning(m))
    if costs:
        t.set_tokens(costs)


__all__ = ["floor_index", "move_floor"]
