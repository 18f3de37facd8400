"""Accounting: what each message, schema and image costs, the per-message cache, bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxsieve.admission import MESSAGE_FRAMING_TOKENS, Accountant, Limits, Session, coerce_message
from ctxsieve.admission.reports import RequestUsage
from ctxsieve.errors import ConfigError


def test_framing_constant_is_documented_value() -> None:
    assert MESSAGE_FRAMING_TOKENS == 4


def test_message_costs(est: Any) -> None:
    acc = Accountant()
    call = {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": '{"q": "refunds"}'}}
    msgs = [
        {"role": "user", "content": "héllo wörld"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "30 days"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "u"}}],
        },
    ]
    costs = acc.messages(msgs)
    assert [c.tokens(100) for c in costs] == [
        4 + est("héllo wörld"),
        4 + est("") + est("call_1") + est("search") + est('{"q": "refunds"}'),
        4 + est("30 days") + est("call_1"),
        4 + est("see") + 100,
    ]
    assert costs[3].images == 1


def test_tool_schema_cost_is_its_json_as_sent(est: Any, make_tools: Any) -> None:
    tools = make_tools(2)
    assert Accountant().tool_schemas(tools) == [4 + est(json.dumps(t, separators=(",", ":"))) for t in tools]


def test_costs_are_cached_per_message_object() -> None:
    seen: list[int] = []

    def counting(texts: list[str]) -> list[int]:
        seen.append(len(texts))
        return [len(t) for t in texts]

    acc = Accountant(counting)
    history = [{"role": "user", "content": f"m{i}"} for i in range(100)]
    acc.messages(history)
    assert acc.estimated_messages == 100 and len(seen) == 1  # one batch for all
    acc.messages([*history, {"role": "user", "content": "new"}])
    assert acc.estimated_messages == 101 and seen[-1] == 1  # only the new message is estimated


def test_custom_estimator_reaches_the_report() -> None:
    def words(texts: list[str]) -> list[int]:
        return [len(t.split()) for t in texts]

    words.name = "words"  # type: ignore[attr-defined]
    turn = Session(Limits(), estimator=words).turn("one two three")
    report = turn.admit().report
    assert report.estimator == "words"
    assert report.sections["messages"] >= 4 + 3


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (lambda texts: [1], "must return a list of"),
        (lambda texts: [-1] * len(texts), "expected an int >= 0"),
        (lambda texts: [1.5] * len(texts), "expected an int >= 0"),
        (lambda texts: tuple(0 for _ in texts), "must return a list"),
    ],
)
def test_bad_estimator_is_a_config_error(bad: Any, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        Accountant(bad).messages([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])


def test_malformed_messages_are_counted_conservatively_and_noted(est: Any) -> None:
    no_role = coerce_message({"content": "who am I"})
    assert no_role.role == "user" and "read as user text" in no_role.problems[0]
    orphan = coerce_message({"role": "tool", "content": "result"})
    assert orphan.role == "tool" and orphan.problems == ("tool result without a tool_call_id",)
    bad_args = coerce_message(
        {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{not json"}}]}
    )
    assert bad_args.tool_calls[0].arguments == "{not json"
    assert bad_args.problems == ("tool call c: arguments are not valid JSON",)
    odd = coerce_message({"role": "user", "content": {"weird": "shape"}})
    assert json.loads(odd.text) == {"weird": "shape"} and odd.problems
    unknown_part = coerce_message({"role": "user", "content": [{"type": "audio", "data": "zzz"}]})
    assert "zzz" in unknown_part.text and "audio" in unknown_part.problems[0]
    # an image whose source is not a mapping is still an image, noted (it raised AttributeError)
    odd_images = coerce_message(
        {
            "role": "user",
            "content": [
                {"type": "image", "source": "https://x/a.png"},
                {"type": "image_url", "image_url": None},
                {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "image", "source": 5}]},
            ],
        }
    )
    assert [i.url for i in odd_images.images] == ["https://x/a.png", None, "5"]
    assert len(odd_images.problems) == 3
    # counted, not dropped: the raw non-JSON arguments are estimated in full
    (cost,) = Accountant().messages([bad_args])
    assert cost.text_tokens == est("") + est("c") + est("f") + est("{not json")


def test_malformed_history_is_kept_and_reported_in_the_turn() -> None:
    history = [
        {"content": "no role here"},
        {"role": "assistant", "tool_calls": [{"id": "c9", "function": {"name": "f", "arguments": "nope"}}]},
        {"role": "tool", "content": "orphan result"},
        42,
    ]
    turn = Session().turn("now", history=history)
    adm = turn.admit()
    ctx = adm.request.context or ""
    assert "no role here" in ctx and "orphan result" in ctx and "nope" in ctx and "42" in ctx
    # the orphan result follows the call, so the two leave together: 3 records
    assert adm.report.counts["history"]["records"] == 3 and adm.report.counts["history"]["included"] == 3
    notes = adm.report.notes
    assert any(n.startswith("history message 0:") and "read as user text" in n for n in notes)
    assert "history message 1: tool call c9: arguments are not valid JSON" in notes
    assert "history message 2: tool result without a tool_call_id" in notes
    assert any(n.startswith("history message 3:") for n in notes)
    assert all("no role here" not in n for n in notes)  # notes never carry bodies


def test_named_estimators_plug_in(est: Any) -> None:
    assert Session(Limits(tokenizer="bytes/3")).accountant.name == "bytes/3"
    four = Session(estimator="bytes/4").turn("x" * 400).admit().report
    assert four.estimator == "bytes/4" and four.sections["messages"] >= 4 + 100
    with pytest.raises(ConfigError, match="unknown estimator"):
        Session(Limits(tokenizer="nonsense"))
    with pytest.raises(ConfigError, match=r"Limits\.tokenizer"):
        Limits(tokenizer="")


def test_anthropic_history_and_sdk_objects(est: Any) -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "weather in Paris and Rome?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "tu1", "name": "weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "tu2", "name": "weather", "input": {"city": "Rome"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "tu1", "content": "Paris: 18C"},
                {"type": "tool_result", "tool_use_id": "tu2", "content": [{"type": "text", "text": "Rome: 24C"}]},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Paris 18C, Rome 24C."}]},
    ]
    adm = Session().turn("thanks", history=history).admit()
    ctx = adm.request.context or ""
    assert '-> called weather({"city": "Paris"}) [call tu1]' in ctx
    assert "[turn 1 · tool result for call tu2]\nRome: 24C" in ctx
    # the call and both results form one record: 4 records become 3 (user, call+results, answer)
    assert adm.report.counts["history"]["records"] == 3 and adm.report.notes == ()

    class SdkMessage:  # what provider SDKs return: pydantic models with model_dump()
        def model_dump(self, exclude_none: bool = False) -> dict[str, Any]:
            return {"role": "assistant", "content": "from the SDK"}

    (cost,) = Accountant().messages([SdkMessage()])
    assert cost.message.role == "assistant" and cost.text_tokens == est("from the SDK")


@pytest.mark.parametrize(
    ("provider", "expected"),
    [
        ({"prompt_tokens": 950, "completion_tokens": 40}, (950, 40, 990, "provider")),
        ({"prompt_tokens": 950, "completion_tokens": 40, "total_tokens": 1000}, (950, 40, 1000, "provider")),
        # Anthropic: cached prompt parts are input too
        (
            {
                "input_tokens": 100,
                "output_tokens": 7,
                "cache_read_input_tokens": 800,
                "cache_creation_input_tokens": 50,
            },
            (950, 7, 957, "provider"),
        ),
        ({"completion_tokens": 40}, (900, 40, 940, "partial")),
        ({"prompt_tokens": 0}, (0, 0, 0, "partial")),  # a reported 0 is the provider's number
        ({"completion_tokens": 0}, (900, 0, 900, "partial")),
        ({"prompt_tokens": -1, "completion_tokens": True}, (900, 0, 900, "estimate")),
        (None, (900, 0, 900, "estimate")),
    ],
)
def test_provider_usage_is_the_source_of_truth(provider: Any, expected: tuple[int, int, int, str]) -> None:
    u = RequestUsage.build(estimated_input=900, input_budget=4000, breakdown={"system": 3}, provider=provider)
    assert (u.input_tokens, u.output_tokens, u.total_tokens, u.source) == expected
    assert u.estimated_input_tokens == 900 and u.breakdown["system"] == 3
