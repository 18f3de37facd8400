"""Requests and responses as the providers document them, read into the model and written back.

The fixtures are written by hand from the providers' documentation (cited per fixture); the
opaque values (signatures, encrypted content) are shortened, never altered in form.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic

from ctxsieve.messages import (
    Image,
    Message,
    Reasoning,
    Text,
    ToolCall,
    ToolResult,
    anthropic,
    openai_chat,
    read_any,
    response_message,
    responses,
)
from ctxsieve.messages.wire import WireCache

# https://platform.openai.com/docs/guides/function-calling (Chat Completions, tool calls)
CHAT_COMPLETION = {
    "id": "chatcmpl-abc123",
    "object": "chat.completion",
    "created": 1699896916,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_abc123",
                        "type": "function",
                        "function": {"name": "get_current_weather", "arguments": '{\n"location": "Boston, MA"\n}'},
                    }
                ],
            },
            "logprobs": None,
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99},
}

# https://platform.openai.com/docs/guides/vision (an image part, with detail)
CHAT_VISION_USER = {
    "role": "user",
    "content": [
        {"type": "text", "text": "What's in this image?"},
        {"type": "image_url", "image_url": {"url": "https://upload.wikimedia.org/boardwalk.jpg", "detail": "high"}},
    ],
}


def test_chat_completion_response_and_the_tool_loop():
    m = response_message(CHAT_COMPLETION)
    # the arguments are kept byte for byte, newlines and all
    assert m == Message(
        "assistant", (ToolCall("call_abc123", "get_current_weather", '{\n"location": "Boston, MA"\n}'),)
    )
    history = openai_chat.read(
        [
            {"role": "system", "content": "You are a helpful assistant."},
            CHAT_VISION_USER,
            CHAT_COMPLETION["choices"][0]["message"],
            {"role": "tool", "tool_call_id": "call_abc123", "content": '{"temperature": 22}'},
        ]
    )
    assert history[1].parts == (Text("What's in this image?"), Image(url="https://upload.wikimedia.org/boardwalk.jpg"))
    assert history[3] == Message("tool", (ToolResult("call_abc123", (Text('{"temperature": 22}'),)),))
    out = openai_chat.write(history)
    assert out[2] == CHAT_COMPLETION["choices"][0]["message"]
    assert out[3] == {"role": "tool", "tool_call_id": "call_abc123", "content": '{"temperature": 22}'}


def test_chat_base64_image_and_developer_role():
    url = "data:image/jpeg;base64,/9j/4AAQSkZJRg=="
    (dev, user) = openai_chat.read(
        [
            {"role": "developer", "content": "Be terse."},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]},
        ]
    )
    assert dev == Message("system", (Text("Be terse."),))
    assert user.parts == (Image(data="/9j/4AAQSkZJRg==", media_type="image/jpeg"),)
    assert openai_chat.write([user])[0]["content"] == [{"type": "image_url", "image_url": {"url": url}}]


# https://api-docs.deepseek.com/guides/reasoning_model (reasoning_content beside content)
def test_deepseek_reasoning_content_is_kept_and_sent_back_only_when_asked():
    (m,) = openai_chat.read(
        [{"role": "assistant", "content": "9.8 is greater.", "reasoning_content": "Compare 9.11 and 9.80."}]
    )
    assert m.parts == (Reasoning("Compare 9.11 and 9.80.", provider="deepseek"), Text("9.8 is greater."))
    assert openai_chat.write([m]) == [{"role": "assistant", "content": "9.8 is greater."}]
    assert openai_chat.write([m], reasoning=True)[0]["reasoning_content"] == "Compare 9.11 and 9.80."
    # Anthropic's thinking is never sent to an OpenAI-shaped API, even with reasoning=True
    other = Message("assistant", (Reasoning("t", signature="s", provider="anthropic"), Text("x")))
    assert "reasoning_content" not in openai_chat.write([other], reasoning=True)[0]


def test_chat_parallel_results_and_result_images():
    tool = Message("tool", (ToolResult("a", (Text("1"),)), ToolResult("b", (Text("2"), Image(url="https://x/p.png")))))
    assert openai_chat.write([tool]) == [
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        # a tool message carries text only: the image follows, after every result
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "[images from tool call b]"},
                {"type": "image_url", "image_url": {"url": "https://x/p.png"}},
            ],
        },
    ]


def test_chat_audience_is_read_never_written():
    (m,) = openai_chat.read([{"role": "user", "content": "secret", "audience": ["alice"]}])
    assert m.audience == frozenset({"alice"})
    assert openai_chat.write([m]) == [{"role": "user", "content": "secret"}]
    (pub,) = openai_chat.read([{"role": "user", "content": "hi", "audience": "public"}])
    assert pub.audience is None


def test_chat_non_str_arguments_become_compact_json():
    (m,) = openai_chat.read(
        [
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"q": "é", "n": [1, 2]}}}],
            }
        ]
    )
    assert m.tool_calls[0].arguments == '{"q":"é","n":[1,2]}'


class _Function(pydantic.BaseModel):
    name: str
    arguments: str


class _ToolCall(pydantic.BaseModel):
    id: str
    type: str = "function"
    function: _Function


class _ChatMessage(pydantic.BaseModel):
    """Shaped like the openai SDK's ChatCompletionMessage: unset fields are None."""

    role: str
    content: str | None = None
    refusal: str | None = None
    function_call: Any | None = None
    audio: Any | None = None
    tool_calls: list[_ToolCall] | None = None


