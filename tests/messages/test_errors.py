"""Every malformed message is refused with a MessageError naming the exact place; none is
dropped or guessed at."""

from __future__ import annotations

import pytest

from ctxsieve.messages import (
    MessageError,
    Text,
    ToolCall,
    anthropic,
    openai_chat,
    read_any,
    response_message,
    responses,
)
from ctxsieve.messages.model import Image, Message, Reasoning

OK = {"role": "user", "content": "fine"}

CHAT = [
    (
        [OK, OK, OK, {"role": "human", "content": "hi"}],
        r"messages\[3\]\.role: 'human' is not one of .*'user'.*LangChain integration",
    ),
    ([{"role": "ai", "content": "hi"}], r"messages\[0\]\.role: 'ai' .*LangChain"),
    ([{"role": "model", "content": "hi"}], r"messages\[0\]\.role: 'model' .*PydanticAI"),
    ([{"content": "no role"}], r"messages\[0\]\.role: None is not one of"),
    (
        [OK, {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "input_audio"}]}],
        r"messages\[1\]\.content\[1\]\.type: 'input_audio'",
    ),
    (
        [{"role": "user", "content": [{"type": "text", "text": 5}]}],
        r"messages\[0\]\.content\[0\]\.text: expected a str, got int",
    ),
    (
        [{"role": "user", "content": [{"type": "text"}]}],
        r"messages\[0\]\.content\[0\]\.text: expected a str, got nothing",
    ),
    ([{"role": "user", "content": 7}], r"messages\[0\]\.content: expected a str, None or a list of parts, got int"),
    ([{"role": "user", "content": ["bare str"]}], r"messages\[0\]\.content\[0\]: a content part must be a mapping"),
    ([OK, {"role": "tool", "content": "42"}], r"messages\[1\]\.tool_call_id: a tool message must name the call"),
    ([{"role": "tool", "tool_call_id": "", "content": "42"}], r"messages\[0\]\.tool_call_id"),
    (
        [{"role": "system", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}],
        r"messages\[0\]\.content\[0\]\.type: 'image_url' is not a content part type read here \('refusal', 'text'\)",
    ),
    (
        [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}],
        r"messages\[0\]\.content\[0\]\.image_url: expected a url",
    ),
    (
        [
            {
                "role": "assistant",
                "tool_calls": [{"id": "a", "function": {"name": "f"}}, {"id": "", "function": {"name": "f"}}],
            }
        ],
        r"messages\[0\]\.tool_calls\[1\]\.id: must not be empty",
    ),
    (
        [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"arguments": "{}"}}]}],
        r"messages\[0\]\.tool_calls\[0\]\.function\.name: expected a str, got nothing",
    ),
    (
        [{"role": "assistant", "tool_calls": [{"id": "a", "type": "custom", "custom": {}}]}],
        r"messages\[0\]\.tool_calls\[0\]\.type: 'custom'",
    ),
    ([{"role": "assistant", "tool_calls": {"id": "a"}}], r"messages\[0\]\.tool_calls: expected a list, got dict"),
    ([{"role": "user", "content": "x", "tool_calls": [{"id": "a"}]}], r"messages\[0\]\.tool_calls: only an assistant"),
    (
        [{"role": "assistant", "content": "x", "reasoning_content": 3}],
        r"messages\[0\]\.reasoning_content: expected a str",
    ),
    (
        [{"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}}],
        r"messages\[0\]\.function_call: the legacy",
    ),
    ([OK, "just text"], r"messages\[1\]: a message must be a mapping \(a dict or an SDK object\), got str"),
    ([{"role": "user", "content": "x", "name": 3}], r"messages\[0\]\.name: expected a str, got int"),
]


@pytest.mark.parametrize(("msgs", "pattern"), CHAT)
def test_openai_chat_errors_name_the_place(msgs, pattern):
    with pytest.raises(MessageError, match=pattern):
        openai_chat.read(msgs)


def test_audience_error_names_the_place():
    with pytest.raises(TypeError, match=r"messages\[1\]\.audience: labels are str"):
        openai_chat.read([OK, {"role": "user", "content": "x", "audience": b"alice"}])


def test_read_wants_a_list():
    with pytest.raises(MessageError, match=r"messages: expected a list of messages, got dict"):
        openai_chat.read(OK)  # type: ignore[arg-type]
    with pytest.raises(MessageError, match=r"messages: expected a list of messages, got str"):
        anthropic.read("hi")  # type: ignore[arg-type]


ANTHROPIC = [
    (
        [OK, {"role": "system", "content": "s"}],
        r"messages\[1\]\.role: 'system' is not one of 'assistant', 'user' \(pass the system prompt as system=\)",
    ),
    ([{"role": "tool", "content": "s"}], r"messages\[0\]\.role: 'tool'"),
    (
        [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "document", "source": {}}]}],
        r"messages\[0\]\.content\[1\]\.type: 'document' is not a block type read here",
    ),
    (
        [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}],
        r"messages\[0\]\.content\[0\]\.type: a 'tool_use' block cannot be in a 'user' message",
    ),
    (
        [{"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "t"}]}],
        r"messages\[0\]\.content\[0\]\.type: a 'tool_result' block cannot be in a 'assistant' message",
    ),
    (
        [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}],
        r"messages\[0\]\.content\[0\]\.tool_use_id: expected a str, got nothing",
    ),
    (
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "document"}]}]}],
        r"messages\[0\]\.content\[0\]\.content\[0\]\.type: 'document'",
    ),
    (
        [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": "[1]"}]}],
        r"messages\[0\]\.content\[0\]\.input: expected an object, got str",
    ),
    (
        [{"role": "assistant", "content": [{"type": "thinking", "thinking": None}]}],
        r"messages\[0\]\.content\[0\]\.thinking: expected a str",
    ),
    (
        [{"role": "assistant", "content": [{"type": "redacted_thinking"}]}],
        r"messages\[0\]\.content\[0\]\.data: expected a str, got nothing",
    ),
    (
        [{"role": "user", "content": [{"type": "image", "source": {"type": "file", "file_id": "f"}}]}],
        r"messages\[0\]\.content\[0\]\.source\.type: 'file'",
    ),
    (
        [{"role": "user", "content": [{"type": "image"}]}],
        r"messages\[0\]\.content\[0\]\.source: an image source must be a mapping",
    ),
    ([{"role": "user", "content": None}], r"messages\[0\]\.content: expected a str or a list of blocks, got NoneType"),
]


