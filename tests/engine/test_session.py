"""ContextSession: the append-only prompt, already-shown items, the per-call budget, the cut."""

from __future__ import annotations

import asyncio
import threading
from itertools import pairwise

import pytest

from ctxsieve import CallableSource, ContextEngine, HistorySource, StaticSource
from ctxsieve.engine import ContextSession
from ctxsieve.errors import ConfigError, ContextError
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

from .helpers import item, only_given_tokens, text

SYSTEM = item("sys", 1.0, content="You answer from the context.", kind="instruction", stability="stable", pinned=True)
INDEX = item("idx", 1.0, content="Index: refunds, plans, export.", stability="stable", pinned=True)


def engine(per_query, budget=1000, **kw):
    """An engine whose retrieval proposes ``per_query[query]`` (a list of items)."""
    rag = CallableSource(lambda q: per_query[q], name="rag", blocking=False)
    return ContextEngine(
        [StaticSource([SYSTEM], name="sys"), StaticSource([INDEX], name="idx"), rag], budget=budget, **kw
    )


def hits(*names, tokens=10):
    return [item(n, 0.9 - k * 0.01, tokens=tokens) for k, n in enumerate(names)]


def converse(session, queries, reply="noted."):
    out = []
    for q in queries:
        out.append(session.build_sync(q))
        session.record_reply(f"{reply} ({q})")
    return out


def is_prefix(prev, cur):
    return cur[: len(prev)] == prev


def test_each_prompt_extends_the_previous_one_in_every_rendering():
    per_query = {"q1": hits("a", "b"), "q2": hits("b", "c"), "q3": hits("a", "c"), "q4": hits("d")}
    calls = converse(engine(per_query).session(), per_query)
    for prev, cur in pairwise(calls):
        assert cur.to_text().startswith(prev.to_text() + "\n<|assistant|>\n")
        assert is_prefix(prev.to_messages("openai"), cur.to_messages("openai"))
        pa, ca = prev.to_messages("anthropic"), cur.to_messages("anthropic")
        assert pa["system"] == ca["system"] and is_prefix(pa["messages"], ca["messages"])
        assert cur.stable_prefix_hash == prev.stable_prefix_hash
        assert cur.cut is None and not [e for e in cur.trace.events if e.startswith("session_cut")]


def test_the_first_call_renders_as_the_cache_layout_window_does():
    per_query = {"q1": hits("a", "b")}
    eng = engine(per_query)
    window = eng.build_sync("q1")
    first = eng.session().build_sync("q1")
    assert first.to_text() == window.to_text()
    assert first.to_text(include_query=False) == window.to_text(include_query=False)
    for style in ("openai", "anthropic"):
        assert first.to_messages(style) == window.to_messages(style)
        assert first.to_messages(style, include_query=False) == window.to_messages(style, include_query=False)
    assert first.stable_prefix_hash == window.stable_prefix_hash


def test_both_styles_render_turns_as_the_model_saw_them():
    per_query = {"q1": hits("a"), "q2": hits("a")}  # q2 brings nothing new
    calls = converse(engine(per_query).session(), per_query)
    last = calls[-1]
    assert [m["role"] for m in last.to_messages("openai")] == ["system", "user", "user", "assistant", "user"]
    anthropic = last.to_messages("anthropic")
    assert anthropic["system"] == calls[0].system
    assert [m["role"] for m in anthropic["messages"]] == ["user", "assistant", "user"]
    first_user = anthropic["messages"][0]["content"]
    assert [b["type"] for b in first_user] == ["text", "text"] and first_user[1]["text"] == "q1"
    assert anthropic["messages"][1]["content"] == "noted. (q1)"
    assert anthropic["messages"][2]["content"] == "q2"  # nothing new: the query alone
    with pytest.raises(ValueError, match="style"):
        last.to_messages("gemini")  # type: ignore[call-overload]
    # as Window.to_messages(include_query=False): the caller appends the question itself
    assert last.to_messages("openai", include_query=False) == last.to_messages("openai")[:-1]
    assert last.to_text(include_query=False) + "\n<|user|>\nq2" == last.to_text()


def test_already_shown_items_are_not_sent_again_and_are_traced():
    long = text(7, 40)
    per_query = {
        "q1": [
            item("a", 0.9, content="Refunds are accepted within thirty days of purchase."),
            item("b", 0.8, content="Exports run nightly and land in the shared folder."),
            item("concept", 0.7, content=long, tokens=40),
        ],
        "q2": [
            item("a", 0.9, content="Refunds are accepted within thirty days of purchase."),  # same id
            item("b-copy", 0.8, content="exports run  nightly and land in the SHARED folder."),  # same text
            item("chunk", 0.7, content=" ".join(long.split()[:20]), tokens=20),  # part of the concept
            item("new", 0.6, content="Plans can be changed at any time from the billing page."),
        ],
    }
    session = engine(per_query).session()
    _, second = converse(session, per_query)
    reasons = {e.id: e.reason for e in second.trace.entries}
    assert reasons["a"] == reasons["b-copy"] == reasons["chunk"] == "already_shown:1"
    assert reasons["sys"] == reasons["idx"] == "already_shown:1"  # the system block
    assert reasons["new"] == "selected"
    assert [i.id for i in second.items] == ["new"]
    assert {i.id for i, _ in second.shown} == {"a", "b", "concept", "sys", "idx"}
    assert {i.id for i in second.present} == {"new", "a", "b", "concept", "sys", "idx"}
    prompt = second.to_text()
    assert prompt.count("within thirty days") == 1 and prompt.count("nightly") == 1 and prompt.count(long) == 1
    assert second.report()["already_shown"] == 5
    third = session.build_sync("q2")  # shown items carry the turn that showed them
    assert third.trace.entry("new").reason == "already_shown:2"