def test_sdk_objects_read_through_their_dicts():
    sdk = _ChatMessage(role="assistant", tool_calls=[_ToolCall(id="c1", function=_Function(name="f", arguments="{}"))])
    assert openai_chat.read([sdk]) == [Message("assistant", (ToolCall("c1", "f", "{}"),))]
    assert response_message({"choices": [{"message": sdk}]}) == openai_chat.read([sdk])[0]
    assert read_any(sdk, "history[0]") == openai_chat.read([sdk])


def test_messages_pass_through_every_reader():
    m = Message("user", (Text("hi"),), audience=frozenset({"bob"}))
    assert openai_chat.read([m]) == [m] and anthropic.read([m]) == [m] and responses.read([m]) == [m]
    assert read_any(m, "x") == [m]


# https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview
ANTHROPIC_TOOL_USE = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "I'll check the weather."},
        {
            "type": "tool_use",
            "id": "toolu_01A09q90qw90lq917835lq9",
            "name": "get_weather",
            "input": {"location": "San Francisco, CA", "unit": "celsius"},
        },
    ],
}
# https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking (thinking and redacted_thinking)
ANTHROPIC_RESPONSE = {
    "id": "msg_01Aq9w938a90dw8q",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {
            "type": "thinking",
            "thinking": "Let me analyze this step by step...",
            "signature": "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL==",
        },
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},
        {"type": "text", "text": "Based on my analysis..."},
    ],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 2095, "output_tokens": 503},
}


def test_anthropic_thinking_is_byte_exact_and_goes_back_unchanged():
    m = response_message(ANTHROPIC_RESPONSE)
    thinking, redacted = m.reasoning
    assert thinking == Reasoning(
        "Let me analyze this step by step...",
        signature=ANTHROPIC_RESPONSE["content"][0]["signature"],
        provider="anthropic",
    )
    assert redacted == Reasoning(redacted=True, data=ANTHROPIC_RESPONSE["content"][1]["data"], provider="anthropic")
    _, out = anthropic.write([Message("user", (Text("q"),)), m])
    assert out[1] == {"role": "assistant", "content": ANTHROPIC_RESPONSE["content"]}
    # OpenAI's reasoning is never sent to Anthropic
    foreign = Message("assistant", (Reasoning("r", signature="enc", provider="openai"), Text("x")))
    assert anthropic.write([foreign])[1] == [{"role": "assistant", "content": [{"type": "text", "text": "x"}]}]


def test_anthropic_tool_loop_with_parallel_results_and_a_following_text():
    user_turn = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9", "content": "15 degrees"},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_02",
                "content": [{"type": "text", "text": "fail"}],
                "is_error": True,
            },
            {"type": "text", "text": "Thanks, and Paris?"},
        ],
    }
    msgs = anthropic.read([{"role": "user", "content": "Weather?"}, ANTHROPIC_TOOL_USE, user_turn], system="Be brief.")
    assert [m.role for m in msgs] == ["system", "user", "assistant", "tool", "user"]
    assert json.loads(msgs[2].tool_calls[0].arguments) == ANTHROPIC_TOOL_USE["content"][1]["input"]
    assert msgs[3].tool_results[1] == ToolResult("toolu_02", (Text("fail"),), is_error=True)
    system, out = anthropic.write(msgs)
    assert system == "Be brief."
    assert out[1] == ANTHROPIC_TOOL_USE
    # a list of one text block reads as that text: written as a str, the same content
    assert out[2]["content"][1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_02",
        "content": "fail",
        "is_error": True,
    }
    assert out[2]["content"][2] == {"type": "text", "text": "Thanks, and Paris?"}


