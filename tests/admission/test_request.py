"""The three-part request and its OpenAI / Anthropic renderings."""

from __future__ import annotations

import json

import pytest

from ctxsieve.admission import Image, Message, Request, Session, ToolCall
from ctxsieve.messages import MessageError, Text, ToolResult, tool_result


def loop_messages() -> tuple[Message, ...]:
    return (
        Message(
            "assistant",
            (Text("Let me check."), ToolCall("c1", "search", '{"q": "a"}'), ToolCall("c2", "f", "oops")),
        ),
        tool_result("c1", "result one"),
        tool_result("c2", "result two"),
    )


def request(**kw: object) -> Request:
    base = dict(
        model="m",
        system="SYS",
        context="CTX",
        current=Message(
            "user", (Text("now"), Image(url="https://x/a.png"), Image(data="QUJD", media_type="image/jpeg"))
        ),
        messages=loop_messages(),
        tools=({"name": "search", "description": "d", "input_schema": {"type": "object"}},),
    )
    base.update(kw)
    return Request(**base)  # type: ignore[arg-type]


def test_openai_shape() -> None:
    body = request().to_openai()
    assert body["model"] == "m"
    msgs = body["messages"]
    assert msgs[0] == {"role": "system", "content": "SYS"}
    assert msgs[1] == {"role": "user", "content": "CTX"}
    assert msgs[2] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "now"},
            {"type": "image_url", "image_url": {"url": "https://x/a.png"}},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,QUJD"}},
        ],
    }
    assert msgs[3]["tool_calls"][1] == {"id": "c2", "type": "function", "function": {"name": "f", "arguments": "oops"}}
    assert msgs[4] == {"role": "tool", "tool_call_id": "c1", "content": "result one"}
    assert msgs[5] == {"role": "tool", "tool_call_id": "c2", "content": "result two"} and len(msgs) == 6
    assert body["tools"] == [
        {"type": "function", "function": {"name": "search", "description": "d", "parameters": {"type": "object"}}}
    ]


def test_anthropic_shape() -> None:
    body = request().to_anthropic()
    assert body["system"] == "SYS"
    first, assistant, results = body["messages"]
    assert first["role"] == "user"
    assert first["content"][:2] == [{"type": "text", "text": "CTX"}, {"type": "text", "text": "now"}]
    assert first["content"][3] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/jpeg", "data": "QUJD"},
    }
    assert assistant["role"] == "assistant"
    assert assistant["content"][1] == {"type": "tool_use", "id": "c1", "name": "search", "input": {"q": "a"}}
    assert assistant["content"][2]["input"] == {"_raw_arguments": "oops"}
    # consecutive results share one user turn so roles alternate
    assert results["role"] == "user" and [b["type"] for b in results["content"]] == ["tool_result", "tool_result"]
    assert body["tools"] == [{"name": "search", "description": "d", "input_schema": {"type": "object"}}]


def test_no_context_message_when_there_is_nothing_to_attribute() -> None:
    adm = Session().turn("hello", system="S").admit()
    assert adm.request.context is None
    assert [m["role"] for m in adm.request.to_openai()["messages"]] == ["system", "user"]


def test_payload_is_canonical_json_of_the_request() -> None:
    r = request(current=Message("user", (Text("now"), Image(url="https://x/a.png"))))
    payload = json.loads(r.payload())
    assert payload["shape"] == "ctxsieve.request/1" and payload["messages"] == r.to_openai()["messages"]
    assert request().payload() == request().payload()  # deterministic


def test_system_never_carries_external_content() -> None:
    turn = Session().turn(
        "q",
        system="RUNTIME",
        history=[{"role": "user", "content": "EXTERNAL-HISTORY"}],
        memories=["EXTERNAL-MEMORY"],
        labels={"channel": "support"},
        attribution="a customer",
    )
    adm = turn.admit()
    assert adm.request.system == "RUNTIME"
    ctx = adm.request.context or ""
    assert "EXTERNAL-HISTORY" in ctx and "EXTERNAL-MEMORY" in ctx
    assert "[conversation channel: support]" in ctx and "[current message from: a customer]" in ctx


def test_payload_keeps_inline_images_by_reference() -> None:
    import hashlib

    payload = json.loads(request().payload())
    parts = payload["messages"][2]["content"]
    assert parts[1] == {"type": "image_url", "image_url": {"url": "https://x/a.png"}}
    assert parts[2] == {
        "type": "image_ref",
        "media": "image/jpeg;base64",
        "sha256": hashlib.sha256(b"QUJD").hexdigest(),
        "base64_chars": 4,
    }
    assert "QUJD" not in request().payload()


def test_anthropic_leaves_out_empty_messages() -> None:
    # e.g. an assistant turn that produced nothing: the API rejects an empty text block
    msgs = (Message("assistant", (Text(""),)), Message("user", (Text("again"),)), Message("assistant", (Text("ok"),)))
    body = request(messages=msgs).to_anthropic()
    blocks = [b for m in body["messages"] for b in m["content"]]
    assert all(b.get("text") != "" for b in blocks if b["type"] == "text")
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant"]  # "again" joined the first user turn; roles alternate
    assert body["messages"][0]["content"][-1] == {"type": "text", "text": "again"}


def test_a_tool_result_without_its_call_id_cannot_be_sent() -> None:
    # it used to be sent as user text ("[tool result without a call id]"); now no such message
    # exists: the model refuses it, so no request can carry it
    with pytest.raises(MessageError, match="a tool result needs the id of the call it answers"):
        Message("tool", (ToolResult("", (Text("stray result"),)),))
