"""sent_texts: everything a message sends as text (what token counting must see)."""

from __future__ import annotations

from ctxsieve.messages import Image, Message, Reasoning, Text, ToolCall, ToolResult, sent_texts


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
