"""Images and reasoning in the transcript: costed, kept, and sent back only where they belong."""

from __future__ import annotations

import pytest

from ctxsieve import ConfigError, Limits
from ctxsieve.conversation import Conversation

from .helpers import TOOLS

THINKING = {"type": "thinking", "thinking": "The user wants order A-1; look it up.", "signature": "EqQBCgIYAhIM1gbcDa"}


def test_an_image_costs_the_image_rate_and_is_sent_in_each_shape():
    conv = Conversation(system="s", limits=Limits(image_tokens=1500))
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    conv.add_user({"role": "user", "content": [{"type": "text", "text": "what is this?"}, image]})
    call = conv.prepare()
    assert call.report.sections["messages"] >= 1500
    assert call.openai()["messages"][-1]["content"][1] == image
    block = call.anthropic()["messages"][-1]["content"][1]
    assert block["type"] == "image" and block["source"]["data"] == "iVBORw0KGgo="


def test_anthropic_thinking_is_kept_byte_exact_and_only_sent_back_to_anthropic():
    conv = Conversation(system="s", tools=TOOLS)
    conv.add_user("where is A-1?")
    conv.prepare()
    conv.record_response(
        {
            "type": "message",
            "role": "assistant",
            "content": [THINKING, {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"order": "A-1"}}],
            "usage": {"input_tokens": 50, "output_tokens": 30},
        }
    )
    conv.add_tool_result("toolu_1", "shipped")
    call = conv.prepare()
    sent = call.anthropic()["messages"][1]["content"]
    assert sent[0] == THINKING  # first, as the API requires for a tool-use turn, unchanged
    assert "thinking" not in str(call.openai()["messages"])
    # counted: the reasoning's text and signature are part of the message's estimate
    from dataclasses import replace

    reply = conv.transcript[1].message
    without = replace(reply, parts=tuple(p for p in reply.parts if p not in reply.reasoning))
    assert conv.transcript[1].tokens - conv._cost(without) >= len(THINKING["thinking"]) // 3


def test_with_a_provider_an_image_of_known_size_costs_its_formula():
    from ctxsieve.messages import Image, Message, Text
    from ctxsieve.tokenizers.images import image_tokens

    photo = Image(data="iVBORw0KGgo=", width=1024, height=1024)
    msg = Message("user", (Text("what is this?"), photo))
    sized = Conversation(system="s", provider="anthropic")
    sized.add_user(msg)
    unsized = Conversation(system="s")
    unsized.add_user(msg)
    assert sized.transcript[0].tokens - unsized.transcript[0].tokens == image_tokens(photo, "anthropic") - 8192
    with pytest.raises(ConfigError, match="provider"):
        Conversation(provider="openia")