@pytest.mark.parametrize(("msgs", "pattern"), ANTHROPIC)
def test_anthropic_errors_name_the_place(msgs, pattern):
    with pytest.raises(MessageError, match=pattern):
        anthropic.read(msgs)


def test_anthropic_system_errors():
    with pytest.raises(MessageError, match=r"system\[1\]\.type: the system prompt takes text blocks, got 'image'"):
        anthropic.read([], system=[{"type": "text", "text": "a"}, {"type": "image"}])
    with pytest.raises(MessageError, match=r"system: expected a str or a list of text blocks, got int"):
        anthropic.read([], system=3)


def test_anthropic_write_refuses_what_it_cannot_send():
    msgs = [Message("user", (Text("a"),)), Message("assistant", (Text("b"),))] * 3
    with pytest.raises(MessageError, match=r"breakpoints: 5 cache breakpoints asked for; the API allows 4"):
        anthropic.write(msgs, breakpoints=[0, 1, 2, 3], system_breakpoint=True)
    with pytest.raises(MessageError, match=r"breakpoints: 6 is not the index of one of the 6 messages"):
        anthropic.write(msgs, breakpoints=[6])
    with pytest.raises(MessageError, match=r"messages\[1\]\.parts\[0\]: the system prompt holds text only"):
        anthropic.write([msgs[0], Message("system", (Image(url="u"),))])
    with pytest.raises(MessageError, match=r"messages\[0\]\.parts\[0\]: an image needs a url or base64 data"):
        anthropic.write([Message("user", (Image(),))])


