"""Reasoning blocks by the provider's rule (docs/providers.md, "Reasoning blocks"): kept
byte-exact where the provider wants them back, left out where it allows and only when the
prefix is rewritten anyway, and counted exactly as they are sent."""

from __future__ import annotations

import itertools
from typing import Any

from ctxsieve import Conversation, Limits
from ctxsieve.messages import sent_texts
from ctxsieve.types import MESSAGE_FRAMING_TOKENS
from tests.conversation import provider_shapes as shapes

TOOL = {"type": "function", "function": {"name": "get_weather", "description": "d", "parameters": {"type": "object"}}}
THOUGHT = "The user wants the weather; I should call get_weather for Paris. " * 20


def recount(conv: Conversation, call: Any) -> int:
    """The call's messages costed from what its renderings send (``sent_messages``), with the
    conversation's framing rule: independent of the transcript's running costs."""
    total = 0
    for m in call.sent_messages:
        framed = max(1, len(m.parts)) if m.role == "tool" else 1
        texts = sent_texts(m)
        total += framed * MESSAGE_FRAMING_TOKENS + (sum(conv.estimator.count(texts)) if texts else 0)
    return total


def message_tokens(call: Any) -> int:
    return call.breakdown["messages"] + call.breakdown["memory"]


def anthropic_turn(conv: Conversation, n: int) -> list[Any]:
    """One user turn of a thinking model: a tool call with its thinking, the result, the answer."""
    conv.add_user(f"What is the weather in Paris, take {n}?")
    calls = [conv.prepare()]
    conv.record_response(shapes.anthropic_thinking_tool_use(f"toolu_{n}", f"[{n}] " + THOUGHT))
    conv.add_tool_result(f"toolu_{n}", "18C and sunny")
    calls.append(conv.prepare())
    conv.record_response(shapes.anthropic_thinking_answer(f"It is 18C ({n}).", f"[{n}] done " + THOUGHT))
    return calls


def thinking_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        b
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] in ("thinking", "redacted_thinking")
    ]


def test_anthropic_thinking_of_the_tool_use_turn_goes_back_byte_exact() -> None:
    conv = Conversation(system="You report weather.", tools=[TOOL], provider="anthropic")
    _, loop = anthropic_turn(conv, 1)
    sent = thinking_blocks(loop.anthropic(max_tokens=64))
    original = shapes.anthropic_thinking_tool_use("toolu_1", "[1] " + THOUGHT)["content"][0]
    assert sent == [original]  # text and signature unchanged, no cache_control on it
    assert message_tokens(loop) == recount(conv, loop)


def _long_anthropic_conversation() -> tuple[Conversation, list[list[Any]]]:
    # older turns may hold 2,500 estimated tokens: the fourth turn's first call cuts
    conv = Conversation(
        system="You report weather.", tools=[TOOL], provider="anthropic", limits=Limits(history_ceiling=2_500)
    )
    turns = [anthropic_turn(conv, n) for n in range(1, 6)]
    return conv, turns


def test_earlier_turns_keep_their_thinking_until_the_prefix_is_rewritten_anyway() -> None:
    conv, turns = _long_anthropic_conversation()
    assert conv.cuts, "the history ceiling must have cut"
    cut_call = conv.cuts[0].call_index
    flat = [c for turn in turns for c in turn]
    for before, call in itertools.pairwise(flat):
        body = call.anthropic(max_tokens=64)
        if call.call_index < cut_call:
            # no rewrite yet: every earlier turn's thinking still goes, so this call's prefix is
            # the previous call's, byte for byte, up to where that one ended
            assert len(thinking_blocks(body)) == sum(len(m.reasoning) for m in call.messages) > 0
            prev = before.anthropic(max_tokens=64)["messages"]
            shared = body["messages"][: len(prev) - 1]
            strip = lambda ms: [  # noqa: E731
                {**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]}
                if isinstance(m["content"], list)
                else m
                for m in ms
            ]
            assert strip(shared) == strip(prev[: len(shared)])
        assert message_tokens(call) == recount(conv, call)  # counted as sent, before and after


def _turn_of(block: dict[str, Any]) -> int:
    return int(block["thinking"][1 : block["thinking"].index("]")])


def test_a_rewrite_leaves_out_every_earlier_turns_thinking_and_keeps_the_current_loops() -> None:
    conv, turns = _long_anthropic_conversation()
    flat = [c for turn in turns for c in turn]
    turn_of_call = {c.call_index: c.turn for c in flat}
    cut_turns = {c.call_index: turn_of_call[c.call_index] for c in conv.cuts}
    after = [c for c in flat if c.call_index >= min(cut_turns)]
    assert after
    for call in after:
        # the floor: the turn of the last rewrite at or before this call
        floor = max(t for i, t in cut_turns.items() if i <= call.call_index)
        sent = thinking_blocks(call.anthropic(max_tokens=64))
        assert all(_turn_of(b) >= floor for b in sent), ([_turn_of(b) for b in sent], floor)
        # every block from the floor on is still sent, byte-exact (the current tool-use loop's too)
        kept = [p for m in call.messages for p in m.reasoning if int(p.text[1 : p.text.index("]")]) >= floor]
        assert [(b["thinking"], b["signature"]) for b in sent] == [(p.text, p.signature) for p in kept]
        if call.previous_end and call.turn == floor:  # the loop's second call at the rewrite
            assert _turn_of(sent[-1]) == call.turn and sent[-1]["signature"] == shapes.SIGNATURE + f"toolu_{call.turn}"
        assert message_tokens(call) == recount(conv, call)
    # the transcript itself was never rewritten: every thinking block is still there
    assert sum(len(e.message.reasoning) for e in conv.transcript) == 2 * 5


