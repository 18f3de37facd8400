"""LangChain and PydanticAI messages convert into the one message model and back (issue 13 item 1).

Properties over generated conversations (the project's hypothesis profiles): every ``Message``
list a framework can carry writes into that framework's real types and reads back equal. Then
the shapes the frameworks' own chat models produce (Anthropic thinking blocks, OpenAI reasoning
items, DeepSeek reasoning, images, failed tool calls), and the errors, which name the index.
"""

from __future__ import annotations

import base64
import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic_ai.messages import (
    BinaryContent,
    ImageUrl,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    VideoUrl,
)

from ctxsieve.integrations.langchain_messages import from_langchain, to_langchain
from ctxsieve.integrations.pydantic_ai_messages import from_pydantic_ai, to_pydantic_ai
from ctxsieve.messages import Image, Message, MessageError, Reasoning, Text, ToolCall, ToolResult, openai_chat

texts = st.text(min_size=1, max_size=30)
ids = st.from_regex(r"[a-z]{1,4}_[0-9]{1,4}", fullmatch=True)
urls = st.builds(lambda s: f"https://img.example/{s}.png", st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True))
b64 = st.binary(min_size=1, max_size=24).map(lambda b: base64.b64encode(b).decode("ascii"))
images = st.one_of(
    st.builds(Image, url=urls), st.builds(Image, data=b64, media_type=st.sampled_from(["image/png", "image/jpeg"]))
)
json_args = st.dictionaries(st.text(min_size=1, max_size=6), st.one_of(st.integers(), texts, st.booleans()), max_size=3)
calls = st.builds(
    ToolCall,
    ids,
    st.from_regex(r"[a-z_]{1,10}", fullmatch=True),
    json_args.map(lambda d: json.dumps(d, ensure_ascii=False, separators=(",", ":"))),
)


def _text_parts(extra: st.SearchStrategy) -> st.SearchStrategy:
    # one lone text is written as a plain str and read back as that one part
    return st.one_of(
        st.tuples(st.builds(Text, texts)),
        st.lists(st.one_of(st.builds(Text, st.text(max_size=20)), extra), min_size=2, max_size=4).map(tuple),
    )


# -- LangChain ----------------------------------------------------------------------------------

lc_reasoning = st.one_of(
    st.builds(Reasoning, texts, signature=st.one_of(st.none(), texts), provider=st.just("anthropic")),
    st.builds(Reasoning, st.just(""), redacted=st.just(True), data=texts, provider=st.just("anthropic")),
    st.builds(
        Reasoning,
        st.text(max_size=20),
        signature=st.one_of(st.none(), texts),
        provider=st.just("openai"),
        id=st.one_of(st.none(), ids),
    ),
    st.builds(
        Reasoning,
        texts,
        signature=st.one_of(st.none(), texts),
        provider=st.sampled_from(["", "mistral"]),
        id=st.one_of(st.none(), ids),
    ),
)


@st.composite
def lc_assistant(draw: st.DrawFn) -> Message:
    head = [Reasoning(draw(texts), provider="deepseek")] if draw(st.booleans()) else []
    body = draw(st.one_of(st.just(()), _text_parts(st.one_of(lc_reasoning, images))))
    return Message("assistant", (*head, *body, *draw(st.lists(calls, max_size=3, unique_by=lambda c: c.id))))


lc_results = st.builds(
    ToolResult,
    ids,
    _text_parts(images),
    st.one_of(st.none(), st.from_regex(r"[a-z]{1,8}", fullmatch=True)),
    st.booleans(),
)
lc_message = st.one_of(
    st.builds(lambda p: Message("system", p), _text_parts(st.builds(Text, texts))),
    st.builds(
        lambda p, n: Message("user", p, name=n),
        _text_parts(images),
        st.one_of(st.none(), st.from_regex(r"[a-z]{1,8}", fullmatch=True)),
    ),
    lc_assistant(),
    st.builds(lambda r: Message("tool", (r,)), lc_results),
)


@given(st.lists(lc_message, max_size=8))
def test_every_message_langchain_carries_reads_back_equal(msgs: list[Message]) -> None:
    lc = to_langchain(msgs)
    assert from_langchain(lc) == msgs
    # and what comes out is what LangChain itself accepts: its own serialisation round-trips it
    from langchain_core.messages import messages_from_dict, messages_to_dict

    assert from_langchain(messages_from_dict(messages_to_dict(lc))) == msgs


def test_a_tool_message_with_several_results_is_one_toolmessage_each() -> None:
    m = Message("tool", (ToolResult("a", (Text("x"),), "ls"), ToolResult("b", (Text("y"),), "pwd", True)))
    lc = to_langchain([m])
    assert [(t.tool_call_id, t.content, t.name, t.status) for t in lc] == [
        ("a", "x", "ls", "success"),
        ("b", "y", "pwd", "error"),
    ]
    assert from_langchain(lc) == [Message("tool", (r,)) for r in m.parts]


