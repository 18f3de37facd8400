"""Accounting: what each message, schema and image costs, the per-message cache, bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxsieve.admission import MESSAGE_FRAMING_TOKENS, Accountant, Limits, Session
from ctxsieve.admission.reports import RequestUsage
from ctxsieve.errors import ConfigError
from ctxsieve.messages import MessageError


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
        (lambda texts: [1], "returned 1 counts for 2 texts"),
        (lambda texts: [-1] * len(texts), "counts must be >= 0, got -1 for text 0"),
        (lambda texts: [1.5] * len(texts), "counts must be ints, got float 1.5 for text 0"),
        (lambda texts: [True] * len(texts), "counts must be ints, got bool True"),
        (lambda texts: None, "expected a list of counts"),
    ],
)
def test_bad_estimator_is_a_config_error(bad: Any, match: str) -> None:
    # the checks are the one estimator's (ctxsieve.tokenizers.Estimator), as in the engine
    with pytest.raises(ConfigError, match=f"estimator '<lambda>': {match}"):
        Accountant(bad).messages([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])


def test_any_sequence_of_ints_is_accepted_as_counts() -> None:
    # a tuple or a numpy array of ints is turned into plain ints, as the engine always did
    acc = Accountant(lambda texts: tuple(7 for _ in texts))
    (cost,) = acc.messages([{"role": "user", "content": "a"}])
    assert cost.text_tokens == 7 and type(cost.text_tokens) is int


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        # each of these was read leniently (as user text, or as its JSON text) with a problem note;
        # each is now refused by the codec, naming the field
        ({"content": "who am I"}, r"messages\[0\]\.role: None is not one of"),
        ({"role": "tool", "content": "result"}, r"messages\[0\]\.tool_call_id: a tool message must name the call"),
        ({"role": "user", "content": {"weird": "shape"}}, r"messages\[0\]\.content: expected a str, None or a list"),
        (
            {"role": "user", "content": [{"type": "audio", "data": "zzz"}]},
            r"messages\[0\]\.content\[0\]\.type: 'audio'",
        ),
        (
            {"role": "user", "content": [{"type": "image", "source": "https://x/a.png"}]},
            r"content\[0\]\.source: an image source must be a mapping",
        ),
        (
            {"role": "user", "content": [{"type": "image_url", "image_url": None}]},
            r"content\[0\]\.image_url: expected a url",
        ),
        (
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "image", "source": 5}]}],
            },
            r"messages\[0\]\.content\[0\]\.content\[0\]\.source: an image source must be a mapping",
        ),
        # an Anthropic tool_use inside OpenAI tool_calls: neither shape, not guessed at
        (
            {"role": "assistant", "tool_calls": [{"id": "t2", "name": "tool_1", "input": {"q": "y"}}]},
            r"messages\[0\]\.tool_calls\[0\]\.function: a function must be a mapping",
        ),
        (42, r"messages\[0\]: a message must be a mapping \(a dict or an SDK object\), got int"),
    ],
)
def test_malformed_messages_are_refused_naming_the_place(bad: Any, match: str) -> None:
    with pytest.raises(MessageError, match=match):
        Accountant().messages([bad])


def test_non_json_arguments_are_kept_verbatim_and_counted_in_full(est: Any) -> None:
    # the one leniency left: tool-call arguments are the model's exact text, valid JSON or not
    (cost,) = Accountant().messages(
        [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{not json"}}]}]
    )
    assert cost.message.tool_calls[0].arguments == "{not json"
    assert cost.text_tokens == est("c") + est("f") + est("{not json")


def test_malformed_history_is_refused_naming_the_message_not_its_body() -> None:
    history = [
        {"role": "user", "content": "fine"},
        {"role": "assistant", "tool_calls": [{"id": "c9", "function": {"name": "f", "arguments": "nope"}}]},
        {"role": "tool", "content": "orphan result"},
    ]
    with pytest.raises(MessageError, match=r"^history\[2\]\.tool_call_id: a tool message must name the call") as e:
        Session().turn("now", history=history)
    assert "orphan result" not in str(e.value)  # the error names the place, never the body
    with pytest.raises(MessageError, match=r"^history\[1\]\.role: 'SECRET' is not one of"):
        Session().turn("now", history=[history[0], {"role": "SECRET", "content": "body"}])
    with pytest.raises(MessageError, match=r"^user\.role: 'human' is not one of .*LangChain"):
        Session().turn({"role": "human", "content": "hi"})
    turn = Session().turn("now", history=history[:2])
    with pytest.raises(MessageError, match=r"^turn\.messages\[0\]\.content\[0\]\.type: 'audio'"):
        turn.add({"role": "user", "content": [{"type": "audio"}]})
    # kept and shown: the call with its verbatim arguments (its result never came)
    adm = turn.admit()
    assert "-> called f(nope) [call c9]" in (adm.request.context or "")
    assert adm.report.counts["history"]["records"] == 2 and adm.report.notes == ()


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
    # Anthropic's input object reads as its compact JSON text (json.loads gives it back)
    assert '-> called weather({"city":"Paris"}) [call tu1]' in ctx
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