RESPONSES = [
    (
        [OK, {"type": "web_search_call", "id": "ws"}],
        r"input\[1\]\.type: 'web_search_call' is not an input item type read here "
        r"\('function_call', 'function_call_output', 'message', 'reasoning'\)",
    ),
    ([{"type": "item_reference", "id": "x"}], r"input\[0\]\.type: 'item_reference'"),
    ([{"role": "tool", "content": "x"}], r"input\[0\]\.role: 'tool' is not one of"),
    (
        [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}],
        r"input\[0\]\.content\[0\]\.type: 'input_file'",
    ),
    (
        [{"role": "assistant", "content": [{"type": "input_image", "image_url": "u"}]}],
        r"input\[0\]\.content\[0\]\.type: 'input_image' is not a content part type read here",
    ),
    (
        [{"role": "user", "content": [{"type": "input_image", "file_id": "f"}]}],
        r"input\[0\]\.content\[0\]\.image_url: expected a url \(file_id images are not read\)",
    ),
    ([{"type": "function_call", "name": "f", "arguments": "{}"}], r"input\[0\]\.call_id: expected a str, got nothing"),
    (
        [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {"a": 1}}],
        r"input\[0\]\.arguments: expected a str, got dict",
    ),
    (
        [{"type": "function_call_output", "call_id": "c", "output": 3}],
        r"input\[0\]\.output: expected a str or a list of parts, got int",
    ),
    ([{"type": "function_call_output", "output": "x"}], r"input\[0\]\.call_id"),
    ([{"type": "reasoning", "summary": "s"}], r"input\[0\]\.summary: expected a list, got str"),
    ([{"type": "reasoning", "summary": [{"type": "summary_text"}]}], r"input\[0\]\.summary\[0\]\.text: expected a str"),
    (
        [{"type": "reasoning", "summary": [], "encrypted_content": 5}],
        r"input\[0\]\.encrypted_content: expected a str, got int",
    ),
]


@pytest.mark.parametrize(("items", "pattern"), RESPONSES)
def test_responses_errors_name_the_place(items, pattern):
    with pytest.raises(MessageError, match=pattern):
        responses.read(items)


def test_write_errors_name_the_message():
    with pytest.raises(
        MessageError, match=r"messages\[1\]: only a user message carries images in OpenAI Chat, not a 'assistant' one"
    ):
        openai_chat.write([Message("user", (Text("a"),)), Message("assistant", (Image(url="u"),))])
    with pytest.raises(
        MessageError, match=r"messages\[0\]\.parts\[0\]: a 'assistant' message item cannot carry a Image"
    ):
        responses.write([Message("assistant", (Image(url="u"),))])


def test_read_any_names_its_place():
    with pytest.raises(MessageError, match=r"history\[4\]\.role: 'human'"):
        read_any({"role": "human", "content": "hi"}, "history[4]")
    with pytest.raises(MessageError, match=r"history\[4\]: a message must be a mapping"):
        read_any(42, "history[4]")
    with pytest.raises(
        MessageError, match=r"history\[2\]\.content\[0\]\.type: a 'tool_use' block cannot be in a 'user'"
    ):
        read_any({"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}, "history[2]")


def test_response_message_errors():
    with pytest.raises(
        MessageError, match=r"response: not a Chat Completions \(choices\), Responses \(output\) or Anthropic"
    ):
        response_message({"id": "x", "text": "hi"})
    with pytest.raises(MessageError, match=r"response\.choices: expected a non-empty list"):
        response_message({"choices": []})
    with pytest.raises(MessageError, match=r"response\.choices\[0\]\.message: a message must be a mapping"):
        response_message({"choices": [{"index": 0}]})
    with pytest.raises(MessageError, match=r"response\.output: a response's output holds assistant items only"):
        response_message({"output": [{"type": "function_call_output", "call_id": "c", "output": "x"}]})
    with pytest.raises(MessageError, match=r"response\.role: the reply's role is 'user'"):
        response_message({"type": "message", "role": "user", "content": "x"})
    with pytest.raises(MessageError, match=r"response: a response must be a mapping"):
        response_message("hello")


def test_model_and_codecs_agree_on_reasoning_placement():
    # a Reasoning in a user message is refused by the model itself, whatever codec builds it
    with pytest.raises(MessageError, match="reasoning comes from the assistant"):
        Message("user", (Reasoning("x"),))
    with pytest.raises(MessageError, match="tool calls come from the assistant"):
        Message("user", (ToolCall("a", "f"),))
