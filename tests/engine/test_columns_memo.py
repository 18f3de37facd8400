"""A warm build reuses the previous build's per-item columns (issue 15, ``stages.columns_memo``):
over a run of builds whose sources replace, keep, drop and add items, every window and trace
equals the one a fresh engine builds from the same candidates, on both backends; and the
costs of the items proposed again are not recomputed."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import ContextEngine, ContextItem, Signals, SourceConfig, StaticSource
from ctxsieve.stages import columns_memo

WORDS = ["refund", "plan", "team", "days", "thirty", "policy", "within", "the", "of", "a"]


@st.composite
def item(draw: st.DrawFn, source: str, k: int) -> ContextItem:
    kind = draw(st.sampled_from(["knowledge", "history", "instruction", "memory"]))
    text = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=9)))
    sig = Signals(
        citation=draw(st.sampled_from([None, 'a "cite" & <b>', "doc-7"])),
        stale=draw(st.booleans()),
        deprecated=draw(st.booleans()),
        trust=draw(st.sampled_from([None, "human-reviewed", "web"])),
    )
    return ContextItem(
        draw(st.sampled_from([f"{source}{k}", "same"])),
        text,
        source,
        kind,  # type: ignore[arg-type]
        draw(st.sampled_from(["stable", "session", "volatile"])),  # type: ignore[arg-type]
        draw(st.floats(0, 1)),
        tokens=draw(st.one_of(st.none(), st.integers(0, 30))),
        signals=sig,
        meta={"role": "assistant"} if kind == "history" and draw(st.booleans()) else {},
    )


@st.composite
def runs(draw: st.DrawFn) -> list[list[list[ContextItem]]]:
    """Several builds over two sources; each build keeps, replaces, drops or adds items."""
    made = 0
    lists: list[list[ContextItem]] = [[], []]
    out = []
    for _ in range(draw(st.integers(1, 4))):
        for s, lst in enumerate(lists):
            name = f"s{s}"
            if not lst or draw(st.booleans()):
                lst[:] = [draw(item(name, made + j)) for j in range(draw(st.integers(0, 6)))]
                made += len(lst)
            else:
                for j in draw(st.sets(st.integers(0, len(lst) - 1), max_size=len(lst))):
                    lst[j] = draw(item(name, made))
                    made += 1
                if draw(st.booleans()):
                    lst.append(draw(item(name, made)))
                    made += 1
        out.append([list(lst) for lst in lists])
    return out


def engine(lists: list[list[ContextItem]], layout: str) -> ContextEngine:
    configs = [SourceConfig(StaticSource(lst, name=f"s{s}"), max_tokens=60) for s, lst in enumerate(lists)]
    return ContextEngine(configs, budget=120, layout=layout)


def seen(window: Any) -> Any:
    return (window.items, window.scored, window.tokens_used, window.trace.entries, window.trace.events)


@given(runs(), st.sampled_from(["cache", "seed"]))
def test_warm_builds_equal_fresh_ones(run: list[list[list[ContextItem]]], layout: str) -> None:
    warm = engine([[], []], layout)
    live = [c.source.items for c in warm.configs]  # the lists the sources propose
    for lists in run:
        for mine, new in zip(live, lists):
            mine[:] = new  # the same item objects where the run kept them
        assert seen(warm.build_sync("refund plan")) == seen(engine(lists, layout).build_sync("refund plan"))


def test_an_item_proposed_again_is_not_costed_again(monkeypatch: Any) -> None:
    items = [ContextItem(f"k{i}", f"text number {i}", "s0", score=i / 10) for i in range(10)]
    eng = engine([items], "cache")
    first = eng.build_sync("q")
    counted: list[int] = []
    real = columns_memo._computed

    def spy(todo: list[ContextItem], estimator: Any, *rest: Any) -> Any:
        counted.append(len(todo))
        return real(todo, estimator, *rest)

    monkeypatch.setattr(columns_memo, "_computed", spy)
    eng.configs[0].source.items[3] = ContextItem("new", "a new text", "s0", score=0.95)
    again = eng.build_sync("q")
    assert counted == [1]  # only the replaced item, among 10
    assert again.trace.entry("new").tokens > 0
    costs = {e.id: e.tokens for e in first.trace.entries}
    assert all(e.tokens == costs[e.id] for e in again.trace.entries if e.id != "new")
    eng._columns.clear()
    eng.build_sync("q")
    assert counted == [1, 10]  # a cleared memo costs every item again


def test_a_gathered_assembled_by_hand_is_costed_by_its_items_names() -> None:
    # items a caller renamed inside a ``Gathered`` of its own are rendered, so costed, with
    # their own source name, not the source's (the costs must not take the name for granted)
    import dataclasses

    items = [ContextItem(f"k{i}", f"text number {i}", "s0", score=i / 10) for i in range(4)]
    eng = engine([items], "cache")
    gathered = eng.gather_sync("q")
    long = "a-much-longer-source-name"
    renamed = tuple(tuple(dataclasses.replace(it, source=long) for it in lst) for lst in gathered.items)
    hand = dataclasses.replace(gathered, items=renamed)
    window = eng.select(hand)
    other = ContextEngine([SourceConfig(StaticSource(list(renamed[0]), name=long))], budget=10_000)
    want = {e.id: e.tokens for e in other.build_sync("q").trace.entries}
    got = {e.id: e.tokens for e in window.trace.entries}
    assert got == want
    assert got != {e.id: e.tokens for e in eng.select(gathered).trace.entries}