@pytest.mark.parametrize("threshold", [0.8, None])
def test_a_shown_id_whose_content_changed_is_sent_again(threshold):
    old = item("page", 0.9, content="Refunds are accepted within fourteen days of purchase.")
    new = item("page", 0.9, content="Since March, refunds are accepted for a full month after you buy.")
    per_query = {"q1": [old], "q2": [new]}
    second = converse(engine(per_query, dedupe_threshold=threshold).session(), per_query)[1]
    assert second.trace.entry("page").reason == "selected" and [i.id for i in second.items] == ["page"]
    assert "shown_changed:page:1" in second.trace.events
    assert second.to_text().index("fourteen days") < second.to_text().index("a full month")  # newest last


def test_without_near_duplicate_detection_only_the_same_text_is_already_shown():
    long = text(3, 40)
    per_query = {
        "q1": [item("concept", 0.9, content=long)],
        "q2": [item("copy", 0.9, content=long.upper()), item("chunk", 0.8, content=" ".join(long.split()[:20]))],
    }
    second = converse(engine(per_query, dedupe_threshold=None).session(), per_query)[1]
    reasons = {e.id: e.reason for e in second.trace.entries}
    assert reasons["copy"] == "already_shown:1" and reasons["chunk"] == "selected"


def test_the_budget_applies_to_what_a_call_adds():
    # items cost their 10 given tokens (only_given_tokens) and each message a call opens costs
    # its framing: the first call spends 20 + F on the pinned system block and 30 + F on its
    # context message; the second adds only a context message, 50 of its room for 5 new items
    f = MESSAGE_FRAMING_TOKENS
    per_query = {"q1": hits("a", "b", "c"), "q2": hits("a", "b", "c", "d", "e", "f", "g", "h", "i")}
    session = engine(per_query, budget=50 + 2 * f, estimator=only_given_tokens).session()
    first, second = converse(session, per_query)
    assert first.tokens_used == 50 + 2 * f and {i.id for i in first.items} == {"sys", "idx", "a", "b", "c"}
    assert second.tokens_used == 50 + f and len(second.items) == 5
    assert {e.id for e in second.trace.entries if e.reason == "budget"} == {"i"}
    third = session.build_sync("q2", budget=20)  # a per-call override limits this call's additions
    assert third.tokens_used == 10 + f and [i.id for i in third.items] == ["i"]


def test_history_belongs_to_the_transcript():
    messages = [{"role": "user", "content": "earlier question"}]
    eng = ContextEngine([StaticSource([SYSTEM], name="sys"), HistorySource(messages)], budget=100)
    first = eng.session().build_sync("now")
    assert first.trace.entry("history:0").reason == "in_transcript"
    assert "earlier question" not in first.to_text()


def test_a_stable_item_that_arrives_late_joins_the_turn_not_the_system_block():
    late = item("policy", 1.0, content="New house rule: answer in French.", stability="stable", pinned=True)
    per_query = {"q1": hits("a"), "q2": [late]}
    first, second = converse(engine(per_query).session(), per_query)
    assert second.system == first.system
    assert "stable_changed:policy" in second.trace.events
    assert "answer in French." in second.turns[-1].context and "policy" in second.turns[-1].item_ids


def growing(turns, size=10):
    """A conversation where every turn retrieves ``size`` new items (about 35 tokens each)."""
    return {f"q{t}": [item(f"t{t}i{k}", 0.9 - k * 0.01, tokens=None) for k in range(size)] for t in range(1, turns + 1)}


