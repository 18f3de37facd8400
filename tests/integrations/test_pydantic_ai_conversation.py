"""ContextCapability runs each model request of a real PydanticAI agent through a Conversation:
the cache-stable request, admission (cuts, refusal before the model, another model's window on a
retried attempt), offloading into the stored history, one conversation per conversation id."""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

import pytest
from integration_helpers import numbered
from pydantic_ai import Agent, RetryModelRequest
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from ctxsieve import ContextBudgetError, ContextEngine, Limits, StaticSource
from ctxsieve.conversation import ContextOverflowError
from ctxsieve.integrations.pydantic_ai import from_pydantic_ai
from ctxsieve.integrations.pydantic_ai_agent import ContextCapability
from ctxsieve.loop import Offloader
from ctxsieve.messages import openai_chat

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")


def engine() -> ContextEngine:
    return ContextEngine(
        [
            StaticSource("Name the order number you checked.", name="rules", pinned=True),
            StaticSource(["Parcels ship within 2 working days."], name="kb", kind="knowledge", stability="volatile"),
        ],
        budget=300,
    )


class Recorder:
    """A FunctionModel body: one lookup per question, then an answer; records every request."""

    def __init__(self) -> None:
        self.seen: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        last = messages[-1]
        if any(isinstance(p, UserPromptPart) for p in last.parts):
            n = len(self.seen)
            return ModelResponse([ToolCallPart("lookup", {"order": f"A-{n}"}, tool_call_id=f"c{n}")])
        return ModelResponse([TextPart("It shipped yesterday. " * 10)])


def agent(model: Any, cap: ContextCapability, *extra: Any) -> Agent[None, str]:
    a = Agent(model, system_prompt="You track orders.", capabilities=[*extra, cap])

    @a.tool_plain
    def lookup(order: str) -> str:
        """Look up an order.

        Args:
            order: the order number.
        """
        return f"order {order}: shipped. " + "tracking event " * 60

    return a


async def run_turns(a: Agent[None, str], turns: int, history: list[ModelMessage] | None = None) -> list[ModelMessage]:
    msgs = list(history or [])
    for n in range(1, turns + 1):
        msgs = (await a.run(f"Where is order A-{n}? " + "please check. " * 5, message_history=msgs)).all_messages()
    return msgs


def openai(messages: list[ModelMessage]) -> list[dict[str, Any]]:
    return openai_chat.write(from_pydantic_ai(messages))


async def test_each_request_opens_with_the_previous_one_and_the_history_holds_no_context() -> None:
    rec = Recorder()
    cap = ContextCapability(engine())
    history = await run_turns(agent(FunctionModel(rec), cap), 4)
    sent = [openai(s) for s in rec.seen]
    assert len(sent) == 8
    for prev, cur in itertools.pairwise(sent):
        assert cur[: len(prev)] == prev  # the provider's prefix cache reads the whole previous request
    assert sent[-1][0]["role"] == "system" and sent[-1][0]["content"].startswith("You track orders.")
    assert "Name the order number you checked." in sent[-1][0]["content"]
    assert "Parcels ship within 2" in sent[0][1]["content"] and sent[0][2]["content"].startswith("Where")
    assert not any("Parcels ship" in str(getattr(p, "content", "")) for m in history for p in m.parts)
    assert len(cap.threads) == 1  # the four runs are one conversation (message_history carries its id)


async def test_a_conversation_that_outgrows_the_limit_is_cut_and_stays_within_it() -> None:
    rec = Recorder()
    limits = Limits(input_ceiling=1_600, output_reserve=100, protocol_overhead=50)
    cap = ContextCapability(engine(), limits=limits)
    await run_turns(agent(FunctionModel(rec), cap), 12)
    ((_, thread),) = cap.threads.items()
    conv = thread.conv
    assert conv.cuts and cap.last is not None and cap.last.estimated_input_tokens <= cap.last.limit.tokens
    later = [openai(s) for s in rec.seen[-4:]]
    assert all("earlier turn(s)" in b[1]["content"] for b in later)
    for seen in rec.seen:
        body = openai(seen)
        ids = [c["id"] for m in body for c in m.get("tool_calls") or ()]
        assert ids == [m["tool_call_id"] for m in body if m["role"] == "tool"]


