"""Reasoning over random conversations (hypothesis, the project's profiles): whatever the
provider, the blocks (Anthropic signed, unsigned and redacted thinking, Responses items with
encrypted content and no summary, DeepSeek ``reasoning_content`` with tool calls across turns)
and the cuts a small ceiling forces, every call's message estimate equals a recount of what it
sends, and no rendering carries a block its provider would refuse."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import Conversation, Limits
from ctxsieve.messages import Message, Reasoning, Text, ToolCall, ToolResult
from tests.conversation.test_provider_reasoning import message_tokens, recount

TOOL = {"type": "function", "function": {"name": "lookup", "description": "d", "parameters": {"type": "object"}}}

_words = st.text("abc xyz", min_size=1, max_size=40).filter(lambda t: not t.isspace())
_reasoning = st.one_of(
    st.builds(lambda t, s: Reasoning(t, signature=s, provider="anthropic"), _words, st.none() | _words),
    st.builds(lambda d: Reasoning(redacted=True, data=d, provider="anthropic"), _words),
    st.builds(
        lambda t, e, k: Reasoning(t if k else "", signature=e, provider="openai", id=f"rs_{e[:4]}"),
        _words,
        _words,
        st.booleans(),
    ),
    st.builds(lambda t: Reasoning(t, provider="deepseek"), _words),
)
# one step of a turn: (reasoning blocks, number of tool calls, answer text)
_step = st.tuples(st.lists(_reasoning, max_size=2), st.integers(0, 2), st.none() | _words)
_turn = st.tuples(_words, st.lists(_step, min_size=1, max_size=3))


def _unsigned_thinking(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        b
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "thinking" and not b.get("signature")
    ]


@given(
    provider=st.sampled_from(["anthropic", "openai", "deepseek", "gemini", None]),
    turns=st.lists(_turn, min_size=1, max_size=6),
    ceiling=st.sampled_from([1400, 1700, 100_000]),
)
def test_every_call_counts_what_it_sends(provider: str | None, turns: list[Any], ceiling: int) -> None:
    conv = Conversation(system="s", tools=[TOOL], provider=provider, limits=Limits(input_ceiling=ceiling))
    n = 0
    for question, steps in turns:
        conv.add_user(question)
        for thoughts, calls, answer in steps:
            call = conv.prepare()
            assert message_tokens(call) == recount(conv, call)
            assert not _unsigned_thinking(call.anthropic(max_tokens=8))  # the API requires the signature
            ids = [f"c{n + k}" for k in range(calls)]
            n += calls
            parts = (*thoughts, *((Text(answer),) if answer else ()), *(ToolCall(i, "lookup", "{}") for i in ids))
            conv.add(Message("assistant", parts or (Text("ok"),)))
            for i in ids:
                conv.add(Message("tool", (ToolResult(i, (Text("result " * 20),)),)))
            if not ids:
                break
    conv.add_user("and now?")
    call = conv.prepare()
    assert message_tokens(call) == recount(conv, call)
    assert not _unsigned_thinking(call.anthropic(max_tokens=8))


def test_an_unsigned_thinking_block_is_neither_sent_nor_counted() -> None:
    # a stream cut before its signature_delta: Anthropic answers 400 for the block sent back
    # ("signature: Field required"), and may do without it (as for an earlier turn's)
    conv = Conversation(system="s", tools=[TOOL], provider="anthropic")
    conv.add_user("q")
    conv.prepare()
    unsigned = Reasoning("a long thought " * 30, provider="anthropic")
    conv.add(Message("assistant", (unsigned, Text("answer"))))
    conv.add_user("q2")
    call = conv.prepare()
    assert call.anthropic(max_tokens=8)["messages"][1]["content"] == [{"type": "text", "text": "answer"}]
    assert message_tokens(call) == recount(conv, call)
    assert unsigned not in call.sent_messages[1].parts
    assert conv.transcript[1].message.parts[0] is unsigned  # the transcript keeps it as returned
