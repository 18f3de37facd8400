"""Overflow despite admission, driven through a real HTTP server on loopback (provider_stub.py):
the provider counts 1.5x what the conversation's ``bytes/3`` estimate says, so a call admitted
under its limit is refused with the provider's documented 400. The conversation retries it once,
smaller, learns the ratio so later calls fit, and never loops."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from ctxsieve import ContextBudgetError, Limits
from ctxsieve.admission.errors import TurnStateError
from ctxsieve.conversation import ContextOverflowError, Conversation
from ctxsieve.conversation.overflow import ORIGIN, OVERFLOW_FACTOR

from .provider_stub import ProviderStub

LIMITS = Limits(input_ceiling=3000, output_reserve=200, protocol_overhead=40)
QUESTION = "Where is order A-{n}? It was sent to the depot in Bergen and the customer asks daily. " * 3
ANSWER = {"role": "assistant", "content": "Order A-{n} left the depot on day {n} and is on its way. " * 3}


def _send(client: httpx.Client, stub: ProviderStub, conv: Conversation, call, shape: str):
    if shape == "anthropic":
        return client.post(f"{stub.url}/v1/messages", json=call.anthropic(max_tokens=64))
    return client.post(f"{stub.url}/v1/chat/completions", json=call.openai())


def _turns(conv: Conversation, stub: ProviderStub, turns: int, shape: str = "anthropic") -> list:
    """The loop: prepare, send, on a 400 hand the error to the conversation and send the retry."""
    calls = []
    with httpx.Client() as client:
        for n in range(1, turns + 1):
            conv.add_user(QUESTION.format(n=n))
            call = conv.prepare()
            calls.append(call)
            response = _send(client, stub, conv, call, shape)
            try:
                response.raise_for_status()
            except httpx.HTTPStatusError as exc:
                call = conv.overflowed(exc)
                calls.append(call)
                response = _send(client, stub, conv, call, shape)
                response.raise_for_status()  # the retry fits
            conv.record_response({"role": "assistant", "content": ANSWER["content"].format(n=n)})
    return calls


def test_an_overflow_is_retried_once_smaller_and_the_next_calls_fit():
    events = []
    conv = Conversation(system="You track orders.", limits=LIMITS, on_event=lambda n, p: events.append((n, p)))
    with ProviderStub(maximum=LIMITS.input_ceiling - LIMITS.output_reserve) as stub:
        calls = _turns(conv, stub, 40)
    statuses = [status for _, _, _, status in stub.requests]
    assert statuses.count(400) == 1  # one overflow in 40 turns: the ratio it taught holds
    k = statuses.index(400)
    failed, retry = calls[k], calls[k + 1]
    assert statuses[k + 1] == 200
    # the retry is the same call's next attempt, smaller by what the provider's numbers say
    assert (retry.call_index, retry.attempt) == (failed.call_index, failed.attempt + 1)
    assert stub.requests[k + 1][2] <= stub.maximum < stub.requests[k][2]
    assert retry.estimated_input_tokens < failed.estimated_input_tokens
    assert len(retry.messages) < len(failed.messages)
    assert retry.limit.origin == ORIGIN and retry.limit.tokens < failed.limit.tokens
    assert any("refused attempt 0 as too long" in note for note in retry.report.notes)
    # the event, and the record
    (ev,) = conv.overflows
    assert ev.provider == "anthropic" and ev.provider_tokens == stub.requests[k][2]
    assert ev.provider_maximum == stub.maximum and ev.retry_limit == retry.limit.tokens
    assert ev.ratio == pytest.approx(stub.requests[k][2] / failed.prompt_tokens)
    overflow_events = [p for name, p in events if name == "context.overflow"]
    assert overflow_events == [{"conversation_id": conv.id, **ev.event}]
    # every later call is admitted under the learned limit: the provider's max over the ratio
    later = calls[k + 2 :]
    overhead = LIMITS.protocol_overhead
    assert later and all(c.limit.tokens <= overhead + stub.maximum / ev.ratio for c in later)
    assert all("an earlier call overflowed" in (c.limit.note or "") for c in later)
    assert all(c.estimated_input_tokens <= c.limit.tokens for c in calls)


def test_a_second_overflow_of_the_same_call_raises_with_the_breakdown():
    events = []
    conv = Conversation(system="You track orders.", limits=LIMITS, on_event=lambda n, p: events.append(n))
    for n in range(1, 8):
        conv.add_user(QUESTION.format(n=n))
        conv.prepare()
        conv.record_response({"role": "assistant", "content": ANSWER["content"].format(n=n)})
    conv.add_user("And order A-99?")
    with ProviderStub(maximum=100_000, refuse=2) as stub, httpx.Client() as client:
        call = conv.prepare()
        first = client.post(f"{stub.url}/v1/messages", json=call.anthropic(max_tokens=64))
        retry = conv.overflowed(first.json())  # the body as a dict works too
        second = client.post(f"{stub.url}/v1/messages", json=retry.anthropic(max_tokens=64))
        assert second.status_code == 400
        with pytest.raises(ContextOverflowError) as info:
            conv.overflowed(second.json())
    err = info.value
    assert isinstance(err, ContextBudgetError)
    assert err.breakdown == retry.breakdown and err.limit == retry.limit.tokens
    assert "again after one retry" in str(err) and f"call {call.call_index}" in str(err)
    assert [e.retry_limit is not None for e in conv.overflows] == [True, False]
    assert events.count("context.overflow") == 2
    assert len(stub.requests) == 2  # nothing sent a third time
    # the refused call is over: the loop can go on with a new call
    with pytest.raises(TurnStateError):
        conv.overflowed()
    assert conv.prepare().call_index == call.call_index + 1


def test_a_retry_that_cannot_shrink_raises_the_budget_error():
    # nothing optional to give up: the system prompt and the question are the whole request
    conv = Conversation(system="You track orders.", limits=LIMITS)
    conv.add_user("Where is order A-1? " * 120)
    call = conv.prepare()
    with ProviderStub(maximum=call.estimated_input_tokens // 2) as stub, httpx.Client() as client:
        response = client.post(f"{stub.url}/v1/messages", json=call.anthropic(max_tokens=64))
        with pytest.raises(ContextBudgetError) as info:
            conv.overflowed(response.json())
    assert not isinstance(info.value, ContextOverflowError)
    assert info.value.breakdown["messages"] > info.value.limit  # the current turn alone is over


def test_an_error_without_numbers_tightens_by_the_documented_factor():
    conv = Conversation(system="You track orders.", limits=LIMITS)
    with ProviderStub(maximum=LIMITS.input_ceiling - LIMITS.output_reserve, with_counts=False) as stub:
        calls = _turns(conv, stub, 30, shape="openai")
    statuses = [s for *_, s in stub.requests]
    k = statuses.index(400)
    failed, retry = calls[k], calls[k + 1]
    assert retry.limit.tokens <= LIMITS.protocol_overhead + int(failed.prompt_tokens * OVERFLOW_FACTOR)
    first, *rest = conv.overflows
    assert first.provider_tokens is None and first.ratio == pytest.approx(1 / OVERFLOW_FACTOR)
    assert "did not say how many tokens" in retry.report.notes[-1]
    # the stub counts 1.5x: an assumed 1.33x is too low once, then 1.78x holds for the rest
    assert [e.ratio for e in rest] == [pytest.approx(1 / OVERFLOW_FACTOR**2)]
    assert statuses.count(400) == 2 and statuses[-10:] == [200] * 10


def test_overflowed_refuses_what_is_not_an_overflow_and_needs_a_pending_call():
    conv = Conversation(system="s")
    with pytest.raises(TurnStateError):
        conv.overflowed()
    conv.add_user("hello")
    conv.prepare()
    with pytest.raises(ValueError, match="not a context-overflow answer"):
        conv.overflowed({"error": {"code": "rate_limit_exceeded", "message": "slow down"}})
    assert conv._pending is not None  # still pending: a refused argument changes nothing
    assert conv.overflows == []


def test_a_compacting_conversation_summarises_on_the_retry():
    requests = []

    class Summariser:
        timeout = 5.0

        async def summarize(self, req):
            requests.append(req)
            return f"{len(req.messages)} earlier messages about orders"

    conv = Conversation(system="You track orders.", limits=LIMITS, compactor=Summariser())
    for n in range(1, 9):
        conv.add_user(QUESTION.format(n=n))
        conv.prepare()
        conv.record_response({"role": "assistant", "content": ANSWER["content"].format(n=n)})
    conv.add_user("And order A-99?")
    call = conv.prepare()
    before = len(requests)
    retry = conv.overflowed(f"prompt is too long: {call.estimated_input_tokens * 2} tokens > 2000 maximum")
    assert len(requests) == before + 1 and conv.cuts[-1].summarized
    assert retry.messages[0].text.startswith("[Summary of the ")
    assert retry.estimated_input_tokens < call.estimated_input_tokens


def test_aoverflowed_awaits_the_retry():
    conv = Conversation(system="s", limits=LIMITS)
    for n in range(1, 9):
        conv.add_user(QUESTION.format(n=n))
        conv.prepare()
        conv.record_response({"role": "assistant", "content": "ok"})
    conv.add_user("next")

    async def run():
        call = await conv.aprepare()
        return call, await conv.aoverflowed(
            f"prompt is too long: {call.estimated_input_tokens * 3} tokens > 900 maximum"
        )

    call, retry = asyncio.run(run())
    assert retry.attempt == call.attempt + 1 and retry.estimated_input_tokens < call.estimated_input_tokens


def test_the_anthropic_sdk_against_the_stub():
    anthropic = pytest.importorskip("anthropic")
    conv = Conversation(system="You track orders.", limits=LIMITS)
    with ProviderStub(maximum=LIMITS.input_ceiling - LIMITS.output_reserve) as stub:
        # an httpx client of our own: anthropic 0.38 passes httpx 0.28 an argument it dropped
        client = anthropic.Anthropic(base_url=stub.url, api_key="test", max_retries=0, http_client=httpx.Client())
        overflowed = 0
        for n in range(1, 30):
            conv.add_user(QUESTION.format(n=n))
            call = conv.prepare()
            try:
                reply = client.messages.create(**call.anthropic(max_tokens=64))
            except anthropic.BadRequestError as exc:
                overflowed += 1
                reply = client.messages.create(**conv.overflowed(exc).anthropic(max_tokens=64))
            conv.record_response(reply)
    assert overflowed == 1 and len(conv.overflows) == 1
    assert conv.overflows[0].provider_tokens == max(n for *_, n, s in stub.requests if s == 400)


def test_the_learned_ratio_and_a_usage_calibrator_do_not_compound():
    from types import SimpleNamespace

    from ctxsieve.admission.limits import InputLimit
    from ctxsieve.conversation.overflow import OVERFLOW_MARGIN, Learned

    known = Learned()
    known.ratio = 1.5
    limit = InputLimit(10_000, "ceiling", 10_000, None, "none")

    def conv(factor):
        cal = SimpleNamespace(calibration=lambda estimator, model: SimpleNamespace(factor=factor))
        return SimpleNamespace(calibrator=cal, estimator=SimpleNamespace(name="bytes/3"), limits=LIMITS)

    overhead = LIMITS.protocol_overhead
    alone = known.tighten(limit, conv(1.0), "m").tokens
    assert alone == overhead + int((10_000 - overhead) / 1.5 * (1 - OVERFLOW_MARGIN))
    # a calibrator that already divides this model's limit by 1.2 leaves 1.5 / 1.2 to this one
    shared = known.tighten(limit, conv(1.2), "m").tokens
    assert shared == overhead + int((10_000 - overhead) / 1.25 * (1 - OVERFLOW_MARGIN))
    # one that covers all of it leaves the margin only; without a model, the whole ratio applies
    assert known.tighten(limit, conv(2.0), "m").tokens == overhead + int((10_000 - overhead) * (1 - OVERFLOW_MARGIN))
    assert known.tighten(limit, conv(1.2), None).tokens == alone
    # the provider's maximum bounds the prompt part too
    known.maximum = 3_000
    assert known.tighten(limit, conv(1.0), "m").tokens == overhead + int(3_000 / 1.5 * (1 - OVERFLOW_MARGIN))