def test_dropping_earlier_thinking_saves_what_it_weighs() -> None:
    conv, turns = _long_anthropic_conversation()
    cut_call = conv.cuts[0].call_index
    call = next(c for turn in turns for c in turn if c.call_index == cut_call)
    with_all = sum(
        MESSAGE_FRAMING_TOKENS + sum(conv.estimator.count(sent_texts(m)))
        for m in call.messages
        if m.role == "assistant"
    )
    as_sent = sum(
        MESSAGE_FRAMING_TOKENS + sum(conv.estimator.count(sent_texts(m)))
        for m in call.sent_messages
        if m.role == "assistant"
    )
    assert as_sent < with_all  # what the older turns' thinking weighed is not counted


def deepseek_turn(conv: Conversation, n: int, *, tools: bool) -> Any:
    conv.add_user(f"question {n}")
    conv.prepare()
    if tools:
        conv.record_response(shapes.deepseek_message(None, f"think {n} before the call", call_id=f"call_{n}"))
        conv.add_tool_result(f"call_{n}", "18C")
        conv.prepare()
    conv.record_response(shapes.deepseek_message(f"answer {n}", f"think {n} before the answer"))
    return conv


def assistant_reasoning(body: dict[str, Any]) -> list[str | None]:
    return [m.get("reasoning_content") for m in body["messages"] if m["role"] == "assistant"]


def test_deepseek_reasoning_of_a_turn_without_tool_calls_is_never_sent_back() -> None:
    conv = Conversation(system="s", tools=[TOOL], provider="deepseek")
    deepseek_turn(conv, 1, tools=False)
    deepseek_turn(conv, 2, tools=False)
    conv.add_user("question 3")
    call = conv.prepare()
    assert assistant_reasoning(call.openai()) == [None, None]
    # nor counted: the same conversation with replies that carried no reasoning costs the same
    plain = Conversation(system="s", tools=[TOOL], provider="deepseek")
    for n in (1, 2):
        plain.add_user(f"question {n}")
        plain.prepare()
        plain.record_response({"role": "assistant", "content": f"answer {n}"})
    plain.add_user("question 3")
    assert plain.prepare().estimated_input_tokens == call.estimated_input_tokens


def test_deepseek_reasoning_of_a_tool_turn_goes_back_in_every_later_request() -> None:
    conv = Conversation(system="s", tools=[TOOL], provider="deepseek")
    conv.add_user("question 1")
    conv.prepare()
    conv.record_response(shapes.deepseek_message(None, "think 1 before the call", call_id="call_1"))
    conv.add_tool_result("call_1", "18C")
    loop = conv.prepare()
    assert assistant_reasoning(loop.openai()) == ["think 1 before the call"]
    conv.record_response(shapes.deepseek_message("answer 1", "think 1 before the answer"))
    deepseek_turn(conv, 2, tools=False)
    conv.add_user("question 3")
    later = conv.prepare()
    # turn 1 made a tool call: both of its assistant messages keep theirs; turn 2 did not
    assert assistant_reasoning(later.openai()) == ["think 1 before the call", "think 1 before the answer", None]
    assert message_tokens(later) == recount(conv, later)


def test_without_a_deepseek_profile_chat_sends_no_reasoning_content() -> None:
    conv = Conversation(system="s", tools=[TOOL])
    deepseek_turn(conv, 1, tools=True)
    conv.add_user("q")
    assert assistant_reasoning(conv.prepare().openai()) == [None, None]


def test_responses_reasoning_items_go_back_with_their_function_calls() -> None:
    conv = Conversation(system="s", tools=[TOOL], provider="openai")
    conv.add_user("weather?")
    conv.prepare()
    response = shapes.responses_reasoning_call("call_1", "rs_1")
    conv.record_response(response)
    conv.add_tool_result("call_1", "18C")
    items = conv.prepare().responses()["input"]
    kinds = [i.get("type", "message") for i in items]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output"]
    reasoning, call = items[1], items[2]
    assert reasoning["encrypted_content"] == response["output"][0]["encrypted_content"]  # byte-exact
    assert reasoning["id"] == "rs_1" and reasoning["summary"] == response["output"][0]["summary"]
    assert call["call_id"] == "call_1"


def test_responses_reasoning_of_earlier_turns_goes_after_a_rewrite_and_calls_stay_paired() -> None:
    conv = Conversation(system="s", tools=[TOOL], provider="openai", limits=Limits(history_ceiling=300))
    for n in range(1, 7):
        conv.add_user(f"weather {n}?")
        conv.prepare()
        conv.record_response(shapes.responses_reasoning_call(f"call_{n}", f"rs_{n}"))
        conv.add_tool_result(f"call_{n}", "18C")
        last = conv.prepare()
        conv.record_response({"role": "assistant", "content": f"18C ({n})"})
    assert conv.cuts
    items = last.responses()["input"]
    reasoning = [i["id"] for i in items if i.get("type") == "reasoning"]
    assert reasoning == ["rs_6"]  # only the current turn's
    for k, item in enumerate(items):
        if item.get("type") == "reasoning":  # a reasoning item is followed by the call it led to
            assert items[k + 1]["type"] == "function_call"
    assert sum(1 for i in items if i.get("type") == "function_call") >= 2  # older calls stay, without reasoning
    assert message_tokens(last) == recount(conv, last)
