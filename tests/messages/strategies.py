"""Hypothesis strategies: conversations each codec can carry exactly (its canonical form).

A codec writes some distinctions away (OpenAI Chat sends one message per tool result,
Anthropic merges consecutive messages of one role, Responses flattens a turn into items), so
each strategy generates the conversations whose written form reads back to the same model.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from ctxsieve.messages import Image, Message, Reasoning, Text, ToolCall, ToolResult

texts = st.text(min_size=1, max_size=12)
ids = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=1, max_size=8)
url_images = st.builds(lambda p: Image(url=f"https://img.example/{p}.png"), st.text("abcxyz019", max_size=6))
data_images = st.builds(
    lambda d, t: Image(data=d, media_type=t),
    st.text("ABCDEFabcdef0123456789+/=", min_size=1, max_size=16),
    st.sampled_from(["image/png", "image/jpeg", "image/webp"]),
)
images = url_images | data_images
names = st.none() | st.text("abcdefgh_", min_size=1, max_size=6)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
json_objects = st.dictionaries(st.text(max_size=5), json_values, max_size=4)


def calls(arguments: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[ToolCall]:
    return st.builds(ToolCall, ids, texts, st.text(max_size=20) if arguments is None else arguments)


# -- OpenAI Chat: one result per tool message, at most one DeepSeek reasoning block, first


def _chat_assistant(thought: str | None, body: list[str], made: list[ToolCall], name: str | None) -> Message:
    parts = ([Reasoning(thought, provider="deepseek")] if thought is not None else []) + [Text(t) for t in body]
    return Message("assistant", (*parts, *made), name=name)


chat_messages = st.one_of(
    st.builds(lambda ts, n: Message("system", tuple(map(Text, ts)), name=n), st.lists(texts, max_size=3), names),
    st.builds(lambda ps, n: Message("user", tuple(ps), name=n), st.lists(texts.map(Text) | images, max_size=3), names),
    st.builds(
        _chat_assistant,
        st.none() | st.text(max_size=10),
        st.lists(texts, max_size=2),
        st.lists(calls(), max_size=3),
        names,
    ),
    st.builds(
        lambda cid, ts: Message("tool", (ToolResult(cid, tuple(map(Text, ts))),)), ids, st.lists(texts, max_size=3)
    ),
)

# -- Anthropic: alternating roles (a tool message may be followed by a user one), no empty message

# the API rejects a whitespace-only text block and a thinking block without its signature (the
# codec writes neither): not drawn here
_anthropic_texts = texts.filter(lambda t: not t.isspace())
_anthropic_reasoning = st.builds(
    lambda t, s: Reasoning(t, signature=s, provider="anthropic"), st.text(max_size=10), texts
) | st.builds(lambda d: Reasoning(redacted=True, data=d, provider="anthropic"), texts)
_anthropic_user = st.builds(
    lambda ps: Message("user", tuple(ps)), st.lists(_anthropic_texts.map(Text) | images, min_size=1, max_size=3)
)
_anthropic_results = st.builds(
    lambda rs: Message("tool", tuple(rs)),
    st.lists(
        st.builds(
            ToolResult,
            ids,
            st.lists(_anthropic_texts.map(Text) | images, max_size=3).map(tuple),
            st.none(),
            st.booleans(),
        ),
        min_size=1,
        max_size=3,
    ),
)
_anthropic_assistant = st.builds(
    lambda rs, ts, cs: Message("assistant", (*rs, *map(Text, ts), *cs)),
    st.lists(_anthropic_reasoning, max_size=2),
    st.lists(_anthropic_texts, max_size=2),
    st.lists(calls(json_objects.map(lambda o: json.dumps(o, ensure_ascii=False, separators=(",", ":")))), max_size=2),
).filter(lambda m: bool(m.parts))
_user_side = st.one_of(
    _anthropic_user.map(lambda m: [m]),
    _anthropic_results.map(lambda m: [m]),
    st.tuples(_anthropic_results, _anthropic_user).map(list),
)


@st.composite
def anthropic_conversations(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    if draw(st.booleans()):
        out.append(Message("system", tuple(map(Text, draw(st.lists(_anthropic_texts, min_size=1, max_size=3))))))
    for k in range(draw(st.integers(0, 6))):
        out += draw(_user_side) if k % 2 == 0 else [draw(_anthropic_assistant)]
    return out


# -- Responses: an assistant turn is reasoning and text, then its calls; no two assistant or
#    two tool messages in a row (consecutive items of one turn read as one message)

_openai_reasoning = st.builds(
    lambda t, s, i: Reasoning(t, signature=s, provider="openai", id=i),
    st.text(max_size=10),
    st.none() | texts,
    st.none() | ids,
)
_responses_assistant = st.builds(
    lambda head, cs: Message("assistant", (*head, *cs)),
    st.lists(texts.map(Text) | _openai_reasoning, max_size=3),
    st.lists(calls(), max_size=3),
)
_responses_tool = st.builds(
    lambda rs: Message("tool", tuple(rs)),
    st.lists(
        st.builds(ToolResult, ids, st.lists(texts.map(Text) | images, max_size=3).map(tuple)), min_size=1, max_size=3
    ),
)
_responses_plain = st.one_of(
    st.builds(lambda ts: Message("system", tuple(map(Text, ts))), st.lists(texts, max_size=2)),
    st.builds(lambda ps: Message("user", tuple(ps)), st.lists(texts.map(Text) | images, max_size=3)),
)


@st.composite
def responses_conversations(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    for _ in range(draw(st.integers(0, 6))):
        m = draw(st.one_of(_responses_plain, _responses_assistant, _responses_tool))
        if out and out[-1].role == m.role and m.role in ("assistant", "tool"):
            continue
        out.append(m)
    return out


# -- OpenAI Chat with few call ids, so calls and results match, interjections included

_few_ids = st.sampled_from(["a", "b", "c"])
tangled_chat = st.lists(
    st.one_of(
        st.builds(lambda t: Message("user", (Text(t),)), texts),
        st.builds(
            lambda t, cs: Message("assistant", ((Text(t),) if t else ()) + tuple(ToolCall(c, "f", "{}") for c in cs)),
            st.text(max_size=3),
            st.lists(_few_ids, max_size=3, unique=True),
        ),
        st.builds(lambda c, t: Message("tool", (ToolResult(c, (Text(t),)),)), _few_ids, texts),
    ),
    max_size=10,
)
