"""``WireCache``: writing through the cache gives what writing without it gives, call after call,
and nothing a request does to its body (a breakpoint, a key set by the caller) stays behind."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.messages import Message, Text, anthropic, openai_chat, responses, user
from ctxsieve.messages.wire import WireCache
from tests.messages.strategies import anthropic_conversations, chat_messages, responses_conversations


@given(st.lists(chat_messages, max_size=6))
def test_openai_chat_through_the_cache_is_the_same(msgs):
    cache = WireCache()
    for n in range(len(msgs) + 1):  # a growing list, written again each time
        assert openai_chat.write(msgs[:n], cache=cache) == openai_chat.write(msgs[:n])


@given(anthropic_conversations(), st.data())
def test_anthropic_through_the_cache_is_the_same_and_marks_stay_out_of_it(msgs, data):
    cache = WireCache()
    for n in range(1, len(msgs) + 1):
        marks = data.draw(st.sets(st.integers(0, n - 1), max_size=3))
        assert anthropic.write(msgs[:n], breakpoints=marks, cache=cache) == anthropic.write(msgs[:n], breakpoints=marks)
    assert "cache_control" not in repr(anthropic.write(msgs, cache=cache))


@given(responses_conversations())
def test_responses_through_the_cache_is_the_same(msgs):
    cache = WireCache()
    assert responses.write(msgs, cache=cache) == responses.write(msgs)
    assert responses.write(msgs, cache=cache) == responses.write(msgs)


def test_a_caller_changing_its_request_does_not_change_the_next():
    cache = WireCache()
    msgs = [user("hi"), Message("assistant", (Text("hello"),))]
    first = openai_chat.write(msgs, cache=cache)
    first[0]["name"] = "changed"
    assert openai_chat.write(msgs, cache=cache)[0] == {"role": "user", "content": "hi"}
    _, body = anthropic.write(msgs, breakpoints=[1], cache=cache)
    body[0]["role"] = "changed"
    assert anthropic.write(msgs, cache=cache)[1][0]["role"] == "user"


def test_retain_keeps_only_the_given_messages():
    cache = WireCache()
    a, b = user("a"), user("b")
    openai_chat.write([a, b], cache=cache)
    cache.retain([b])
    assert len(cache) == 1
