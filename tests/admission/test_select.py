"""Selection: reduction order, prefix/suffix shapes, monotonic floors, the budget error."""

from __future__ import annotations

from itertools import accumulate

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.admission import ContextBudgetError, select_optional
from ctxsieve.errors import BudgetExceededError


def prefix(costs: list[int]) -> list[int]:
    return [0, *accumulate(costs)]


def test_memories_go_before_history() -> None:
    mem, hist = prefix([10, 10, 10]), prefix([20, 20, 20])
    s = select_optional(100, {"system": 35}, mem, hist, gap_tokens=5)  # room 65: history 60 + 1 memory? no: 70
    assert (s.memory_kept, s.history_start) == (0, 0)
    assert s.omitted == {("memory", "budget"): 3}
    s = select_optional(100, {"system": 30}, mem, hist, gap_tokens=5)  # room 70: history 60 + one memory
    assert (s.memory_kept, s.history_start, s.memory_tokens, s.history_tokens) == (1, 0, 10, 60)


def test_history_cut_pays_for_the_gap_notice() -> None:
    s = select_optional(100, {"system": 50}, prefix([]), prefix([20, 20, 20]), gap_tokens=5)
    # room 50: all 60 does not fit; the newest 2 (40) + notice (5) do
    assert (s.history_start, s.history_tokens, s.gap_tokens) == (1, 45, 5)
    assert s.omitted == {("history", "budget"): 1}


def test_section_ceilings_come_first() -> None:
    s = select_optional(
        1000, {}, prefix([10, 10, 10]), prefix([20, 20, 20]), gap_tokens=5, memory_ceiling=15, history_ceiling=30
    )
    assert (s.memory_kept, s.history_start) == (1, 2)
    assert s.omitted == {("memory", "section_ceiling"): 2, ("history", "section_ceiling"): 2}


def test_floors_from_earlier_calls_are_kept() -> None:
    s = select_optional(1000, {}, prefix([1] * 5), prefix([1] * 5), gap_tokens=1, memory_max=2, history_min_start=3)
    assert (s.memory_kept, s.history_start) == (2, 3)
    assert s.omitted == {("memory", "earlier_call"): 3, ("history", "earlier_call"): 3}


def test_required_over_limit_raises_with_breakdown() -> None:
    with pytest.raises(ContextBudgetError) as info:
        select_optional(
            100, {"system": 30, "tools": 50, "images": 40}, prefix([5]), prefix([5]), gap_tokens=5, model="m"
        )
    e = info.value
    assert isinstance(e, BudgetExceededError)
    assert e.breakdown == {
        "system": 30,
        "skills": 0,
        "tools": 50,
        "messages": 0,
        "memory": 0,
        "history": 0,
        "images": 0 + 40,
        "overhead": 0,
    }
    assert (e.limit, e.required, e.model) == (100, 120, "m")
    assert "needs 120 estimated tokens but the input limit for model 'm' is 100 (ceiling)" in str(e)
    assert "largest part is 'tools'" in str(e)


costs = st.lists(st.integers(0, 50), max_size=30)


@given(
    mem=costs,
    hist=costs,
    need=st.integers(0, 400),
    limit=st.integers(1, 600),
    gap=st.integers(0, 20),
    mem_ceiling=st.none() | st.integers(0, 300),
    hist_ceiling=st.none() | st.integers(0, 300),
    mem_floor=st.none() | st.integers(0, 30),
    hist_floor=st.integers(0, 30),
)
def test_selection_properties(
    mem: list[int],
    hist: list[int],
    need: int,
    limit: int,
    gap: int,
    mem_ceiling: int | None,
    hist_ceiling: int | None,
    mem_floor: int | None,
    hist_floor: int,
) -> None:
    M, H = prefix(mem), prefix(hist)
    n = len(hist)
    kw = dict(
        gap_tokens=gap,
        memory_ceiling=mem_ceiling,
        history_ceiling=hist_ceiling,
        memory_max=mem_floor,
        history_min_start=hist_floor,
    )
    if need > limit:
        with pytest.raises(ContextBudgetError):
            select_optional(limit, {"messages": need}, M, H, **kw)  # type: ignore[arg-type]
        return
    try:
        s = select_optional(limit, {"messages": need}, M, H, **kw)  # type: ignore[arg-type]
    except ContextBudgetError as e:
        # only when even the gap notice cannot fit once history has to be cut
        assert e.breakdown["history"] == gap and need + gap > limit
        return

    def hist_cost(start: int) -> int:
        return H[n] - H[start] + (gap if start > 0 else 0)

    k, start = s.memory_kept, s.history_start
    # shapes and accounting
    assert s.memory_tokens == M[k] and s.history_tokens == hist_cost(start)
    assert need + s.memory_tokens + s.history_tokens <= limit
    # floors: nothing omitted earlier comes back
    if mem_floor is not None:
        assert k <= mem_floor
    assert start >= min(hist_floor, n)
    # ceilings
    if mem_ceiling is not None:
        assert M[k] <= mem_ceiling
    if hist_ceiling is not None and start < n:
        assert hist_cost(start) <= max(hist_ceiling, gap + H[n] - H[start]) or start == 0
    # maximality in the documented order: memory only lost to the budget when history is whole
    # (after its ceiling), and history only cut by the budget when no memory is left
    room = limit - need
    k_cap = len(mem) if mem_floor is None else min(mem_floor, len(mem))
    if mem_ceiling is not None:
        k_cap = max(i for i in range(k_cap + 1) if M[i] <= mem_ceiling)
    if k < k_cap and not s.omitted.get(("history", "budget")):
        assert M[k + 1] + hist_cost(start) > room
    if s.omitted.get(("memory", "budget")):
        # memories were dropped against the history as it stood before any budget cut
        start_before = start - s.omitted.get(("history", "budget"), 0)
        assert M[k + 1] + hist_cost(start_before) > room
    if s.omitted.get(("history", "budget")):
        assert k == 0 and hist_cost(start - 1) > room
    # counts add up
    omitted_mem = sum(v for (sec, _), v in s.omitted.items() if sec == "memory")
    omitted_hist = sum(v for (sec, _), v in s.omitted.items() if sec == "history")
    assert omitted_mem == len(mem) - k and omitted_hist == start
