"""Issue 12, finding 4: the engine has a reader, and audience eligibility precedes budgeting.

Every way a window leaves the engine (messages, text, report, trace, explain, a session's
transcript) is checked for content of an item the reader may not see.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from ctxsieve import CallableSource, ContextEngine, ContextItem, HistorySource, StaticSource
from ctxsieve.loop import MemoryToolkit
from ctxsieve.messages import Message, Text
from ctxsieve.stages.render import render
from ctxsieve.stores import open_store

SECRET = "SECRET-salary-of-alice"


def _surfaces(window: Any) -> str:
    """Everything a window hands out, as one string."""
    parts = [
        repr(window.to_messages("openai")),
        repr(window.to_messages("anthropic")),
        window.to_text(),
        repr(window.report()),
        window.trace.explain(),
        repr(list(window.trace)),
        repr(window.trace.events),
    ]
    return "\n".join(parts)


@pytest.fixture
def memory_engine(tmp_path: Any) -> ContextEngine:
    # a toolkit for alice proposes her memory to every build: the engine must keep it from others
    mem = MemoryToolkit(open_store(os.path.join(tmp_path, "m.db")), namespace="p", audiences="alice")
    mem.add(f"{SECRET} is private payroll data", audience="alice")
    mem.add("payroll runs on the last friday", audience="")
    return ContextEngine([mem.source()], budget=500)


def test_memory_labels_stay_out_of_a_window_without_a_reader(memory_engine: ContextEngine) -> None:
    for window in (
        memory_engine.build_sync("payroll salary"),
        asyncio.run(memory_engine.build("payroll salary")),
        memory_engine.build_many(["payroll salary", "salary payroll"])[0],
        memory_engine.build_sync("payroll salary", reader="bob"),
        memory_engine.build_sync("payroll salary", reader=[]),
    ):
        assert SECRET not in _surfaces(window)
        assert "last friday" in window.to_text()
        assert "audience_excluded:memory:1" in window.trace.events


def test_the_reader_sees_their_own(memory_engine: ContextEngine) -> None:
    for window in (
        memory_engine.build_sync("payroll salary", reader="alice"),
        asyncio.run(memory_engine.build("payroll salary", reader={"alice"})),
        memory_engine.build_many(["payroll salary", "salary payroll"], reader="alice")[1],
    ):
        assert SECRET in window.to_text()


def test_a_session_has_one_reader_for_the_whole_conversation(memory_engine: ContextEngine) -> None:
    anon = memory_engine.session()
    first = anon.build_sync("payroll salary")
    anon.record_reply("ok")
    second = asyncio.run(anon.build("salary again payroll"))
    for w in (first, second):
        assert SECRET not in _surfaces(w) and SECRET not in repr(w.turns) and SECRET not in repr(w.present)
    own = memory_engine.session(reader="alice").build_sync("payroll salary")
    assert SECRET in own.to_text()


def test_history_units_carry_their_messages_labels_into_the_engine() -> None:
    chat: list[Any] = [
        {"role": "user", "content": "hello"},
        {"role": "user", "content": SECRET, "audience": "alice"},
        {"role": "assistant", "content": "noted"},
    ]
    eng = ContextEngine([HistorySource(chat)], budget=500)
    assert SECRET not in _surfaces(eng.build_sync("q"))
    assert SECRET not in _surfaces(eng.build_sync("q", reader="bob"))
    mine = eng.build_sync("q", reader="alice")
    assert SECRET in mine.to_text()
    assert "audience" not in repr(mine.to_messages())  # labels are identities, never prompt text


@pytest.mark.parametrize(
    "inner",
    [
        Message("user", (Text(SECRET),), audience=frozenset({"alice"})),
        {"role": "user", "content": SECRET, "audience": "alice"},
    ],
    ids=["Message", "dict"],
)
@pytest.mark.parametrize("outer", [None, "public", "alice"])
def test_an_item_label_never_widens_its_messages(inner: Any, outer: Any) -> None:
    unit = ContextItem("h", "unit", kind="history", audience=outer, meta={"messages": [inner]})
    eng = ContextEngine([StaticSource([unit], name="hist")], budget=500)
    assert SECRET not in _surfaces(eng.build_sync("q", reader="bob"))
    assert SECRET in eng.build_sync("q", reader="alice").to_text()


def test_a_private_copy_never_makes_its_public_twin_a_duplicate() -> None:
    # the private copy scores higher: deduplicated first, it would have been the kept copy and
    # the reader would have got neither (and the trace would have named it)
    private = ContextItem("alice-note", "Refunds take thirty days to process", score=0.9, audience="alice")
    public = ContextItem("faq", "refunds take thirty days to process", score=0.1)
    eng = ContextEngine([CallableSource(lambda q: [private, public], name="rag", blocking=False)], budget=500)
    window = eng.build_sync("refunds")
    assert [i.id for i in window.items] == ["faq"]
    assert "alice-note" not in _surfaces(window)


def test_render_itself_defaults_to_public_only() -> None:
    items = [ContextItem("k", SECRET, audience="alice"), ContextItem("p", "open")]
    assert SECRET not in render(items, "q").text()
    assert SECRET in render(items, "q", readers=frozenset({"alice"})).text()


@pytest.mark.parametrize("label", [1, ["alice"], b"alice", frozenset({1})])
def test_an_item_label_that_is_not_text_is_refused(label: Any) -> None:
    from ctxsieve.errors import ConfigError

    with pytest.raises(ConfigError, match="audience"):
        ContextItem("k", "x", audience=label)


@pytest.mark.parametrize("reader", [1, b"alice", {"alice": 1}, [None]])
def test_a_reader_that_is_not_text_is_refused(memory_engine: ContextEngine, reader: Any) -> None:
    with pytest.raises(TypeError, match=r"reader: (expected|every label|labels are str)"):
        memory_engine.build_sync("q", reader=reader)
    with pytest.raises(TypeError, match=r"reader: (expected|every label|labels are str)"):
        memory_engine.session(reader=reader)


def test_the_scorer_never_reads_what_the_reader_may_not() -> None:
    # a scorer is often a remote model: eligibility runs before it too
    seen: list[str] = []

    class Scorer:
        top_n, alpha = 10, 0.5

        async def score(self, query: str, texts: list[str]) -> list[float]:
            seen.extend(texts)
            return [0.5] * len(texts)

    items = [ContextItem("k", SECRET, audience="alice"), ContextItem("p", "open fact")]
    eng = ContextEngine([StaticSource(items, name="kb")], budget=500, scorer=Scorer())
    eng.build_sync("q", reader="bob")
    assert seen and not any(SECRET in t for t in seen)


def test_a_history_message_relabelled_in_place_is_obeyed() -> None:
    # HistorySource reuses a unit's item while its messages and contents are the same objects;
    # a label added in place must still reach the item
    chat: list[Any] = [{"role": "user", "content": SECRET}, {"role": "assistant", "content": "ok"}]
    eng = ContextEngine([HistorySource(chat)], budget=500)
    assert SECRET in eng.build_sync("q").to_text()
    chat[0]["audience"] = "alice"
    assert SECRET not in _surfaces(eng.build_sync("q"))
    assert SECRET in eng.build_sync("q", reader="alice").to_text()
