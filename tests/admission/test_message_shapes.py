"""Admission takes a conversation in any provider's shape, through the codecs of
ctxsieve.messages: the same conversation in three shapes admits to the same request, and a
provider's response is recorded as its assistant message."""

from __future__ import annotations

from typing import Any

import pytest

from ctxsieve.admission import Session
from ctxsieve.messages import Message, MessageError, Text, ToolCall, ToolResult, responses

CHAT = [
    {"role": "user", "content": "Weather in Paris and Rome?"},
    {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": '{"city":"Paris"}'}},
            {"id": "c2", "type": "function", "function": {"name": "weather", "arguments": '{"city":"Rome"}'}},
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "18C"},
    {"role": "tool", "tool_call_id": "c2", "content": "24C"},
    {"role": "assistant", "content": "Paris 18C, Rome 24C."},
]
ANTHROPIC = [
    {"role": "user", "content": "Weather in Paris and Rome?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "c1", "name": "weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "c2", "name": "weather", "input": {"city": "Rome"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "18C"},
            {"type": "tool_result", "tool_use_id": "c2", "content": "24C"},
        ],
    },
    {"role": "assistant", "content": "Paris 18C, Rome 24C."},
]
RESPONSES = [
    {"role": "user", "content": "Weather in Paris and Rome?"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
    {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city":"Paris"}'},
    {"type": "function_call", "call_id": "c2", "name": "weather", "arguments": '{"city":"Rome"}'},
    {"type": "function_call_output", "call_id": "c1", "output": "18C"},
    {"type": "function_call_output", "call_id": "c2", "output": "24C"},
    {"role": "assistant", "content": "Paris 18C, Rome 24C."},
]
MODEL = [
    Message("user", (Text("Weather in Paris and Rome?"),)),
    Message(
        "assistant",
        (
            Text("Checking."),
            ToolCall("c1", "weather", '{"city":"Paris"}'),
            ToolCall("c2", "weather", '{"city":"Rome"}'),
        ),
    ),
    Message("tool", (ToolResult("c1", (Text("18C"),)), ToolResult("c2", (Text("24C"),)))),
    Message("assistant", (Text("Paris 18C, Rome 24C."),)),
]


def _context(history: list[Any]) -> str:
    return Session().turn("thanks", history=history).admit().request.context or ""


@pytest.mark.parametrize(
    "history", [ANTHROPIC, responses.read(RESPONSES), MODEL], ids=["anthropic", "responses", "model"]
)
def test_one_conversation_in_any_shape_gives_one_context(history: list[Any]) -> None:
    expected = _context(CHAT)
    assert '-> called weather({"city":"Rome"}) [call c2]' in expected
    assert "[turn 1 · tool result for call c2]\n24C" in expected
    assert _context(history) == expected


def test_the_call_and_its_results_are_one_record_in_every_shape() -> None:
    for history in (CHAT, ANTHROPIC, responses.read(RESPONSES), MODEL):
        counts = Session().turn("thanks", history=history).admit().report.counts["history"]
        assert counts["records"] == 3, history  # question, the exchange, the answer


def test_responses_items_given_one_by_one_keep_every_call_with_its_results() -> None:
    # each item is read on its own (read_any): the assistant's text and each call are messages
    # of their own, so the text is a record apart; the calls still travel with their results
    adm = Session().turn("thanks", history=RESPONSES).admit()
    assert adm.report.counts["history"]["records"] == 4
    ctx = adm.request.context or ""
    assert ctx.index("[call c1]") < ctx.index("[call c2]") < ctx.index("for call c1]") < ctx.index("for call c2]")


@pytest.mark.parametrize(
    "response",
    [
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {"id": "c9", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
                        ],
                    },
                }
            ],
        },
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "c9", "name": "weather", "input": {}}],
        },
        {
            "id": "resp_1",
            "object": "response",
            "output": [{"type": "function_call", "id": "fc_1", "call_id": "c9", "name": "weather", "arguments": "{}"}],
        },
    ],
    ids=["chat-completion", "anthropic", "responses"],
)
def test_a_provider_response_is_recorded_as_its_assistant_message(response: Any) -> None:
    turn = Session().turn("weather?", tools=[{"name": "weather", "input_schema": {"type": "object"}}])
    turn.admit()
    turn.record_response(response)
    turn.add_tool_result("c9", "18C")
    sent = turn.admit().request.to_openai()["messages"]
    assert sent[-2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "weather", "arguments": "{}"}}],
    }
    assert sent[-1] == {"role": "tool", "tool_call_id": "c9", "content": "18C"}
    assert turn.run.tool_calls == 1
    # the turn's public view of what its loop added and of its calls (assembly reads these)
    assert [m.role for m in turn.messages] == ["assistant", "tool"] and turn.messages[0].tool_calls[0].id == "c9"
    assert (turn.call_index, turn.attempt, turn.notes) == (1, 0, ())


def test_a_malformed_reply_is_refused_and_not_added() -> None:
    turn = Session().turn("weather?")
    turn.admit()
    with pytest.raises(MessageError, match=r"^turn\.messages\[0\]\.choices: expected a non-empty list"):
        turn.record_response({"choices": []})
    with pytest.raises(MessageError, match=r"^turn\.messages\[0\]\.role: 'ai' .*LangChain"):
        turn.add({"role": "ai", "content": "hi"})
    assert turn.admit().request.messages == ()


def test_reasoning_is_not_shown_in_the_context_and_costs_nothing_there() -> None:
    thinking = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "SECRET-THOUGHT"}]}
    with_it = Session().turn("thanks", history=[RESPONSES[0], thinking, *RESPONSES[1:]]).admit()
    without = Session().turn("thanks", history=RESPONSES).admit()
    assert "SECRET-THOUGHT" not in (with_it.request.context or "")
    assert with_it.request.context == without.request.context
    assert with_it.report.sections["history"] == without.report.sections["history"]


def test_a_raw_read_as_two_messages_is_costed_once_and_shown_as_two() -> None:
    seen: list[int] = []

    def counting(texts: list[str]) -> list[int]:
        seen.append(len(texts))
        return [len(t) for t in texts]

    session = Session(estimator=counting)
    both = {  # an Anthropic user message: a result, then the user's text
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "18C"}, {"type": "text", "text": "and?"}],
    }
    history = [
        ANTHROPIC[0],
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "w", "input": {}}]},
        both,
    ]
    first = session.turn("q", history=history).admit().request.context or ""
    assert "[turn 1 · tool result for call c1]\n18C\n[turn 2 · user]\nand?\n" in first
    estimated = session.accountant.estimated_messages
    again = session.turn("q", history=history).admit().request.context
    assert again == first and session.accountant.estimated_messages == estimated  # read and costed once


def test_the_current_message_must_be_one_message() -> None:
    both = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "18C"}, {"type": "text", "text": "and?"}],
    }
    with pytest.raises(MessageError, match=r"^user: the current message reads as 2 messages, expected one"):
        Session().turn(both)
