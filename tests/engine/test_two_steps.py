"""The engine's public two-step driver (issue 13): ``gather`` then ``select``, which ``build``,
``ContextSession`` and the ``Conversation`` all use; and what a source declares for itself."""

from __future__ import annotations

import dataclasses

import pytest

from ctxsieve import (
    Budget,
    CallableSource,
    ContextEngine,
    ContextError,
    ContextItem,
    Gathered,
    SourceConfig,
    StaticSource,
)
from ctxsieve.errors import ConfigError
from ctxsieve.stages.render import render

from .helpers import item

SYSTEM = item("sys", 1.0, content="Answer briefly.", kind="instruction", stability="stable", pinned=True)


def counting_engine(calls: list[str], budget: int = 400, **kw) -> ContextEngine:
    def search(q: str) -> list[ContextItem]:
        calls.append(q)
        return [item(f"k{i}", 1 - i / 10, tokens=None) for i in range(8)]

    return ContextEngine(
        [StaticSource([SYSTEM], name="sys"), CallableSource(search, name="kb", blocking=False)], budget=budget, **kw
    )


def test_gather_once_select_as_often_as_needed():
    calls: list[str] = []
    engine = counting_engine(calls)
    gathered = engine.gather_sync("refunds")
    assert isinstance(gathered, Gathered) and gathered.query == "refunds" and gathered.sources == ("sys", "kb")
    assert [len(items) for items in gathered.items] == [1, 8] and gathered.size == 9
    wide, narrow = engine.select(gathered), engine.select(gathered, budget=150)
    assert calls == ["refunds"], "selecting again must not call the sources again"
    assert len(narrow.items) < len(wide.items) and narrow.tokens_used <= 150
    # each is the window build would make with that budget, byte for byte
    assert wide.to_text() == engine.build_sync("refunds").to_text()
    assert narrow.to_text() == engine.build_sync("refunds", budget=150).to_text()
    with pytest.raises(dataclasses.FrozenInstanceError):
        gathered.query = "other"  # type: ignore[misc]


async def test_gather_sync_needs_no_loop_for_sources_that_answer_from_memory():
    engine = counting_engine([])
    # inside a running loop: nothing to wait for, so nothing is started and nothing refused
    assert engine.gather_sync("q").size == 9
    slow = ContextEngine([CallableSource(lambda q: [item("a")], name="t")], budget=100)  # on a thread
    with pytest.raises(ContextError, match=r"gather_sync\(\) .* use `await engine\.gather"):
        slow.gather_sync("q")
    assert [i.id for i in (await slow.aselect(await slow.gather("q"))).items] == ["a"]


def test_mark_runs_after_dedupe_and_before_the_policy():
    seen: list[list[str | None]] = []
    engine = counting_engine([])
    gathered = engine.gather_sync("q")
    kb = gathered.items[1]
    twin = ContextItem("k0-copy", kb[0].content, "kb", score=0.1)  # the same text as k0
    gathered = dataclasses.replace(gathered, items=(gathered.items[0], (*kb, twin)))

    def mark(cands, events):
        seen.append(list(cands.reasons))
        cands.reasons[cands.ids.index("k1")] = "already_shown:3"  # decided by the caller
        events.append("marked")

    window = engine.select(gathered, mark=mark)
    # dedupe has run (the twin is out) and the policy has not (everything else is undecided)
    assert seen == [[None] * 9 + ["duplicate_of:k0"]]
    assert window.trace.entry("k1").reason == "already_shown:3" and "k1" not in {i.id for i in window.items}
    assert "marked" in window.trace.events and "marked" not in gathered.events


def test_select_refuses_what_another_engine_gathered():
    mine, other = counting_engine([]), ContextEngine([StaticSource([SYSTEM], name="other")], budget=100)
    with pytest.raises(ConfigError, match=r"made for sources \['other'\]"):
        mine.select(other.gather_sync("q"))
    with pytest.raises(TypeError, match="expected Gathered"):
        mine.select(("not", "gathered"))  # type: ignore[arg-type]


def test_the_layout_can_be_chosen_per_selection():
    engine = counting_engine([])
    gathered = engine.gather_sync("q")
    seed = engine.select(gathered, layout="seed")
    assert seed.layout == "seed" and len(seed.to_messages("openai", include_query=False)) == 1
    assert len(engine.select(gathered).to_messages("openai", include_query=False)) == 2
    with pytest.raises(ConfigError, match="layout"):
        engine.select(gathered, layout="fast")  # type: ignore[arg-type]


class Scorer:
    top_n, alpha = 3, 0.5

    async def score(self, query, texts):
        return [0.5] * len(texts)


async def test_a_scorer_is_awaited_by_aselect_and_refused_by_select_inside_a_loop():
    engine = counting_engine([], scorer=Scorer())
    gathered = engine.gather_sync("q")
    window = await engine.aselect(gathered)
    assert any(a.startswith("llm ") for e in window.trace for a in e.adjustments)
    with pytest.raises(ContextError, match=r"use `await engine\.aselect"):
        engine.select(gathered)


def test_select_runs_the_scorer_without_a_loop_of_the_callers():
    engine = counting_engine([], scorer=Scorer())
    window = engine.select(engine.gather_sync("q"))
    assert any(a.startswith("llm ") for e in window.trace for a in e.adjustments)


def test_window_rendered_parts_are_what_render_makes():
    window = counting_engine([]).build_sync("q")
    parts = window.rendered
    assert parts == render(window.items, window.query, window.layout, readers=window.readers)
    assert parts.system == "Answer briefly." and parts.context.startswith('<context id="k')
    assert parts.history == [] and window.rendered is parts  # rendered once


class Recent:
    """A source of its own that wants its two newest items in, whatever their score."""

    name = "recent"
    blocking = False
    min_items = 2

    def candidates(self, query):
        return [item(f"r{i}", score=i / 10, tokens=20) for i in range(5)]


def test_any_source_may_declare_its_own_min_items():
    crowd = StaticSource([item(f"c{i}", 0.99, tokens=20) for i in range(10)], name="crowd")
    window = ContextEngine([crowd, SourceConfig(Recent(), mode="raw")], budget=200).build_sync("q")
    assert [e.id for e in window.trace if e.reason == "min_items"] == ["r3", "r4"]
    # the SourceConfig's own setting, then the Budget's, win over what the source declares
    assert SourceConfig(Recent()).declared_min_items == 2
    off = ContextEngine([crowd, SourceConfig(Recent(), min_items=0)], budget=200).build_sync("q")
    assert not [e for e in off.trace if e.reason == "min_items"]
    one = ContextEngine([crowd, SourceConfig(Recent(), mode="raw")], budget=Budget(200, min_items={"recent": 1}))
    assert [e.id for e in one.build_sync("q").trace if e.reason == "min_items"] == ["r4"]

    class Odd(Recent):
        min_items = "two"

    with pytest.raises(ConfigError, match="its min_items attribute must be None or an int >= 0"):
        ContextEngine([Odd()], budget=100)