def test_the_ceiling_cuts_the_oldest_turns_in_one_large_cut():
    per_query = growing(30)
    session = engine(per_query, budget=400).session(max_prompt_tokens=6000, cut_to=0.5)
    calls = converse(session, per_query)
    cut_at = [c.turn for c in calls if c.cut is not None]
    # turns of about 370 tokens: a cut to 3,000 leaves room for about 7 more before the next
    assert 2 <= len(cut_at) <= 5, cut_at
    assert all(b - a >= 5 for a, b in pairwise(cut_at)), cut_at
    for prev, cur in pairwise(calls):
        if cur.cut is None:
            assert cur.to_text().startswith(prev.to_text())
            continue
        assert not cur.to_text().startswith(prev.to_text())
        assert cur.cut.event in cur.trace.events
        assert cur.cut.retained_tokens <= 0.5 * 6000 and cur.cut.omitted_turns >= 2
        assert [t.number for t in cur.turns] == list(range(cur.turn - len(cur.turns) + 1, cur.turn + 1))
        assert cur.system == calls[0].system  # the stable block survives every cut
        omitted = cur.turn - len(cur.turns)
        assert cur.to_messages("openai")[1]["content"].startswith(f"({omitted} earlier turns")
        first_user = cur.to_messages("anthropic")["messages"][0]["content"]
        assert first_user[0]["text"].startswith(f"({omitted} earlier turns") and len(first_user) == 3
    # turns of even size: counting the new turn as the largest so far keeps under the ceiling
    assert all(c.prompt_tokens <= 6000 for c in calls)
    assert max(c.prompt_tokens for c in calls) > 5000
    assert session.cuts == [c.cut for c in calls if c.cut is not None]


def test_what_a_cut_removed_may_be_shown_again():
    per_query = growing(12)
    per_query["again"] = per_query["q1"][:1]
    session = engine(per_query, budget=300).session(max_prompt_tokens=3000)
    converse(session, list(per_query)[:-1])
    assert session.cuts and session.turns[0].number > 1
    again = session.build_sync("again")
    assert again.trace.entry("t1i0").reason == "selected"


def test_a_reply_follows_its_call():
    session = engine({"q": hits("a")}).session()
    with pytest.raises(ContextError, match="no call"):
        session.record_reply("early")
    session.build_sync("q")
    with pytest.raises(TypeError, match="reply"):
        session.record_reply(None)  # type: ignore[arg-type]
    session.record_reply("done")
    with pytest.raises(ContextError, match="already has a reply"):
        session.record_reply("again")


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"max_prompt_tokens": 100}, "exceed the engine's per-call budget"),
        ({"max_prompt_tokens": 5000.0}, "max_prompt_tokens: must be an int"),
        ({"max_prompt_tokens": True}, "max_prompt_tokens: must be an int"),
        ({"cut_to": 1.0}, "cut_to"),
        ({"cut_to": 0}, "cut_to"),
        ({"gap_notice": None}, "gap_notice"),
        ({"gap_notice": "({n} turns left out)"}, "only {turns}"),
    ],
)
def test_bad_options_are_config_errors(options, match):
    with pytest.raises(ConfigError, match=match):
        ContextSession(engine({}, budget=100), **options)


def test_a_call_that_cannot_fit_under_the_ceiling_is_refused():
    session = engine({"q": hits("a")}, budget=100).session(max_prompt_tokens=110)
    session.build_sync("q")
    with pytest.raises(ContextError, match="alone exceed max_prompt_tokens"):
        session.build_sync("q")


async def test_build_is_async_and_one_call_at_a_time():
    async def slow(query):
        await asyncio.sleep(0.01)
        return hits("a") if query == "q1" else hits("a", "b")

    eng = ContextEngine([StaticSource([SYSTEM], name="sys"), CallableSource(slow, name="rag")], budget=100)
    session = eng.session()
    first = await session.build("q1")
    session.record_reply("ok")
    results = await asyncio.gather(session.build("q2"), session.build("q3"), return_exceptions=True)
    assert isinstance(results[1], ContextError) and "one call at a time" in str(results[1])
    assert results[0].to_text().startswith(first.to_text())
    with pytest.raises(ContextError, match="running event loop"):
        session.build_sync("q4")


async def test_a_large_async_build_gives_the_same_prompt_as_a_small_one(monkeypatch):
    per_query = {"q1": hits(*(f"a{k}" for k in range(40))), "q2": hits(*(f"a{k}" for k in range(20, 60)))}
    inline = converse(engine(per_query, budget=300).session(), per_query)
    monkeypatch.setattr("ctxsieve.engine.selection.OFFLOAD_AT", 1)  # every build on a worker thread
    session = engine(per_query, budget=300).session()
    offloaded = []
    for q in per_query:
        offloaded.append(await session.build(q))
        session.record_reply(f"noted. ({q})")
    assert [c.to_text() for c in offloaded] == [c.to_text() for c in inline]


def test_two_threads_never_build_at_once():
    # a blocking source holds the first build inside the session while a second thread tries
    inside, release = threading.Event(), threading.Event()

    def blocking(query):
        inside.set()
        release.wait(5)
        return hits("a")

    eng = ContextEngine([StaticSource([SYSTEM], name="sys"), CallableSource(blocking, name="rag")], budget=100)
    session = eng.session()
    outcome: list[object] = []
    first = threading.Thread(target=lambda: outcome.append(session.build_sync("q1")))
    first.start()
    assert inside.wait(5)
    with pytest.raises(ContextError, match="one call at a time"):
        session.build_sync("q2")
    release.set()
    first.join(5)
    assert len(outcome) == 1 and len(session.turns) == 1
    session.build_sync("q3")  # free again once the first build is done
    assert len(session.turns) == 2