async def test_a_request_that_cannot_fit_is_refused_before_the_model_is_called() -> None:
    rec = Recorder()
    cap = ContextCapability(limits=Limits(input_ceiling=300, output_reserve=10, protocol_overhead=10))
    with pytest.raises(ContextBudgetError):
        await agent(FunctionModel(rec), cap).run("x" * 3_000)
    assert rec.seen == []


class FallBack(AbstractCapability[Any]):
    """Retry a failed attempt on ``model`` (what a fallback policy does)."""

    def __init__(self, model: Any):
        self.model = model

    async def on_model_request_error(self, ctx: Any, *, request_context: Any, error: Exception) -> Any:
        if request_context.model is self.model:
            raise error
        raise RetryModelRequest(model=self.model)


async def test_a_retried_attempt_on_a_smaller_model_is_admitted_for_its_window() -> None:
    windows = {"big": 100_000, "small": 1_400}
    rec_big, rec_small = Recorder(), Recorder()
    failing = {"on": False}

    def big(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if failing["on"]:
            rec_big.seen.append(list(messages))
            raise RuntimeError("big is overloaded")
        return rec_big(messages, info)

    small = FunctionModel(rec_small, model_name="small")
    limits = Limits(input_ceiling=50_000, output_reserve=100, protocol_overhead=50)
    cap = ContextCapability(engine(), limits=limits, window_lookup=windows.get)
    a = agent(FunctionModel(big, model_name="big"), cap, FallBack(small))
    history = await run_turns(a, 6)
    failing["on"] = True
    await run_turns(a, 1, history)
    assert rec_small.seen and cap.last is not None and cap.last.model == "small"
    assert cap.last.limit.tokens == 1_300 and cap.last.estimated_input_tokens <= 1_300
    assert len(from_pydantic_ai(rec_small.seen[0])) < len(from_pydantic_ai(rec_big.seen[-1]))


async def test_offloaded_results_are_stored_and_the_model_greps_them(store: Any) -> None:
    off = Offloader(store, max_tokens=300, preview_tokens=50)
    seen: list[list[ModelMessage]] = []
    tools: list[Any] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        tools[:] = info.function_tools
        if len(seen) == 1:
            return ModelResponse([ToolCallPart("fetch_logs", {}, tool_call_id="f1")])
        if len(seen) == 2:
            ret = next(p for p in messages[-1].parts if isinstance(p, ToolReturnPart))
            handle = HANDLE.search(str(ret.content)).group(0)  # type: ignore[union-attr]
            return ModelResponse(
                [ToolCallPart("ctx_grep", {"handle": handle, "pattern": "^entry 377:"}, tool_call_id="g1")]
            )
        return ModelResponse([TextPart("found: " + str(messages[-1].parts[0].content))])

    a = Agent(FunctionModel(model), capabilities=[ContextCapability(offloader=off)])

    @a.tool_plain
    def fetch_logs() -> str:
        """Fetch the service logs."""
        return numbered(1000, "entry")

    result = await a.run("what happened at entry 377?")
    assert "377: entry 377: " + "x" * 40 in result.output
    kept = [
        p
        for m in result.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == "fetch_logs"
    ]
    assert len(kept) == 1 and HANDLE.search(str(kept[0].content)) and "entry 999" not in str(kept[0].content)
    # the capability registered the offloader's tools, with the shared descriptions
    grep = next(t for t in tools if t.name == "ctx_grep")
    assert "regular expression" in grep.parameters_json_schema["properties"]["pattern"]["description"]


async def test_once_compaction_summarised_the_prompt_away_the_request_sends_it_after_the_summary() -> None:
    from ctxsieve.loop import Compactor, SummaryRequest

    async def summarize(req: SummaryRequest) -> str:
        return f"{len(req.messages)} messages of log pages"

    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if len(seen) <= 5:  # a long run of tool calls after one question
            return ModelResponse([ToolCallPart("page", {"n": len(seen)}, tool_call_id=f"p{len(seen)}")])
        return ModelResponse([TextPart("done")])

    cap = ContextCapability(engine(), compactor=Compactor(summarize, threshold_tokens=300, keep_last=1))
    a = Agent(FunctionModel(model), system_prompt="You read logs.", capabilities=[cap])

    @a.tool_plain
    def page(n: int) -> str:
        """Fetch one page of the logs.

        Args:
            n: the page number.
        """
        return numbered(20, f"page {n} entry")

    result = await a.run("Where is order A-7?")
    stored = from_pydantic_ai(result.all_messages())
    assert not any(m.role == "user" and m.text == "Where is order A-7?" for m in stored)  # summarised away
    compacted = [openai(s) for s in seen if any("[Summary of the" in str(m.get("content")) for m in openai(s))]
    assert compacted
    for body in compacted:
        k = next(i for i, m in enumerate(body) if str(m.get("content", "")).startswith("[Summary of the"))
        asked = [i for i, m in enumerate(body) if m.get("content") == "Where is order A-7?"]
        assert asked == [k + 2] and "Parcels ship within 2" in body[k + 1]["content"]  # its context before it
        assert "Name the order number you checked." in body[0]["content"]


def _too_long(tokens: int, maximum: int) -> ModelHTTPError:
    # what PydanticAI's Anthropic model raises for the API's 400 (pydantic_ai.exceptions)
    body = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": f"prompt is too long: {tokens} tokens > {maximum} maximum",
        },
    }
    return ModelHTTPError(400, "claude", body)


