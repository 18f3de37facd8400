"""read(write(x)) == x for every codec, over the conversations each one carries exactly
(tests/messages/strategies.py), and the written form is plain JSON."""

from __future__ import annotations

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.messages import anthropic, openai_chat, responses
from tests.messages import strategies
from tests.messages.strategies import anthropic_conversations, chat_messages, responses_conversations


@given(st.lists(chat_messages, max_size=6))
def test_openai_chat_round_trip(msgs):
    written = openai_chat.write(msgs, reasoning=True)
    assert json.loads(json.dumps(written)) == written
    # results that came after an interjection are written right after their call
    assert openai_chat.read(written) == [msgs[i] for i in openai_chat.results_first(msgs)]


@given(st.lists(chat_messages, max_size=6))
def test_openai_chat_without_reasoning_drops_only_deepseek_blocks(msgs):
    back = openai_chat.read(openai_chat.write(msgs))
    ordered = [msgs[i] for i in openai_chat.results_first(msgs)]
    assert [tuple(p for p in m.parts if p not in m.reasoning) for m in ordered] == [m.parts for m in back]


@given(anthropic_conversations())
def test_anthropic_round_trip(msgs):
    system, written = anthropic.write(msgs)
    assert json.loads(json.dumps(written)) == written
    assert anthropic.read(written, system=system) == msgs
    roles = [m["role"] for m in written]
    assert all(a != b for a, b in itertools.pairwise(roles)), roles  # the API wants alternation


@given(anthropic_conversations(), st.data())
def test_anthropic_breakpoints_mark_blocks_and_change_nothing_else(msgs, data):
    indexes = data.draw(st.sets(st.integers(0, max(len(msgs) - 1, 0)), max_size=4)) if msgs else set()
    system, written = anthropic.write(msgs, breakpoints=indexes)
    blocks = [b for m in written for b in m["content"]] + (system if isinstance(system, list) else [])
    marked = [b for b in blocks if "cache_control" in b]
    assert all(b["cache_control"] == {"type": "ephemeral"} for b in marked)
    assert 0 < len(marked) <= len(indexes) if indexes else not marked
    # a breakpoint is an annotation: reading ignores it and gives the same conversation
    assert anthropic.read(written, system=system) == msgs


@given(responses_conversations())
def test_responses_round_trip(msgs):
    written = responses.write(msgs)
    assert json.loads(json.dumps(written)) == written
    assert responses.read(written) == msgs


@given(strategies.tangled_chat)
def test_results_first_is_a_permutation_that_keeps_results_after_their_call(msgs):
    order = openai_chat.results_first(msgs)
    assert sorted(order) == list(range(len(msgs)))
    pos = {i: k for k, i in enumerate(order)}
    for i, m in enumerate(msgs):
        for j in range(i + 1, len(msgs)):
            answers = {r.call_id for r in msgs[j].tool_results}
            if answers and answers <= {c.id for c in m.tool_calls}:
                assert pos[j] > pos[i]  # never before the call it answers


@given(strategies.tangled_chat)
def test_openai_chat_round_trip_with_interjections(msgs):
    written = openai_chat.write(msgs)
    assert openai_chat.read(written) == [msgs[i] for i in openai_chat.results_first(msgs)]
    # a result follows its call at once (only other results between), as the API wants: the
    # call is the latest assistant message making it, and no earlier result answered it
    for k, d in enumerate(written):
        if d["role"] != "tool":
            continue
        cid = d["tool_call_id"]
        callers = [a for a in range(k) if cid in {c["id"] for c in written[a].get("tool_calls") or ()}]
        if callers and not any(written[t].get("tool_call_id") == cid for t in range(callers[-1] + 1, k)):
            assert all(written[t]["role"] == "tool" for t in range(callers[-1] + 1, k)), written