def test_what_langchain_chat_models_produce_is_read() -> None:
    # ChatAnthropic keeps the thinking blocks and its tool_use block in content, the calls in tool_calls
    anthropic = AIMessage(
        [
            {"type": "thinking", "thinking": "check the order", "signature": "sig=="},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "Looking it up."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {"id": "A-1"}},
        ],
        tool_calls=[{"name": "get_order", "args": {"id": "A-1"}, "id": "toolu_1"}],
    )
    # ChatOpenAI (Responses API) keeps reasoning items with a summary and encrypted content
    openai = AIMessage(
        [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "plan"}],
                "encrypted_content": "enc",
            },
            {"type": "text", "text": "ok"},
        ]
    )
    deepseek = AIMessage("ok", additional_kwargs={"reasoning_content": "because"})
    human = HumanMessage(
        [
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
            {"type": "image", "url": "https://x/y.png"},
        ]
    )
    failed = ToolMessage("boom", tool_call_id="toolu_1", status="error")
    got = from_langchain(
        [SystemMessage("be brief"), human, anthropic, failed, openai, deepseek, ChatMessage("hi", role="user")]
    )
    assert [m.role for m in got] == ["system", "user", "assistant", "tool", "assistant", "assistant", "user"]
    assert got[1].images == (Image(data="AAAA", media_type="image/jpeg"), Image(url="https://x/y.png"))
    a = got[2]
    assert a.reasoning == (
        Reasoning("check the order", signature="sig==", provider="anthropic"),
        Reasoning("", redacted=True, data="opaque", provider="anthropic"),
    )
    assert a.text == "Looking it up." and a.tool_calls == (ToolCall("toolu_1", "get_order", '{"id":"A-1"}'),)
    assert got[3].tool_results[0].is_error and got[3].text == "boom"
    assert got[4].reasoning == (Reasoning("plan", signature="enc", provider="openai", id="rs_1"),)
    assert got[5].reasoning == (Reasoning("because", provider="deepseek"),)
    # written back, each provider's reasoning goes in that provider's shape
    back = to_langchain(got)
    assert back[2].content[0] == {"type": "thinking", "thinking": "check the order", "signature": "sig=="}
    assert back[4].content[0]["encrypted_content"] == "enc" and back[5].additional_kwargs == {
        "reasoning_content": "because"
    }
    assert from_langchain(back) == got


def test_arguments_that_are_not_a_json_object_stay_verbatim() -> None:
    m = Message("assistant", (ToolCall("c1", "f", '{"q": "unterminated'),))
    lc = to_langchain([m])[0]
    assert lc.tool_calls == [] and lc.invalid_tool_calls[0]["args"] == '{"q": "unterminated'
    assert from_langchain([lc]) == [m]


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        (RemoveMessage(id="x"), "messages[1]: a RemoveMessage is not read"),
        (FunctionMessage("x", name="f"), "messages[1]: a FunctionMessage is not read"),
        (ChatMessage("x", role="critic"), "messages[1].role: 'critic'"),
        (HumanMessage([{"type": "audio", "data": "x"}]), "messages[1].content[0].type: 'audio'"),
        ({"role": "user", "content": "hi"}, "messages[1]: a dict is not read"),
    ],
)
def test_what_is_not_a_message_is_an_error_naming_the_index(bad: object, where: str) -> None:
    with pytest.raises(MessageError, match=r"^" + __import__("re").escape(where)):
        from_langchain([HumanMessage("fine"), bad])


# -- PydanticAI ---------------------------------------------------------------------------------

pai_reasoning = st.one_of(
    st.builds(
        Reasoning,
        st.text(max_size=20),
        signature=st.one_of(st.none(), texts),
        provider=st.sampled_from(["", "anthropic", "openai"]),
        id=st.one_of(st.none(), ids),
    ),
    st.builds(Reasoning, st.just(""), redacted=st.just(True), data=texts, provider=st.just("anthropic")),
)
pai_assistant = st.lists(st.one_of(st.builds(Text, st.text(max_size=20)), pai_reasoning, calls), max_size=4).map(
    lambda ps: Message("assistant", tuple(ps))
)
names = st.from_regex(r"[a-z_]{1,8}", fullmatch=True)
pai_tool = st.lists(
    st.builds(lambda i, t, n, e: ToolResult(i, (Text(t),), n, e), ids, st.text(max_size=20), names, st.booleans()),
    min_size=1,
    max_size=3,
).map(lambda rs: Message("tool", tuple(rs)))
pai_user = st.one_of(
    st.builds(lambda t: Message("user", (Text(t),)), st.text(max_size=20)),
    st.lists(st.one_of(st.builds(Text, st.text(max_size=20)), images), min_size=2, max_size=4).map(
        lambda ps: Message("user", tuple(ps))
    ),
)
pai_message = st.one_of(
    st.builds(lambda t: Message("system", (Text(t),)), st.text(max_size=20)), pai_user, pai_assistant, pai_tool
)