async def test_an_overflow_is_retried_once_smaller_and_a_second_one_raises() -> None:
    rec = Recorder()
    refusals = {"left": 1, "over": 12}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if refusals["left"] and sum(len(m.parts) for m in messages) > refusals["over"]:
            refusals["left"] -= 1
            rec.seen.append(list(messages))
            raise _too_long(2_600, 2_000)
        return rec(messages, info)

    cap = ContextCapability(engine())
    history = await run_turns(agent(FunctionModel(model), cap), 8)
    ((_, thread),) = cap.threads.items()
    (ev,) = thread.conv.overflows
    k = next(i for i, s in enumerate(rec.seen) if sum(len(m.parts) for m in s) > 12)
    assert sum(len(m.parts) for m in rec.seen[k + 1]) < sum(len(m.parts) for m in rec.seen[k])
    assert ev.provider == "anthropic" and ev.provider_tokens == 2_600 and ev.retry_limit is not None
    refusals.update(left=10, over=0)
    calls = len(rec.seen)
    with pytest.raises(ContextOverflowError):
        await agent(FunctionModel(model), cap).run("And A-99?", message_history=history)
    assert len(rec.seen) == calls + 2  # the call and its one retry: never a third request


async def test_a_calibrator_learns_from_response_usage_and_tightens_the_next_requests_limit() -> None:
    from pydantic_ai.usage import RequestUsage as PaiUsage

    from ctxsieve.errors import ConfigError
    from ctxsieve.tokenizers import UsageCalibrator

    cal = UsageCalibrator(max_age=0, min_prompt_tokens=1)
    cap = ContextCapability(engine(), calibrator=cal, limits=Limits(input_ceiling=6_000, output_reserve=500))
    rec, admitted = Recorder(), []

    def over_by_a_fifth(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        admitted.append(cap.last)  # admitted before the model is called: its estimate is known
        reply = rec(messages, info)
        reply.usage = PaiUsage(input_tokens=math.ceil(cap.last.prompt_tokens * 1.2), output_tokens=9)
        return reply

    await run_turns(agent(FunctionModel(over_by_a_fifth, model_name="big"), cap), 3)
    c = cal.calibration("bytes/3", "big")  # the engine's estimator, the default
    assert c.samples == 6 and c.factor == pytest.approx(1.2, abs=0.02)  # 3 runs of 2 requests
    assert admitted[-1].limit.tokens < admitted[0].limit.tokens
    assert "usage calibration" in (admitted[-1].limit.note or "")
    with pytest.raises(ConfigError, match=r"calibrator: expected a ctxsieve\.tokenizers\.UsageCalibrator"):
        ContextCapability(engine(), calibrator="1.2")