def test_anthropic_merges_tool_messages_of_parallel_calls_into_one_user_message():
    msgs = [
        Message("assistant", (ToolCall("a", "f", "{}"), ToolCall("b", "g", "{}"))),
        Message("tool", (ToolResult("a", (Text("1"),)),)),
        Message("tool", (ToolResult("b", (Text("2"),)),)),
        Message("user", (Text(""), Text("next"))),
    ]
    _, out = anthropic.write(msgs)
    assert out[1] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "1"},
            {"type": "tool_result", "tool_use_id": "b", "content": "2"},
            {"type": "text", "text": "next"},  # the empty text part is not written
        ],
    }


def test_anthropic_breakpoints_land_on_the_last_block_of_their_message():
    msgs = [
        Message("system", (Text("rules"), Text("tools"))),
        Message("user", (Text("a"), Image(data="AAAA", media_type="image/png"))),
        Message("assistant", (Reasoning("t", signature="s", provider="anthropic"),)),
        Message("user", (Text("b"),)),
    ]
    system, out = anthropic.write(msgs, breakpoints=[1, 2], system_breakpoint=True)
    assert system == [
        {"type": "text", "text": "rules"},
        {"type": "text", "text": "tools", "cache_control": {"type": "ephemeral"}},
    ]
    eph = {"type": "ephemeral"}
    assert out[0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
        "cache_control": eph,
    }
    # message 2 writes only a thinking block, which cannot carry cache_control: the mark stays on
    # the last block before it (the same prefix)
    assert "cache_control" not in out[1]["content"][0]
    assert sum("cache_control" in b for m in out for b in m["content"]) == 1
    assert anthropic.write(msgs)[0] == [{"type": "text", "text": "rules"}, {"type": "text", "text": "tools"}]
    assert anthropic.write(msgs[1:])[0] is None


def test_anthropic_invalid_arguments_are_kept_not_dropped():
    m = Message("assistant", (ToolCall("c", "f", '{"a": '),))
    assert anthropic.write([m])[1][0]["content"][0]["input"] == {"_raw_arguments": '{"a": '}


# https://platform.openai.com/docs/guides/function-calling (Responses), and
# https://cookbook.openai.com/examples/responses_api/reasoning_items (reasoning items)
RESPONSES_RESPONSE = {
    "id": "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
    "object": "response",
    "status": "completed",
    "model": "o4-mini",
    "output": [
        {
            "type": "reasoning",
            "id": "rs_6820f383d7c08191846711c5df8233bc",
            "summary": [{"type": "summary_text", "text": "**Determining the weather**"}],
            "encrypted_content": "gAAAAABoIPOD1w1Zy3NQ==",
        },
        {
            "type": "function_call",
            "id": "fc_12345xyz",
            "call_id": "call_12345xyz",
            "name": "get_weather",
            "arguments": '{"location":"Paris, France"}',
            "status": "completed",
        },
    ],
}
RESPONSES_TEXT = {
    "type": "message",
    "id": "msg_67ccd3acc8d48190a77525dc6de64b4104becb25c1f1e0a5",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "It is 14 degrees in Paris.", "annotations": []}],
}


def test_responses_output_is_one_assistant_message_and_goes_back_as_input():
    m = response_message(RESPONSES_RESPONSE)
    assert m.parts == (
        Reasoning(
            "**Determining the weather**",
            signature="gAAAAABoIPOD1w1Zy3NQ==",
            provider="openai",
            id="rs_6820f383d7c08191846711c5df8233bc",
        ),
        ToolCall("call_12345xyz", "get_weather", '{"location":"Paris, France"}'),
    )
    items = responses.write(
        [
            Message("user", (Text("Weather in Paris?"),)),
            m,
            Message("tool", (ToolResult("call_12345xyz", (Text('{"temperature": 14}'),)),)),
        ]
    )
    assert items == [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "type": "reasoning",
            "id": "rs_6820f383d7c08191846711c5df8233bc",
            "summary": [{"type": "summary_text", "text": "**Determining the weather**"}],
            "encrypted_content": "gAAAAABoIPOD1w1Zy3NQ==",
        },
        {
            "type": "function_call",
            "call_id": "call_12345xyz",
            "name": "get_weather",
            "arguments": '{"location":"Paris, France"}',
        },
        {"type": "function_call_output", "call_id": "call_12345xyz", "output": '{"temperature": 14}'},
    ]
    assert response_message({"object": "response", "output": [RESPONSES_TEXT]}).text == "It is 14 degrees in Paris."


def test_responses_input_string_and_images():
    assert responses.read("hello") == [Message("user", (Text("hello"),))]
    (m,) = responses.read(
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "what is this?"},
                    {"type": "input_image", "image_url": "data:image/png;base64,iVBOR", "detail": "low"},
                ],
            }
        ]
    )
    assert m.parts == (Text("what is this?"), Image(data="iVBOR"))
    assert responses.write([m])[0]["content"][1] == {
        "type": "input_image",
        "image_url": "data:image/png;base64,iVBOR",
        "detail": "auto",
    }


