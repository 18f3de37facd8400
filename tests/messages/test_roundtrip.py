"""read(write(x)) == x for every codec, over the conversations each one carries exactly
(tests/messages/strategies.py), and the written form is plain JSON."""

from __future__ import annotations

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.messages import anthropic, openai_chat, responses
from tests.messages.strategies import anthropic_conversations, chat_messages, responses_conversations


@given(st.lists(chat_messages, max_size=6))
def test_openai_chat_round_trip(msgs):
    written = openai_chat.write(msgs, reasoning=True)
    assert json.loads(json.dumps(written)) == written
    assert openai_chat.read(written) == msgs


@given(st.lists(chat_messages, max_size=6))
def test_openai_chat_without_reasoning_drops_only_deepseek_blocks(msgs):
    back = openai_chat.read(openai_chat.write(msgs))
    assert [tuple(p for p in m.parts if p not in m.reasoning) for m in msgs] == [m.parts for m in back]


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
