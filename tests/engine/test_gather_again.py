"""A gathering checks again only what a source proposes anew (issue 15): the items that are the
very objects it proposed last time, all valid and unlabelled then, are not read. Whatever a
source proposes from one build to the next, the result is a fresh engine's."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import ContextEngine
from ctxsieve.sources import CallableSource

from .helpers import item

POOL = [item(f"k{i}", 0.1 * i, source="kb") for i in range(6)]
# what a source may propose besides its own valid items: each is checked as the cold path does
ODD: list[Any] = [
    item("other", 0.5, source="elsewhere"),  # renamed to the source
    dataclasses.replace(item("secret", 0.5, source="kb"), audience="staff"),  # hidden, counted
    dataclasses.replace(item("meta", 0.5, source="kb"), meta={"note": 1}),  # meta: read, kept
    "not an item",  # the source is left out: source_error
]


class Replay:
    """A source that proposes, build after build, lists drawn from POOL and ODD."""

    def __init__(self, steps: list[list[Any]]):
        self.steps = steps
        self.at = 0

    def __call__(self, query: str) -> list[Any]:
        out = self.steps[self.at]
        self.at += 1
        return out


@given(st.lists(st.lists(st.sampled_from(POOL + ODD), max_size=6), min_size=1, max_size=6), st.booleans())
def test_a_warm_gathering_is_a_fresh_ones(steps: list[list[Any]], as_tuples: bool) -> None:
    # a step is often the previous one with an item or two replaced, as an agent loop's are
    for k in range(1, len(steps)):
        if steps[k] and len(steps[k]) == len(steps[k - 1]):
            steps[k] = steps[k - 1][:-1] + steps[k][-1:]
    proposals = [tuple(s) if as_tuples else list(s) for s in steps]
    warm = ContextEngine([CallableSource(Replay(proposals), name="kb", blocking=False)], budget=1000)
    for proposal in proposals:
        fresh = ContextEngine([CallableSource(lambda q, p=proposal: p, name="kb", blocking=False)], budget=1000)
        got, want = warm.gather_sync("q"), fresh.gather_sync("q")
        assert got.items == want.items
        assert [[type(it) for it in lst] for lst in got.items] == [[type(it) for it in lst] for lst in want.items]
        assert got.events == want.events


def test_an_unchanged_proposal_is_handed_on_as_the_same_tuple() -> None:
    items = [item(f"k{i}", 0.5, source="kb") for i in range(3)]
    engine = ContextEngine([CallableSource(lambda q: items, name="kb", blocking=False)], budget=1000)
    first = engine.gather_sync("q").items[0]
    assert engine.gather_sync("q").items[0] is first  # the columns memo then compares one object
    items[1] = item("new", 0.5, source="kb")
    again = engine.gather_sync("q").items[0]
    assert again is not first and [it.id for it in again] == ["k0", "new", "k2"]


def test_a_new_labelled_item_is_hidden_and_counted_as_on_a_cold_build() -> None:
    items: list[Any] = [item(f"k{i}", 0.5, source="kb") for i in range(3)]
    engine = ContextEngine([CallableSource(lambda q: items, name="kb", blocking=False)], budget=1000)
    engine.gather_sync("q")
    items[2] = dataclasses.replace(items[2], id="private", audience="staff")
    g = engine.gather_sync("q")
    assert [it.id for it in g.items[0]] == ["k0", "k1"] and g.events == ("audience_excluded:kb:1",)
    assert [it.id for it in engine.gather_sync("q", reader="staff").items[0]] == ["k0", "k1", "private"]
