"""The usage calibrator in the conversation: what each call's limit becomes, what the usage report
shows, and that the factor never changes how any component counts a text (one count)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from ctxsieve import Conversation
from ctxsieve.admission import ContextBudgetError, Limits
from ctxsieve.errors import ConfigError
from ctxsieve.tokenizers import UsageCalibrator, get_estimator
from ctxsieve.tokenizers.usage_calibrator import admitted_prompt
from tests.conversation import provider_shapes as shapes

MODEL = "claude-test"
OK = {"role": "assistant", "content": "noted"}
# a tool-result-like user turn of about 1,700 bytes/3 tokens
TURN = '{"id": 1234567890, "path": "/srv/app/handlers/orders.py", "ok": true} ' * 70


def conversation(cal: UsageCalibrator | None, **kw: Any) -> Conversation:
    return Conversation(system="You answer from tool results.", model=MODEL, calibrator=cal, **kw)


def teach(conv: Conversation, over: float, calls: int = 3) -> None:
    """``calls`` turns whose provider counts ``over`` times the prompt estimate."""
    for i in range(calls):
        conv.add_user(f"turn {i}: {TURN}")
        call = conv.prepare()
        conv.record_response(OK, usage={"prompt_tokens": math.ceil(call.prompt_tokens * over), "completion_tokens": 4})


def test_off_by_default_and_the_report_says_so() -> None:
    conv = conversation(None)
    teach(conv, 1.2)
    assert conv.calibrator is None and conv.usage_report()["calibration"] is None
    conv.add_user("next")
    assert conv.prepare().limit.tokens == Limits().input_ceiling


def test_the_factor_shrinks_the_limit_and_the_report_shows_before_and_after() -> None:
    cal = UsageCalibrator(max_age=0, min_prompt_tokens=500)
    conv = conversation(cal)
    teach(conv, 1.12)
    conv.add_user("next " + TURN)
    call = conv.prepare()
    lim, overhead = Limits(), Limits().protocol_overhead
    f = cal.calibration("bytes/3", MODEL).factor
    assert f == pytest.approx(1.12, abs=1e-3)
    want = overhead + admitted_prompt(lim.input_ceiling - overhead, f)
    assert call.limit.tokens == call.report.limit["input_limit"] == want < lim.input_ceiling
    assert any("usage calibration" in n and "1.120x" in n for n in call.report.notes)
    conv.record_response(OK, usage={"prompt_tokens": math.ceil(call.prompt_tokens * 1.12), "completion_tokens": 4})
    got = conv.usage_report()["calibration"]
    applied = got["applied"]
    assert applied["model"] == MODEL and applied["estimator"] == "bytes/3" and applied["samples"] == 3
    assert applied["factor"] == f and applied["input_limit"] == lim.input_ceiling and applied["admitted_limit"] == want
    assert applied["estimate"] == call.estimated_input_tokens
    assert applied["calibrated_estimate"] == overhead + math.ceil(call.prompt_tokens * f)
    assert got["now"]["samples"] == 4 and got["last_observation"]["learnt"] is True
    assert got["last_observation"]["ratio"] == pytest.approx(1.12, abs=1e-3)


def test_a_transcript_that_fits_the_estimate_but_not_the_provider_is_cut() -> None:
    # the limit holds the history by the estimate; the provider counts 15 % more, so a
    # calibrated conversation cuts before the provider would refuse
    limits = Limits(input_ceiling=11_000, output_reserve=1_000, protocol_overhead=256)
    plain, calibrated = (
        conversation(None, limits=limits),
        conversation(UsageCalibrator(max_age=0, min_prompt_tokens=500), limits=limits),
    )
    for conv in (plain, calibrated):
        teach(conv, 1.15, calls=5)
        conv.add_user(TURN)
    a, b = plain.prepare(), calibrated.prepare()
    assert not plain.cuts and a.estimated_input_tokens <= 11_000 < math.ceil(a.prompt_tokens * 1.15) + 256
    assert calibrated.cuts and 256 + math.ceil(b.prompt_tokens * 1.15) <= 11_000


def test_the_required_part_over_the_calibrated_limit_is_refused() -> None:
    limits = Limits(input_ceiling=6_000, output_reserve=1_000, protocol_overhead=256)
    conv = conversation(UsageCalibrator(max_age=0, min_prompt_tokens=500), limits=limits)
    teach(conv, 1.3, calls=2)
    conv.add_user(TURN * 3)  # ~5,100 estimated tokens: under 6,000, over 6,000 / 1.3
    with pytest.raises(ContextBudgetError) as err:
        conv.prepare()
    assert err.value.limit == 256 + admitted_prompt(6_000 - 256, cal_factor(conv))


def cal_factor(conv: Conversation) -> float:
    assert conv.calibrator is not None
    return conv.calibrator.calibration(str(conv.estimator.name), MODEL).factor


def test_the_whole_anthropic_prompt_is_compared_cache_reads_and_writes_included() -> None:
    cal = UsageCalibrator(max_age=0, min_prompt_tokens=500)
    conv = conversation(cal)
    conv.add_user(TURN)
    call = conv.prepare()
    total = math.ceil(call.prompt_tokens * 1.1)
    usage = {"input_tokens": 12, "cache_read_input_tokens": total - 112, "cache_creation_input_tokens": 100}
    conv.record_response(OK, usage={**usage, "output_tokens": 3})
    obs = conv.usage_report()["calibration"]["last_observation"]
    assert obs["learnt"] and obs["ratio"] == pytest.approx(total / call.prompt_tokens)


@pytest.mark.parametrize(
    ("usage", "reason", "says"),
    [
        (None, "missing", "reported no input tokens"),
        ({"completion_tokens": 3}, "missing", "reported no input tokens"),
        ({"prompt_tokens": -40, "completion_tokens": 3}, "invalid", "int -40 is not a count > 0"),
        ({"prompt_tokens": float("nan"), "completion_tokens": 3}, "invalid", "float nan is not a count > 0"),
        ({"prompt_tokens": 0, "completion_tokens": 3}, "invalid", "int 0 is not a count > 0"),
    ],
)
def test_unusable_usage_is_a_note_in_the_report(usage: Any, reason: str, says: str) -> None:
    conv = conversation(UsageCalibrator(max_age=0, min_prompt_tokens=500))
    conv.add_user(TURN)
    conv.prepare()
    conv.record_response(OK, usage=usage)
    got = conv.usage_report()["calibration"]
    assert got["skipped"] == {reason: 1} and got["now"]["samples"] == 0
    assert (
        len(got["notes"]) == 1
        and got["notes"][0].startswith(f"call 0 (attempt 0) ('{MODEL}'): ")
        and says in got["notes"][0]
    )


def test_a_call_without_a_model_is_not_learnt_from() -> None:
    cal = UsageCalibrator(max_age=0, min_prompt_tokens=500)
    conv = Conversation(calibrator=cal)
    conv.add_user(TURN)
    call = conv.prepare()
    conv.record_response(OK, usage={"prompt_tokens": call.prompt_tokens * 2, "completion_tokens": 1})
    got = conv.usage_report()["calibration"]
    assert got["applied"] is None and got["skipped"] == {"missing": 1} and "no model named" in got["notes"][0]


def test_one_count_holds_with_a_factor() -> None:
    # the factor is in the limit: the estimator, the transcript's costs and every report's
    # sections count exactly as without a calibrator
    spec = "calibrated:o200k"
    est = get_estimator(spec)
    plain = conversation(None, estimator=spec)
    calibrated = conversation(UsageCalibrator(max_age=0, min_prompt_tokens=500), estimator=spec)
    for conv in (plain, calibrated):
        teach(conv, 1.2)
        conv.add_user(TURN)
    a, b = plain.prepare(), calibrated.prepare()
    assert cal_factor(calibrated) > 1.1 and b.limit.tokens < a.limit.tokens
    assert b.report.sections == a.report.sections and b.estimated_input_tokens == a.estimated_input_tokens
    assert calibrated.estimator is plain.estimator is est and est.one(TURN) == get_estimator(spec).one(
        TURN, cache=False
    )
    assert [e.tokens for e in calibrated.transcript] == [e.tokens for e in plain.transcript]


def test_a_calibrator_must_be_one() -> None:
    with pytest.raises(
        ConfigError, match=r"calibrator: expected a ctxsieve\.tokenizers\.UsageCalibrator or None, got dict"
    ):
        Conversation(calibrator={})


def test_a_fallback_gets_the_factor_of_its_own_model() -> None:
    cal = UsageCalibrator(max_age=0, min_prompt_tokens=500)
    conv = conversation(cal)
    teach(conv, 1.3)  # MODEL under-counts by 30 %; "small-model" has no samples
    conv.add_user(TURN)
    first = conv.prepare()
    assert first.limit.tokens < Limits().input_ceiling
    again = conv.fallback("small-model")
    assert again.limit.tokens == Limits().input_ceiling and not any(
        "usage calibration" in n for n in again.report.notes
    )
    conv.record_response(OK, usage={"prompt_tokens": math.ceil(again.prompt_tokens * 1.05), "completion_tokens": 1})
    assert cal.calibration("bytes/3", "small-model").samples == 1  # learnt for the model that answered
    assert cal.calibration("bytes/3", MODEL).samples == 3


@pytest.mark.parametrize(
    ("usage", "prompt"),
    [
        pytest.param(shapes.ANTHROPIC_USAGE_WRITE, 21 + 188_086, id="anthropic-cache-write"),
        pytest.param(shapes.ANTHROPIC_USAGE_READ, 50 + 100_000, id="anthropic-cache-read"),
        pytest.param(shapes.OPENAI_CHAT_USAGE, 2006, id="openai-chat"),
        pytest.param(shapes.RESPONSES_USAGE, 2006, id="openai-responses"),
        pytest.param(shapes.GEMINI_USAGE_METADATA, 2150, id="gemini"),
        pytest.param(shapes.DEEPSEEK_USAGE, 1200, id="deepseek"),
    ],
)
def test_every_providers_usage_is_compared_as_the_whole_prompt(usage: dict[str, Any], prompt: int) -> None:
    # recorded usage of each provider (tests/conversation/provider_shapes.py): the ratio is the
    # whole prompt, cached part included, over the prompt estimate (max_ratio opened up, since
    # the recorded numbers belong to other prompts)
    cal = UsageCalibrator(max_age=0, min_prompt_tokens=1, max_ratio=1e6)
    conv = conversation(cal)
    conv.add_user(TURN)
    call = conv.prepare()
    conv.record_response(OK, usage=usage)
    obs = conv.usage_report()["calibration"]["last_observation"]
    assert obs["learnt"] and obs["ratio"] == prompt / call.prompt_tokens
