"""Prompt caching by the provider's rules (docs/providers.md, "Prompt caching"): breakpoints
within Anthropic's 20-block look-back, the minimum cacheable prefix, ``prompt_cache_key`` and
retention."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import Conversation, Limits
from ctxsieve.conversation.caching import place_breakpoints
from ctxsieve.errors import ConfigError
from ctxsieve.messages import Message, Text, anthropic
from ctxsieve.messages.providers import ANTHROPIC, ProviderProfile

TOOL = {"type": "function", "function": {"name": "lookup", "description": "d", "parameters": {"type": "object"}}}


def chars(texts: list[str]) -> list[int]:
    """One token per character: prompt sizes can be set to the token."""
    return [len(t) for t in texts]


def parallel_calls(conv: Conversation, n: int, tag: str) -> Any:
    """One call answered by ``n`` parallel tool calls, their results added, the next call prepared."""
    calls = [
        {"id": f"{tag}{i}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}} for i in range(n)
    ]
    conv.record_response({"role": "assistant", "content": None, "tool_calls": calls})
    for i in range(n):
        conv.add_tool_result(f"{tag}{i}", f"result {i}")
    return conv.prepare()


def marked(body: dict[str, Any]) -> list[tuple[int, int]]:
    """(message index, block index) of every cache_control mark in the messages."""
    return [
        (i, k)
        for i, m in enumerate(body["messages"])
        if isinstance(m["content"], list)
        for k, b in enumerate(m["content"])
        if "cache_control" in b
    ]


@pytest.mark.parametrize("provider", ["anthropic", None])
def test_more_than_twenty_blocks_since_the_previous_call_get_a_breakpoint_in_between(provider: str | None) -> None:
    conv = Conversation(system="You look things up.", tools=[TOOL], provider=provider)
    conv.add_user("find twelve things")
    first = conv.prepare()
    assert first.breakpoints() == [0]
    # 12 tool_use blocks and 12 tool_result blocks since the previous call's end: 24 > 20
    second = parallel_calls(conv, 12, "a")
    assert second.previous_end == 1
    # messages: the question, the assistant's 12 calls, 12 tool messages (one user message for
    # Anthropic); the mark in between goes on the calls, where the blocks split 12 / 12
    assert second.breakpoints() == [0, 1, 13]
    body = second.anthropic(max_tokens=64)
    assert marked(body) == [(0, 0), (1, 11), (2, 11)]
    assert "cache_control" in body["system"][-1]  # 4 in all: Anthropic's limit


def test_twenty_blocks_or_fewer_need_no_breakpoint_in_between() -> None:
    conv = Conversation(system="You look things up.", tools=[TOOL], provider="anthropic")
    conv.add_user("find ten things")
    conv.prepare()
    second = parallel_calls(conv, 10, "b")  # 10 + 10 blocks: the end's look-back reaches the previous end
    assert second.breakpoints() == [0, 11]
    assert marked(second.anthropic(max_tokens=64)) == [(0, 0), (2, 9)]


def test_a_users_profile_with_a_shorter_look_back_places_by_its_numbers() -> None:
    proxy = ProviderProfile(name="proxy", breakpoints=4, lookback_blocks=5, ttls=("5m", "1h"))
    conv = Conversation(system="s", tools=[TOOL], provider=proxy)
    conv.add_user("q")
    conv.prepare()
    assert parallel_calls(conv, 3, "c").breakpoints() == [0, 1, 4]  # 3 + 3 blocks > 5


def _call_of_size(provider: Any, model: str, prompt: int) -> Any:
    """A first call whose prompt estimate (without the protocol overhead) is ``prompt`` tokens."""
    conv = Conversation(system="s", estimator=chars, provider=provider, model=model)
    conv.add_user("x")
    base = conv.prepare().prompt_tokens
    conv = Conversation(system="s", estimator=chars, provider=provider, model=model)
    conv.add_user("x" * (1 + prompt - base))
    call = conv.prepare()
    assert call.prompt_tokens == prompt
    return call


@pytest.mark.parametrize(
    ("provider", "model", "minimum"),
    [
        ("anthropic", "claude-sonnet-4-5", 1024),
        ("anthropic", "claude-3-5-haiku-latest", 2048),
        ("anthropic", "claude-haiku-4-5", 4096),
        ("openai", "gpt-4o", 1024),
        ("gemini", "gemini-2.5-flash", 2048),
        # the names routers and clouds give the same models: dots for dashes, a vendor prefix
        ("anthropic", "anthropic/claude-opus-4.5", 4096),
        ("anthropic", "anthropic.claude-haiku-4-5-20251001-v1:0", 4096),
        ("anthropic", "claude-haiku-4.5", 4096),
        ("gemini", "models/gemini-2-5-pro", 2048),
    ],
)
def test_a_prefix_below_the_minimum_is_flagged_not_cacheable(provider: str, model: str, minimum: int) -> None:
    below = _call_of_size(provider, model, minimum - 1)
    assert below.cacheable is False
    assert f"below the minimum ({provider}'s minimum for {model} is {minimum})" in below.cache_note
    assert below.cache_note in below.report.notes
    at = _call_of_size(provider, model, minimum)
    assert at.cacheable is True and at.cache_note.startswith("prefix cacheable")
    assert not any("cacheable" in n for n in at.report.notes)


def test_without_a_provider_nothing_is_claimed_about_caching() -> None:
    conv = Conversation(system="s")
    conv.add_user("q")
    call = conv.prepare()
    assert call.cacheable is None and call.cache_note == ""
    assert "prompt_cache_key" not in call.openai() and "prompt_cache_key" not in call.responses()


def test_openai_calls_carry_a_stable_prompt_cache_key() -> None:
    conv = Conversation(system="s", provider="openai", conversation_id="support-42")
    conv.add_user("q")
    first = conv.prepare()
    conv.record_response({"role": "assistant", "content": "a"})
    conv.add_user("q2")
    second = conv.prepare()
    for call in (first, second):
        assert call.openai()["prompt_cache_key"] == "support-42"
        assert call.responses()["prompt_cache_key"] == "support-42"
    assert "prompt_cache_key" not in first.anthropic(max_tokens=8)


def test_a_given_key_is_sent_exactly_as_given_and_only_where_it_is_taken() -> None:
    key = "tenant:acme/user 7 — " + "k" * 43  # 64 characters, not a conversation id, never altered to look like one
    assert len(key) == 64
    conv = Conversation(system="s", provider="openai", prompt_cache_key=key)
    conv.add_user("q")
    assert conv.prepare().openai()["prompt_cache_key"] == key
    for provider in ("anthropic", "deepseek", "gemini"):
        with pytest.raises(ConfigError, match=f"prompt_cache_key: provider '{provider}' takes no prompt_cache_key"):
            Conversation(provider=provider, prompt_cache_key="k")
    with pytest.raises(ConfigError, match="prompt_cache_key: expected a non-empty str, got ''"):
        Conversation(provider="openai", prompt_cache_key="")
    ds = Conversation(system="s", provider="deepseek")
    ds.add_user("q")
    assert "prompt_cache_key" not in ds.prepare().openai()  # DeepSeek's API has no such parameter


def test_a_key_openai_would_refuse_is_refused_never_cut() -> None:
    # OpenAI answers 400 string_above_max_length past 64 characters (docs/providers.md)
    with pytest.raises(ConfigError, match="the key given is 65 characters; openai takes at most 64"):
        Conversation(provider="openai", prompt_cache_key="k" * 65)
    with pytest.raises(ConfigError, match="the key given is 1000000 characters"):
        Conversation(provider="openai", prompt_cache_key="k" * 1_000_000)
    with pytest.raises(ConfigError, match=r"holds '\\ud800' at index 3, which UTF-8 cannot encode"):
        Conversation(provider="openai", prompt_cache_key="abc\ud800")
    # the default key is the conversation id: one longer than the key may be is refused, with the fix
    with pytest.raises(ConfigError, match=r"the conversation id \(the default prompt_cache_key\) is 65 characters"):
        Conversation(provider="openai", conversation_id="c" * 65)
    conv = Conversation(system="s", provider="openai", conversation_id="c" * 65, prompt_cache_key="tenant-7")
    conv.add_user("q")
    assert conv.prepare().openai()["prompt_cache_key"] == "tenant-7"
    ok = Conversation(system="s", provider="openai", conversation_id="c" * 64)
    ok.add_user("q")
    assert ok.prepare().responses()["prompt_cache_key"] == "c" * 64
    # without a limit of its own a profile takes any length, still as given
    proxy = ProviderProfile(name="proxy", cache_key=True)
    long = Conversation(system="s", provider=proxy, prompt_cache_key="k" * 500)
    long.add_user("q")
    assert long.prepare().openai()["prompt_cache_key"] == "k" * 500


@pytest.mark.parametrize(
    ("field", "value"),
    [("ttls", "1h"), ("cached_fields", "usage.cached"), ("model_minimums", "opus"), ("cache_key_max_chars", 0)],
)
def test_a_profile_field_of_the_wrong_shape_is_a_config_error(field: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=f"ProviderProfile.{field}: expected"):
        ProviderProfile(name="p", **{field: value})


def test_no_mark_and_no_block_is_whitespace_only_text() -> None:
    # Anthropic: "text content blocks must be non-empty", "... must contain non-whitespace
    # text" (a message's only text), "cache_control cannot be set for empty text blocks"
    conv = Conversation(system=" \n ", provider="anthropic")
    conv.add(Message("user", (Text("real question"), Text("  \n"))))
    first = conv.prepare().anthropic(max_tokens=8)
    assert "system" not in first  # nothing but whitespace: not sent, and no mark spent on it
    assert first["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "real question", "cache_control": {"type": "ephemeral"}}]}
    ]
    conv.record_response({"role": "assistant", "content": "\n\n"})
    conv.add(Message("user", (Text("\t"),)))  # add_user refuses an empty turn; history may hold one
    call = conv.prepare()
    body = call.anthropic(max_tokens=8)
    blocks = [b for m in body["messages"] for b in m["content"]]
    assert all(b["text"].strip() for b in blocks if b["type"] == "text")
    assert [b["text"] for b in blocks if "cache_control" in b] == ["real question"]
    assert anthropic.block_counts(call.sent_messages) == [1, 0, 0]  # what the look-back counts is what is written


def test_an_hour_of_anthropic_cache_marks_every_breakpoint() -> None:
    conv = Conversation(system="s", tools=[TOOL], provider="anthropic", cache_ttl="1h")
    conv.add_user("q")
    conv.prepare()
    body = parallel_calls(conv, 12, "d").anthropic(max_tokens=8)
    marks = [b["cache_control"] for m in body["messages"] for b in m["content"] if "cache_control" in b]
    marks.append(body["system"][0]["cache_control"])
    assert marks == [{"type": "ephemeral", "ttl": "1h"}] * 4
    default = Conversation(system="s", provider="anthropic")
    default.add_user("q")
    assert default.prepare().anthropic(max_tokens=8)["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_openai_extended_retention_is_asked_for_in_both_shapes() -> None:
    conv = Conversation(system="s", provider="openai", cache_ttl="24h")
    conv.add_user("q")
    call = conv.prepare()
    assert call.openai()["prompt_cache_retention"] == "24h" == call.responses()["prompt_cache_retention"]
    assert call.anthropic(max_tokens=8)["system"][0]["cache_control"] == {"type": "ephemeral"}  # not Anthropic's


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"provider": "anthropic", "cache_ttl": "24h"}, "cache_ttl: anthropic takes '5m', '1h', got '24h'"),
        ({"provider": "openai", "cache_ttl": "1h"}, "cache_ttl: openai takes 'in_memory', '24h', got '1h'"),
        ({"cache_ttl": "1h"}, "cache_ttl: no provider takes a cache retention"),
        ({"provider": "deepseek", "cache_ttl": "1h"}, "cache_ttl: provider 'deepseek' takes a cache retention"),
        ({"provider": "antropic"}, "provider: expected one of 'anthropic', 'deepseek', 'gemini', 'openai'"),
    ],
)
def test_bad_cache_settings_are_refused_when_the_conversation_is_built(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        Conversation(**kwargs)


def test_a_profile_object_works_where_a_name_does() -> None:
    conv = Conversation(system="s", provider=ANTHROPIC, limits=Limits(image_tokens=100))
    assert conv.profile is ANTHROPIC and conv.provider == "anthropic"  # the image formula, as with the name


@given(
    counts=st.lists(st.integers(0, 30), min_size=1, max_size=40),
    head=st.integers(0, 5),
    previous_end=st.integers(0, 41),
    system=st.booleans(),
)
def test_placement_keeps_the_rules_for_any_transcript(
    counts: list[int], head: int, previous_end: int, system: bool
) -> None:
    n = len(counts)
    marks = place_breakpoints(counts, head=head, previous_end=previous_end, system=system, max_marks=4, lookback=20)
    assert marks == sorted(set(marks)) and all(0 <= k < n for k in marks)
    assert len(marks) + system <= 4 and marks[-1] == n - 1
    if 0 < previous_end < n:
        assert previous_end - 1 in marks
    ends = list(itertools.accumulate(counts))
    if len(marks) == 3:  # only past the look-back, and strictly between, splitting the gap
        first, k, last = marks
        assert ends[last] - ends[first] > 20 and ends[first] < ends[k] < ends[last] + 1
        assert max(ends[k] - ends[first], ends[last] - ends[k]) < ends[last] - ends[first]
    elif 0 < previous_end < n - 1 and ends[n - 1] - ends[previous_end - 1] > 20:
        # past the look-back without a mark in between: no message in between writes a block
        assert all(ends[i] == ends[previous_end - 1] for i in range(previous_end, n - 1))
