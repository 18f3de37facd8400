"""ContextMiddleware runs each model call of a real ``create_agent`` loop through a Conversation:
the cache-stable request, admission (cuts with a gap notice, refusal before the provider, the
fallback's smaller window) and one conversation per agent thread."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import ModelFallbackMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from ctxsieve import ContextBudgetError, ContextEngine, Limits, StaticSource
from ctxsieve.conversation import ContextOverflowError
from ctxsieve.integrations.langchain import from_langchain
from ctxsieve.integrations.langchain_agent import ContextMiddleware
from ctxsieve.messages import openai_chat


class Scripted(BaseChatModel):
    """A chat model whose reply ``script(messages)`` writes; records what it was sent."""

    script: Callable[[list[BaseMessage]], AIMessage]
    model_name: str = "big"
    fail: bool = False
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        self.seen.append(list(messages))
        if self.fail:
            raise RuntimeError(f"{self.model_name} is overloaded")
        return ChatResult(generations=[ChatGeneration(message=self.script(messages))])

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self


@tool
def lookup(order: str) -> str:
    """Look up an order.

    Args:
        order: the order number.
    """
    return f"order {order}: shipped. " + "tracking event " * 60


def one_lookup_then_answer(messages: list[BaseMessage]) -> AIMessage:
    last = messages[-1]
    if isinstance(last, HumanMessage):
        n = sum(isinstance(m, HumanMessage) and m.content.startswith("Where") for m in messages)
        return AIMessage("", tool_calls=[{"name": "lookup", "args": {"order": f"A-{n}"}, "id": f"c{n}"}])
    return AIMessage("It shipped yesterday. " * 10)


def engine() -> ContextEngine:
    return ContextEngine(
        [
            StaticSource("Name the order number you checked.", name="rules", pinned=True),
            StaticSource(["Parcels ship within 2 working days."], name="kb", kind="knowledge", stability="volatile"),
        ],
        budget=300,
    )


def openai(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    return openai_chat.write(from_langchain(messages))


def run_thread(agent: Any, turns: int, thread: str = "t1") -> None:
    config = {"configurable": {"thread_id": thread}}
    for n in range(1, turns + 1):
        agent.invoke({"messages": [HumanMessage(f"Where is order A-{n}? " + "please check. " * 5)]}, config)


def test_each_request_opens_with_the_previous_one_and_the_state_holds_no_context() -> None:
    model = Scripted(script=one_lookup_then_answer)
    mw = ContextMiddleware(engine())
    agent = create_agent(
        model, tools=[lookup], system_prompt="You track orders.", middleware=[mw], checkpointer=InMemorySaver()
    )
    run_thread(agent, 4)
    sent = [openai(s) for s in model.seen]
    assert len(sent) == 8
    for prev, cur in itertools.pairwise(sent):
        assert cur[: len(prev)] == prev  # byte for byte: the provider's prefix cache reads it all
    last = sent[-1]
    assert last[0]["role"] == "system" and last[0]["content"].startswith("You track orders.")
    assert "Name the order number you checked." in last[0]["content"]  # the pinned item, frozen in
    # per user turn: its context message, then the question
    questions = [i for i, m in enumerate(last) if m["role"] == "user" and m["content"].startswith("Where")]
    assert len(questions) == 4 and all("Parcels ship within 2" in last[i - 1]["content"] for i in questions[:1])
    state = agent.get_state({"configurable": {"thread_id": "t1"}}).values
    assert not any("Parcels ship" in str(m.content) for m in state["messages"])
    last_call = mw.last
    # all but the reply that called the tool and its result
    assert last_call is not None and last_call.previous_end == len(last_call.messages) - 2
    assert len(mw.conversation("t1").transcript) == len(state["messages"]) - 0 + 1  # + the first turn's context


def test_a_thread_that_outgrows_the_limit_is_cut_with_a_gap_notice() -> None:
    model = Scripted(script=one_lookup_then_answer)
    limits = Limits(input_ceiling=1_600, output_reserve=100, protocol_overhead=50)
    mw = ContextMiddleware(engine(), limits=limits)
    agent = create_agent(
        model, tools=[lookup], system_prompt="You track orders.", middleware=[mw], checkpointer=InMemorySaver()
    )
    run_thread(agent, 12)
    conv = mw.conversation("t1")
    assert conv.cuts, "the thread outgrew its limit"
    est = conv.estimator
    for seen in model.seen:
        body = openai(seen)
        assert isinstance(seen[0], SystemMessage) and "Name the order number" in seen[0].content
        recount = sum(4 + sum(est.count([m["content"] or ""])) for m in body)
        assert recount <= limits.input_ceiling
    after = [openai(s) for s in model.seen[-4:]]
    assert all(b[1]["content"].startswith("[") and "earlier turn(s)" in b[1]["content"] for b in after)
    # a tool call never leaves without its result
    for seen in model.seen:
        ids = [c["id"] for m in openai(seen) for c in m.get("tool_calls") or ()]
        answered = [m["tool_call_id"] for m in openai(seen) if m["role"] == "tool"]
        assert ids == answered


def test_a_turn_that_cannot_fit_is_refused_before_the_model_is_called() -> None:
    model = Scripted(script=one_lookup_then_answer)
    mw = ContextMiddleware(limits=Limits(input_ceiling=300, output_reserve=10, protocol_overhead=10))
    agent = create_agent(model, tools=[lookup], middleware=[mw])
    with pytest.raises(ContextBudgetError):
        agent.invoke({"messages": [HumanMessage("x" * 3_000)]})
    assert model.seen == []


def test_the_fallback_model_gets_a_request_admitted_for_its_window() -> None:
    windows = {"big": 100_000, "small": 1_400}
    big = Scripted(script=one_lookup_then_answer)
    small = Scripted(script=one_lookup_then_answer, model_name="small")
    limits = Limits(input_ceiling=50_000, output_reserve=100, protocol_overhead=50)
    mw = ContextMiddleware(engine(), limits=limits, window_lookup=windows.get)
    agent = create_agent(
        big,
        tools=[lookup],
        system_prompt="You track orders.",
        middleware=[ModelFallbackMiddleware(small), mw],  # the fallback outside: each model is admitted
        checkpointer=InMemorySaver(),
    )
    run_thread(agent, 6)
    big.fail = True
    run_thread(agent, 1)
    conv = mw.conversation("t1")
    failed, answered = big.seen[-2], small.seen[-2]  # the turn's first call, on each model
    assert len(small.seen) == 2 and conv.cuts  # both calls of the turn went to the small model
    assert len(from_langchain(answered)) < len(from_langchain(failed))
    assert conv.calls[-1].model == "small" and mw.last is not None and mw.last.limit.tokens == 1_300
    assert mw.last.estimated_input_tokens <= 1_300 and isinstance(answered[0], SystemMessage)


def test_each_thread_has_its_own_conversation() -> None:
    model = Scripted(script=one_lookup_then_answer)
    mw = ContextMiddleware(engine())
    agent = create_agent(model, tools=[lookup], system_prompt="s", middleware=[mw], checkpointer=InMemorySaver())
    run_thread(agent, 2, "a")
    run_thread(agent, 1, "b")
    run_thread(agent, 1, "a")
    a, b = mw.conversation("a"), mw.conversation("b")
    assert (a.turn, b.turn) == (3, 1) and not a.cuts and not b.cuts
    with pytest.raises(KeyError):
        mw.conversation("c")


def test_tool_results_are_what_the_agent_state_holds() -> None:
    model = Scripted(script=one_lookup_then_answer)
    agent = create_agent(model, tools=[lookup], middleware=[ContextMiddleware()])
    agent.invoke({"messages": [HumanMessage("Where is order A-1?")]})
    result = next(m for m in model.seen[1] if isinstance(m, ToolMessage))
    assert (
        result.name == "lookup" and result.content.startswith("order A-1: shipped.") and result.id
    )  # the state's own object


def test_a_thread_keeps_the_readings_of_its_current_list_only() -> None:
    from ctxsieve.conversation import Conversation
    from ctxsieve.integrations._conversation import Thread
    from ctxsieve.integrations.langchain_messages import read_one

    thread = Thread(Conversation())
    old = [HumanMessage(f"q{i}") for i in range(200)]
    read = thread.read(old, lambda m, i: [(read_one(m, f"m[{i}]"), m)])
    assert thread.origin(read[5]) is old[5]
    new = [HumanMessage("[summary]"), HumanMessage("q200")]
    again = thread.read(new, lambda m, i: [(read_one(m, f"m[{i}]"), m)])
    assert len(thread._read) == 2 and thread.origin(again[1]) is new[1] and thread.origin(read[5]) is None


def test_a_new_system_prompt_starts_the_thread_a_new_conversation() -> None:
    # a dynamic prompt (another middleware, outside this one) changes the system prompt from the
    # third turn on: the request must carry the new one, counted, not the first one frozen
    from langchain.agents.middleware import dynamic_prompt

    turns: list[int] = []

    @dynamic_prompt
    def prompt(request: Any) -> str:
        n = sum(isinstance(m, HumanMessage) for m in request.messages)
        turns.append(n)
        return "You track orders." if n < 3 else "You track orders. Answer in French."

    model = Scripted(script=one_lookup_then_answer)
    mw = ContextMiddleware(engine())
    agent = create_agent(model, tools=[lookup], middleware=[prompt, mw], checkpointer=InMemorySaver())
    run_thread(agent, 2)
    first = mw.conversation("t1")
    run_thread(agent, 2)
    systems = [s[0].content for s in model.seen]
    assert all(x.startswith("You track orders.\n\n") for x in systems[:4])
    assert all(x.startswith("You track orders. Answer in French.\n\n") for x in systems[4:])
    assert all("Name the order number you checked." in x for x in systems)  # the pinned item, frozen again
    assert mw.conversation("t1") is not first and mw.last is not None
    assert mw.last.system == systems[-1] and mw.last.estimated_input_tokens <= mw.last.limit.tokens


class TooLong(Exception):
    """What openai-python raises for a 400 ``context_length_exceeded`` (its attributes)."""

    def __init__(self, tokens: int, maximum: int):
        self.body = {
            "message": f"This model's maximum context length is {maximum} tokens. However, your messages "
            f"resulted in {tokens} tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
        self.code = "context_length_exceeded"
        self.status_code = 400
        super().__init__(f"Error code: 400 - {self.body}")


def test_an_overflow_is_retried_once_smaller_and_a_second_one_raises() -> None:
    refusals = {"left": 1, "over": 12}

    def refuse_once(messages: list[BaseMessage]) -> AIMessage:
        if refusals["left"] and len(messages) > refusals["over"]:
            refusals["left"] -= 1
            raise TooLong(2_600, 2_000)
        return one_lookup_then_answer(messages)

    model = Scripted(script=refuse_once)
    mw = ContextMiddleware(engine())
    agent = create_agent(model, tools=[lookup], system_prompt="s", middleware=[mw], checkpointer=InMemorySaver())
    run_thread(agent, 8)
    conv = mw.conversation("t1")
    (ev,) = conv.overflows
    k = next(i for i, s in enumerate(model.seen) if len(s) > 12)
    assert len(model.seen[k + 1]) < len(model.seen[k])  # the retry sent less, and was answered
    assert ev.provider == "openai" and ev.retry_limit is not None
    # a provider that refuses every time: one retry, then ContextOverflowError, not a loop
    refusals.update(left=10, over=0)
    calls = len(model.seen)
    with pytest.raises(ContextOverflowError):
        run_thread(agent, 1, thread="t1")
    assert len(model.seen) == calls + 2


def test_a_calibrator_learns_from_usage_metadata_and_every_thread_gets_the_tighter_limit() -> None:
    from ctxsieve.errors import ConfigError
    from ctxsieve.tokenizers import UsageCalibrator

    cal = UsageCalibrator(max_age=0, min_prompt_tokens=1)
    mw = ContextMiddleware(engine(), calibrator=cal, limits=Limits(input_ceiling=6_000, output_reserve=500))

    admitted: list[Any] = []

    def over_by_a_fifth(messages: list[BaseMessage]) -> AIMessage:
        reply = one_lookup_then_answer(messages)
        assert mw.last is not None  # admitted before the model is called: its estimate is known
        admitted.append(mw.last)
        reported = math.ceil(mw.last.prompt_tokens * 1.2)
        reply.usage_metadata = {"input_tokens": reported, "output_tokens": 9, "total_tokens": reported + 9}
        return reply

    model = Scripted(script=over_by_a_fifth)
    agent = create_agent(model, tools=[lookup], system_prompt="s", middleware=[mw], checkpointer=InMemorySaver())
    run_thread(agent, 2, thread="t1")
    c = cal.calibration(mw.conversation("t1").estimator.name, "big")
    assert c.samples == 4 and c.factor == pytest.approx(1.2, abs=0.02)
    # another thread of the same middleware is admitted with the learnt factor from its first call
    run_thread(agent, 1, thread="t2")
    first = admitted[4]  # t1 made 4 calls
    assert first.limit.tokens < admitted[0].limit.tokens and "usage calibration" in (first.limit.note or "")
    assert mw.conversation("t2").usage_report()["calibration"]["applied"]["factor"] == pytest.approx(1.2, abs=0.02)
    with pytest.raises(ConfigError, match=r"calibrator: expected a ctxsieve\.tokenizers\.UsageCalibrator"):
        ContextMiddleware(engine(), calibrator=1.2)
