"""Both layouts, both message styles, the stable prefix, and a multi-turn session."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest

from ctxsieve import CallableSource, ContextEngine, HistorySource, StaticSource
from ctxsieve.stages.render import render

from .helpers import item

SYSTEM = item("sys", 1.0, content="You answer from the context.", kind="instruction", stability="stable", pinned=True)
INDEX = item("idx", 1.0, content="Index: refunds, plans, export.", stability="stable", pinned=True)
SESSION = item("prefs", 1.0, content="The user prefers short answers.", stability="session")
HIT = item("hit", 0.9, content="Refunds within 30 days.")
TURNS = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi, how can I help?"}]


def window(layout):
    engine = ContextEngine(
        [
            StaticSource([SYSTEM], name="sys"),
            StaticSource([INDEX], name="idx"),
            StaticSource([SESSION], name="mem"),
            StaticSource([HIT], name="rag"),
            HistorySource(TURNS),
        ],
        budget=1000,
        layout=layout,
    )
    return engine.build_sync("refund?")


def block(i):
    return f'<context id="{i.id}" source="{i.source}" kind="{i.kind}">\n{i.content}\n</context>'


def test_seed_layout_puts_all_context_in_the_system_message():
    w = window("seed")
    msgs = w.to_messages("openai")
    idx, prefs, hit = (next(i for i in w.items if i.id == k) for k in ("idx", "prefs", "hit"))
    assert msgs == [
        {"role": "system", "content": "\n\n".join([SYSTEM.content, block(idx), block(prefs), block(hit)])},
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi, how can I help?"},
        {"role": "user", "content": "refund?"},
    ]


def test_cache_layout_keeps_only_stable_items_in_the_system_message():
    w = window("cache")
    idx, prefs, hit = (next(i for i in w.items if i.id == k) for k in ("idx", "prefs", "hit"))
    context = "\n\n".join([block(prefs), block(hit)])
    assert w.to_messages("openai") == [
        {"role": "system", "content": f"{SYSTEM.content}\n\n{block(idx)}"},
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi, how can I help?"},
        {"role": "user", "content": context},
        {"role": "user", "content": "refund?"},
    ]
    assert w.to_messages("anthropic") == {
        "system": f"{SYSTEM.content}\n\n{block(idx)}",
        "messages": [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "hi, how can I help?"},
            {"role": "user", "content": [{"type": "text", "text": context}, {"type": "text", "text": "refund?"}]},
        ],
    }
    assert w.to_messages("openai", include_query=False)[-1] == {"role": "user", "content": context}
    assert w.to_messages("anthropic", include_query=False)["messages"][-1] == {"role": "user", "content": context}


def test_text_serialises_the_messages_in_order():
    w = window("cache")
    text = w.to_text()
    assert text.startswith(f"<|system|>\n{SYSTEM.content}")
    assert text.endswith("<|user|>\nrefund?")
    assert text.index("<|assistant|>\nhi, how can I help?") < text.index('<context id="hit"')


def test_stable_prefix_hash_and_tokens():
    w_seed, w_cache = window("seed"), window("cache")
    stable = f"{SYSTEM.content}\n\n{block(next(i for i in w_cache.items if i.id == 'idx'))}"
    assert w_cache.stable_prefix_tokens == math.ceil(len(stable.encode()) / 3)
    # the stable block opens both layouts, so both report the same prefix
    assert w_seed.stable_prefix_hash == w_cache.stable_prefix_hash
    other = ContextEngine([StaticSource([SYSTEM], name="sys")], budget=1000).build_sync("x")
    assert other.stable_prefix_hash != w_cache.stable_prefix_hash


def test_unknown_style_and_layout_are_refused():
    with pytest.raises(ValueError, match="style"):
        window("cache").to_messages("gemini")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="layout"):
        render([], "q", "fastest")


def test_history_keeps_tool_messages_verbatim():
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "answer", "arguments": "{}"}}],
    }
    result = {"role": "tool", "tool_call_id": "c1", "content": "42"}
    engine = ContextEngine([HistorySource([{"role": "user", "content": "q"}, call, result])], budget=1000)
    msgs = engine.build_sync("next").to_messages("openai")
    assert msgs == [{"role": "user", "content": "q"}, call, result, {"role": "user", "content": "next"}]


# -- a conversation over several turns ---------------------------------------------------------

QUESTIONS = [
    "how do refunds work on the team plan",
    "and what about downgrades to a personal plan",
    "can guests edit shared notebooks",
    "how do I export every notebook first",
    "what happens to data when the account is closed",
]


def retrieve(query):
    # a retriever whose hits change with every question, as real ones do
    return [
        item(f"doc-{w}", 1.0 / (k + 1), content=f"Notes about {w}: " + "details " * 20)
        for k, w in enumerate(query.split()[:4])
    ]


def session(layout):
    conversation: list[dict] = []
    engine = ContextEngine(
        [
            StaticSource([SYSTEM], name="sys"),
            StaticSource([INDEX], name="idx"),
            CallableSource(retrieve, name="rag", blocking=False),
            HistorySource(conversation),
        ],
        budget=4000,
        layout=layout,
    )
    windows = []
    for n, q in enumerate(QUESTIONS):
        windows.append(engine.build_sync(q))
        conversation += [{"role": "user", "content": q}, {"role": "assistant", "content": f"answer {n}"}]
    return windows


def common_prefix(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def system_and_history(w):
    """The window's prompt text up to its transient context message and query."""
    return dataclasses.replace(render(w.items, w.query, w.layout), context="").text(include_query=False)


def test_cache_layout_keeps_the_whole_history_in_the_shared_prefix():
    windows = session("cache")
    texts = [w.to_text() for w in windows]
    for w, nxt in zip(windows, texts[1:]):
        # everything before this turn's transient context (system + history) opens the next
        # prompt byte for byte: the provider's cache can reuse all of it
        assert nxt.startswith(system_and_history(w))
    assert len({w.to_messages("openai")[0]["content"] for w in windows}) == 1
    assert [len(w.to_messages("openai")) for w in windows] == [3, 5, 7, 9, 11]
    shared = [common_prefix(a, b) for a, b in itertools.pairwise(texts)]
    assert shared == sorted(shared) and shared[-1] > shared[0], "the cached prefix grows with the conversation"


def test_seed_layout_loses_the_prefix_at_the_first_changed_hit():
    seed, cache = session("seed"), session("cache")
    seed_texts = [w.to_text() for w in seed]
    cache_texts = [w.to_text() for w in cache]
    for w, nxt in zip(seed, seed_texts[1:]):
        assert not nxt.startswith(system_and_history(w))
    seed_shared = [common_prefix(a, b) for a, b in itertools.pairwise(seed_texts)]
    cache_shared = [common_prefix(a, b) for a, b in itertools.pairwise(cache_texts)]
    # the seed layout's shared prefix ends inside the system message, however long the history
    assert max(seed_shared) < len("<|system|>\n") + len(seed[0].to_messages("openai")[0]["content"])
    # from the second turn on there is history to share, and the cache layout shares all of it
    # (on the first pair both share little more than the system message)
    assert all(c > s for c, s in zip(cache_shared[1:], seed_shared[1:]))
