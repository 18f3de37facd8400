"""Cached and uncached prompt tokens from each provider's usage payload (docs/providers.md,
"Prompt caching"): ``RequestUsage.input_tokens`` is the whole prompt for every provider."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from ctxsieve import Conversation
from ctxsieve.admission.reports import RequestUsage
from tests.conversation import provider_shapes as shapes


def build(usage: Any) -> RequestUsage:
    return RequestUsage.build(estimated_input=900, input_budget=200_000, breakdown={}, provider=usage)


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        # (input = whole prompt, output, cached read, cache written, uncached)
        (shapes.ANTHROPIC_USAGE_WRITE, (188_107, 393, 0, 188_086, 188_107)),
        (shapes.ANTHROPIC_USAGE_READ, (100_050, 503, 100_000, 0, 50)),
        (shapes.OPENAI_CHAT_USAGE, (2006, 300, 1920, None, 86)),
        (shapes.RESPONSES_USAGE, (2006, 300, 1920, None, 86)),
        (shapes.GEMINI_USAGE_METADATA, (2150, 120, 2048, None, 102)),
        (shapes.DEEPSEEK_USAGE, (1200, 50, 1024, None, 176)),
        # a provider that reports no cache field: cached unknown, not 0
        ({"prompt_tokens": 10, "completion_tokens": 2}, (10, 2, None, None, None)),
    ],
    ids=["anthropic-write", "anthropic-read", "openai-chat", "responses", "gemini", "deepseek", "no-cache-info"],
)
def test_each_providers_usage_gives_the_whole_prompt_and_its_cached_part(usage: Any, expected: tuple[Any, ...]) -> None:
    u = build(usage)
    got = (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.cache_write_tokens, u.uncached_input_tokens)
    assert got == expected
    assert u.source == "provider" and u.ignored == ()


def test_sdk_objects_are_read_through_their_attributes() -> None:
    # the OpenAI SDK's CompletionUsage with its PromptTokensDetails
    usage = SimpleNamespace(
        prompt_tokens=2006,
        completion_tokens=300,
        total_tokens=2306,
        prompt_tokens_details=SimpleNamespace(cached_tokens=1920),
    )
    u = build(usage)
    assert (u.input_tokens, u.cached_input_tokens, u.uncached_input_tokens) == (2006, 1920, 86)
    # None details (an SDK object of a call without caching) is "not reported"
    u = build(SimpleNamespace(prompt_tokens=5, completion_tokens=1, prompt_tokens_details=None))
    assert (u.input_tokens, u.cached_input_tokens, u.ignored) == (5, None, ())


@pytest.mark.parametrize(
    ("usage", "field", "numbers"),
    [
        (
            {**shapes.OPENAI_CHAT_USAGE, "prompt_tokens_details": {"cached_tokens": "1920"}},
            "prompt_tokens_details.cached_tokens",
            (2006, None),
        ),
        # the read is not believed; the write (0) still says how much was cached: none known
        ({**shapes.ANTHROPIC_USAGE_READ, "cache_read_input_tokens": -3}, "cache_read_input_tokens", (50, 0)),
        ({**shapes.DEEPSEEK_USAGE, "prompt_cache_hit_tokens": True}, "prompt_cache_hit_tokens", (1200, None)),
        ({**shapes.GEMINI_USAGE_METADATA, "cachedContentTokenCount": 2.5}, "cachedContentTokenCount", (2150, None)),
    ],
)
def test_a_field_of_the_wrong_type_is_not_used_and_is_named(
    usage: dict[str, Any], field: str, numbers: tuple[int, int | None]
) -> None:
    u = build(usage)
    assert len(u.ignored) == 1 and u.ignored[0].startswith(f"usage.{field}: expected an int >= 0, got ")
    assert (u.input_tokens, u.cached_input_tokens) == numbers  # the other fields still count


def test_more_cached_than_the_whole_prompt_is_not_believed() -> None:
    u = build({"prompt_tokens": 100, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 1920}})
    assert u.cached_input_tokens is None and u.input_tokens == 100
    assert u.ignored == ("usage: 1920 cached tokens reported for a prompt of 100; the cached count is not used",)


def test_the_usage_report_shows_cached_and_uncached_totals() -> None:
    conv = Conversation(system="s", provider="anthropic")
    for usage in (shapes.ANTHROPIC_USAGE_WRITE, shapes.ANTHROPIC_USAGE_READ):
        conv.add_user("q")
        conv.prepare()
        # the usage comes with the response, as Anthropic's Messages API returns it
        conv.record_response(
            {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "a"}], "usage": usage}
        )
    conv.add_user("q")
    conv.prepare()
    conv.record_response({"role": "assistant", "content": "a"})  # no usage: the estimate, nothing cached known
    totals = conv.usage_report()["totals"]
    estimate = conv.calls[-1].usage.input_tokens  # type: ignore[union-attr]
    assert totals["input_tokens"] == 188_107 + 100_050 + estimate
    assert (totals["cached_input_tokens"], totals["cache_write_tokens"], totals["cache_reported"]) == (
        100_000,
        188_086,
        2,
    )
    assert totals["uncached_input_tokens"] == totals["input_tokens"] - 100_000
    assert conv.usage_report()["last_call"]["cached_input_tokens"] is None


def test_something_that_is_no_usage_payload_is_named_and_the_estimate_stands() -> None:
    for bad in ("1200 tokens", 1200, [1200]):
        u = build(bad)
        assert (u.source, u.input_tokens, u.cached_input_tokens) == ("estimate", 900, None)
        assert u.ignored == (f"usage: expected a mapping or an SDK usage object, got {type(bad).__name__}",)


def test_a_details_object_of_the_wrong_shape_is_named_not_skipped() -> None:
    u = build({**shapes.OPENAI_CHAT_USAGE, "prompt_tokens_details": "1920 cached"})
    assert u.ignored == ("usage.prompt_tokens_details: expected an object, got str",)
    assert (u.input_tokens, u.cached_input_tokens) == (2006, None)
    u = build({"input_tokens": 40, "input_tokens_details": [7]})
    assert u.ignored == ("usage.input_tokens_details: expected an object, got list",)


def test_a_payload_with_no_usage_field_at_all_is_named() -> None:
    # the whole response passed as its usage (one level too high): nothing is read, and it says so
    u = build({"usage": shapes.OPENAI_CHAT_USAGE, "id": "chatcmpl-1"})
    assert (u.source, u.input_tokens) == ("estimate", 900)
    assert u.ignored == ("usage: no usage field found (keys: 'id', 'usage')",)
    assert build({}).ignored == ()  # an empty usage says nothing, and is not wrong


def test_deepseek_hit_and_miss_that_do_not_add_up_are_not_believed() -> None:
    u = build({**shapes.DEEPSEEK_USAGE, "prompt_cache_miss_tokens": 500})
    assert u.cached_input_tokens is None and u.input_tokens == 1200
    assert u.ignored == (
        "usage: prompt_cache_hit_tokens 1024 + prompt_cache_miss_tokens 500 != prompt_tokens 1200; "
        "the cached count is not used",
    )
    assert build(shapes.DEEPSEEK_USAGE).cached_input_tokens == 1024