def test_read_any_recognises_each_shape():
    assert read_any(ANTHROPIC_TOOL_USE, "h")[0].tool_calls[0].id == "toolu_01A09q90qw90lq917835lq9"
    assert read_any(RESPONSES_TEXT, "h")[0].text == "It is 14 degrees in Paris."
    assert read_any(ANTHROPIC_RESPONSE, "h")[0].text == "Based on my analysis..."
    assert read_any(CHAT_VISION_USER, "h")[0].images == (Image(url="https://upload.wikimedia.org/boardwalk.jpg"),)
    # an OpenAI assistant message with list content and tool calls stays OpenAI (its calls kept)
    chat = {
        "role": "assistant",
        "content": [{"type": "text", "text": "x"}],
        "tool_calls": CHAT_COMPLETION["choices"][0]["message"]["tool_calls"],
    }
    assert read_any(chat, "h")[0].tool_calls[0].id == "call_abc123"
    both = read_any(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": "r"}, {"type": "text", "text": "and"}],
        },
        "h",
    )
    assert [m.role for m in both] == ["tool", "user"]


def test_anthropic_results_after_an_interjection_come_first_in_their_user_message():
    # a user interjects between the call and its result (units keep the three together); the
    # API wants a user message's tool_result blocks before its text
    msgs = [
        Message("assistant", (ToolCall("a", "f", "{}"),)),
        Message("user", (Text("hurry"),)),
        Message("tool", (ToolResult("a", (Text("done"),)),)),
    ]
    _, out = anthropic.write(msgs, breakpoints=[2])
    assert out[1] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "done", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "hurry"},
        ],
    }


def test_openai_chat_results_after_an_interjection_follow_their_call():
    # the API rejects a tool message that does not follow its call at once; the exchange stays
    # whole (units), only the results move ahead of what was interjected
    msgs = [
        Message("user", (Text("q"),)),
        Message("assistant", (ToolCall("a", "f", "{}"), ToolCall("b", "g", "{}"))),
        Message("user", (Text("hurry"),)),
        Message("tool", (ToolResult("b", (Text("2"),)),)),
        Message("assistant", (Text("still waiting on a"),)),
        Message("tool", (ToolResult("a", (Text("1"),)),)),
        Message("user", (Text("thanks"),)),
    ]
    out = openai_chat.write(msgs)
    assert [(d["role"], d.get("tool_call_id") or d.get("content")) for d in out] == [
        ("user", "q"),
        ("assistant", None),
        ("tool", "b"),
        ("tool", "a"),
        ("user", "hurry"),
        ("assistant", "still waiting on a"),
        ("user", "thanks"),
    ]
    # without an interjection nothing moves, and a call whose result never came stays as it is
    plain = [msgs[0], msgs[1], msgs[3], msgs[5], msgs[6]]
    assert openai_chat.read(openai_chat.write(plain)) == plain
    orphan = [msgs[0], Message("assistant", (ToolCall("z", "f", "{}"),)), msgs[2]]
    assert openai_chat.read(openai_chat.write(orphan)) == orphan


def test_openai_chat_result_images_wait_for_the_results_of_the_other_calls():
    # results of parallel calls in two tool messages: the user message with the first one's
    # image goes after both, so the second result still follows the call at once
    msgs = [
        Message("assistant", (ToolCall("a", "f", "{}"), ToolCall("b", "g", "{}"))),
        Message("tool", (ToolResult("a", (Text("1"), Image(url="https://x/p.png"))),)),
        Message("tool", (ToolResult("b", (Text("2"),)),)),
        Message("assistant", (Text("ok"),)),
    ]
    for cache in (None, WireCache()):
        out = openai_chat.write(msgs, cache=cache)
        assert [d["role"] for d in out] == ["assistant", "tool", "tool", "user", "assistant"]
        assert out[3]["content"][1] == {"type": "image_url", "image_url": {"url": "https://x/p.png"}}


def test_read_any_knows_a_responses_message_item_without_its_type():
    # "type": "message" is optional in Responses input; its parts are still Responses parts
    item = {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "what is this?"},
            {"type": "input_image", "image_url": "https://x/i.png", "detail": "auto"},
        ],
    }
    assert read_any(item, "input[0]") == [Message("user", (Text("what is this?"), Image(url="https://x/i.png")))]
    said = {"role": "assistant", "content": [{"type": "output_text", "text": "a cat", "annotations": []}]}
    assert read_any(said, "input[1]")[0].text == "a cat"