def _no_adjacent_tools(msgs: list[Message]) -> bool:
    # two tool messages in a row are one run of returns in one request: read back as one
    return all(not (a.role == b.role == "tool") for a, b in itertools.pairwise(msgs))


@given(st.lists(pai_message, max_size=8).filter(_no_adjacent_tools))
def test_every_message_pydantic_ai_carries_reads_back_equal(msgs: list[Message]) -> None:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    pai = to_pydantic_ai(msgs)
    assert from_pydantic_ai(pai) == msgs
    assert all(isinstance(m, ModelResponse) == (msgs_role == "assistant") for m, msgs_role in zip(pai, _kinds(msgs)))
    # PydanticAI's own serialisation (how a run's history is stored) keeps all of it
    assert from_pydantic_ai(ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(pai))) == msgs


def _kinds(msgs: list[Message]) -> list[str]:
    out: list[str] = []
    for m in msgs:
        kind = "assistant" if m.role == "assistant" else "request"
        if not out or kind == "assistant" or out[-1] != "request":
            out.append(kind)
    return out


def test_what_pydantic_ai_agents_keep_is_read() -> None:
    png = b"\x89PNG\r\n"
    history = [
        ModelRequest(
            [
                SystemPromptPart("ops"),
                UserPromptPart(["look", ImageUrl("https://x/a.png"), BinaryContent(png, media_type="image/png")]),
            ]
        ),
        ModelResponse(
            [
                ThinkingPart("disk first", signature="sig", provider_name="anthropic"),
                ThinkingPart("", id="redacted_thinking", signature="opaque", provider_name="anthropic"),
                ToolCallPart("df", {"path": "/"}, tool_call_id="a"),
                ToolCallPart("du", '{"path": "/var"}', tool_call_id="b"),
            ]
        ),
        ModelRequest(
            [
                ToolReturnPart("df", {"used": "91%"}, tool_call_id="a"),
                ToolReturnPart("du", "path must exist", tool_call_id="b", outcome="retried"),
                UserPromptPart("and now?"),
            ]
        ),
        ModelResponse([TextPart("rotate logs")]),
        ModelRequest([RetryFeedbackPart("answer with an int", retry=RetryInfo(cause="output_validation"))]),
    ]
    got = from_pydantic_ai(history)
    assert [m.role for m in got] == ["system", "user", "assistant", "tool", "user", "assistant", "user"]
    assert got[1].images == (
        Image(url="https://x/a.png"),
        Image(data=base64.b64encode(png).decode(), media_type="image/png"),
    )
    assert got[2].reasoning[1] == Reasoning("", redacted=True, data="opaque", provider="anthropic")
    assert [c.arguments for c in got[2].tool_calls] == ['{"path":"/"}', '{"path": "/var"}']  # a str stays verbatim
    ret, retry = got[3].tool_results
    assert (ret.text, ret.is_error) == ('{"used":"91%"}', False) and (retry.text, retry.is_error, retry.name) == (
        "path must exist",
        True,
        "du",
    )
    assert "answer with an int" in got[6].text  # in the words PydanticAI sends it
    # the OpenAI Chat shape of it, through the one codec
    assert [m["role"] for m in openai_chat.write(got[2:4])] == ["assistant", "tool", "tool"]


def test_a_retry_prompt_naming_a_tool_is_a_failed_call() -> None:
    with pytest.warns(Warning, match="RetryPromptPart"):  # deprecated in 2.x; 1.x histories hold it
        part = RetryPromptPart("bad", tool_name="r", tool_call_id="b")
    got = from_pydantic_ai([ModelRequest([part])])
    assert got[0].tool_results[0].is_error and got[0].text == "bad"


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        (ModelRequest([UserPromptPart([VideoUrl("https://x/v.mp4")])]), "messages[1].parts[0].content[0]: VideoUrl"),
        ("hello", "messages[1]: a str is not a ModelRequest"),
        (HumanMessage("hi"), "messages[1]: a HumanMessage is not a ModelRequest"),
    ],
)
def test_what_pydantic_ai_does_not_carry_is_an_error_naming_the_index(bad: object, where: str) -> None:
    import re

    with pytest.raises(MessageError, match="^" + re.escape(where)):
        from_pydantic_ai([ModelRequest([UserPromptPart("fine")]), bad])


def test_an_assistant_image_cannot_be_written_for_pydantic_ai() -> None:
    with pytest.raises(MessageError, match=r"messages\[0\]: an assistant message"):
        to_pydantic_ai([Message("assistant", (Image(url="https://x/a.png"),))])
