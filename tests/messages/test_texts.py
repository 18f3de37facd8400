"""sent_texts: everything a message sends as text (what token counting must see)."""

from __future__ import annotations

from ctxsieve.messages import Image, Message, Reasoning, Text, ToolCall, ToolResult, sent_texts
from ctxsieve.messages.replies import is_response


def test_every_sent_text_is_listed():
    m = Message(
        "assistant",
        (
            Reasoning("thinking", signature="SIG"),
            Reasoning(redacted=True, data="OPAQUE"),
            Text("answer"),
            Image(url="https://x/i.png", description="a chart"),
            ToolCall("c1", "search", '{"q":"x"}'),
        ),
    )
    assert sent_texts(m) == ["thinking", "SIG", "OPAQUE", "answer", "c1", "search", '{"q":"x"}']


def test_results_send_their_call_id_and_text_not_image_bytes():
    m = Message("tool", (ToolResult("c1", (Text("out"), Image(data="AAAA"), Text("more"))), ToolResult("c2")))
    assert sent_texts(m) == ["c1", "out", "more", "c2"]


def test_the_sender_name_is_sent():
    m = Message("user", (Text("hi"),), name="alice_bot")
    assert sent_texts(m) == ["alice_bot", "hi"]


def test_is_response_tells_a_response_from_an_item():
    assert is_response({"choices": [{"message": {"role": "assistant", "content": "x"}}]})
    assert is_response({"object": "response", "output": []})
    assert is_response({"id": "resp_1", "output": [{"type": "message", "role": "assistant", "content": "x"}]})
    # a Responses function_call_output item has an "output" too: it is not a response
    assert not is_response({"type": "function_call_output", "call_id": "c", "output": "18C"})
    assert not is_response({"role": "assistant", "content": "x"}) and not is_response("text")
