"""The summariser's request is the conversation's last request plus one instruction, so the
provider reads it from its cache: the same system prompt, tools and messages, byte for byte."""

from __future__ import annotations

from typing import Any

from ctxsieve import Conversation, Limits
from ctxsieve.conversation.compaction import SummaryRequest
from ctxsieve.conversation.compaction_gain import CompactionPolicy
from tests.conversation.helpers import TOOLS, orphans, text_reply, tool_reply
from tests.conversation.test_provider_reasoning import recount


class Recorder:
    timeout = 5.0

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    async def summarize(self, req: SummaryRequest) -> str:
        self.requests.append(req)
        return f"summary {len(self.requests)}"


def _loop(conv: Conversation, turns: int) -> list[Any]:
    """Scripted turns; returns (last call before each compaction, the summariser request)."""
    summ = conv.compactor
    pairs = []
    last = None
    for turn in range(1, turns + 1):
        conv.add_user(f"Where is order A-{turn}? Please check it.")
        for step in range(2):
            seen = len(summ.requests)
            call = conv.prepare()
            if len(summ.requests) > seen:
                pairs.append((last, summ.requests[-1]))
            last = call
            if step == 0:
                conv.record_response(tool_reply(turn, 2))
                for k in range(2):
                    conv.add_tool_result(f"call_{turn}_{k}", f"order A-{turn}-{k}: " + "shipped " * 40)
            else:
                conv.record_response(text_reply(turn))
    return pairs


def _conv(*, early: bool = False) -> Conversation:
    limits = Limits(input_ceiling=8_000 if early else 2_500, output_reserve=100, protocol_overhead=50)
    policy = CompactionPolicy(compact_at=0.3, remaining_calls=500) if early else None
    return Conversation(
        system="You track orders. " * 20, tools=TOOLS, limits=limits, compactor=Recorder(), compaction=policy
    )


def _same_prefix(last: Any, req: SummaryRequest, k: int) -> None:
    """The summariser's request: the last call's first ``k`` messages, then the instruction."""
    call = req.call
    assert call is not None
    assert call.previous_end == k == len(call.messages) - 1 and call.messages[:k] == last.messages[:k]
    assert call.system == last.system and call.tools == last.tools
    # OpenAI Chat: the last request's system message, messages and tools open this one, byte for byte
    body, before = call.openai(), last.openai()
    assert body["messages"][:-1] == before["messages"][: len(body["messages"]) - 1]
    assert body["tools"] == before["tools"] and "tool_choice" not in body
    # Anthropic: same system and tools, and a breakpoint on the last message the last call sent
    a, b = call.anthropic(max_tokens=512), last.anthropic(max_tokens=512)
    assert a["system"] == b["system"] and a["tools"] == b["tools"]
    assert k - 1 in call.breakpoints()
    # the request ends with the instruction, and the provider would accept it
    assert call.messages[-1].role == "user" and call.messages[-1].text == req.instruction
    assert req.instruction.startswith("[Compaction]") and "Do not call a tool" in req.instruction
    assert orphans(body["messages"]) == []
    assert call.estimated_input_tokens <= call.limit.tokens


def _unmarked(x: Any) -> Any:
    """A body without its cache_control marks (they say where to cache, not what is sent)."""
    if isinstance(x, dict):
        return {k: _unmarked(v) for k, v in x.items() if k != "cache_control"}
    if isinstance(x, list):
        return [_unmarked(v) for v in x]
    return x


def _blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for m in body["messages"] for b in (m["content"] if isinstance(m["content"], list) else [m["content"]])]


def test_an_early_compaction_sends_the_whole_last_request_then_the_instruction():
    pairs = _loop(_conv(early=True), 10)
    assert pairs
    for last, req in pairs:
        _same_prefix(last, req, len(last.messages))
        # all of the last request is read from the cache
        assert req.call is not None and req.call.shared_prefix_tokens == last.prompt_tokens
        # the Anthropic bodies, block by block: the last request's blocks open this one, and the
        # block the last request marked (its end, where it wrote the cache) is marked here too
        a, b = req.call.anthropic(max_tokens=512), last.anthropic(max_tokens=512)
        mine, theirs = _blocks(a), _blocks(b)
        assert _unmarked(mine[: len(theirs)]) == _unmarked(theirs) and len(mine) > len(theirs)
        assert "cache_control" in theirs[-1] and "cache_control" in mine[len(theirs) - 1]


def test_a_forced_compaction_sends_a_prefix_of_the_last_request_when_all_of_it_does_not_fit():
    conv = _conv()
    pairs = _loop(conv, 16)
    assert len(pairs) >= 2
    for last, req in pairs:
        assert req.call is not None
        k = req.call.previous_end
        assert 0 < k <= len(last.messages)
        _same_prefix(last, req, k)


def test_the_instruction_names_where_the_kept_part_begins():
    conv = _conv(early=True)
    pairs = _loop(conv, 10)
    _, req = pairs[0]
    # the request goes on past what the summary replaces: the instruction quotes the first
    # kept message, so the model knows which messages its summary stands for
    kept = next(c for c in conv.cuts if c.summarized).end
    quoted = conv.transcript[kept + 1].message.text  # the summary entry sits at `kept`
    assert f"before the user message that begins \u00ab{quoted}\u00bb" in req.instruction
    # when the request stops where the kept part begins, it says so
    forced = _loop(_conv(), 16)[0][1]
    assert forced.call is not None and "every message above." in forced.instruction


def test_a_summariser_using_the_fresh_prompt_still_works():
    class Legacy:
        timeout = 5.0

        async def summarize(self, req):
            assert "Messages:\nuser: Where is order A-" in req.prompt()
            return "old-style summary"

    limits = Limits(input_ceiling=2_500, output_reserve=100, protocol_overhead=50)
    conv = Conversation(system="s", tools=TOOLS, limits=limits, compactor=Legacy())
    for turn in range(1, 30):
        conv.add_user(f"Where is order A-{turn}? Please check it.")
        conv.prepare()
        conv.record_response(text_reply(turn) | {"content": "ok " * 200})
    assert any(c.summarized for c in conv.cuts)
    assert "old-style summary" in conv.prepare().messages[0].text


def _counted_as_sent(conv: Conversation, call: Any) -> bool:
    return call.breakdown["messages"] == recount(conv, call)


def _provider_loop(provider: str, **kwargs: Any) -> list[Any]:
    """The early-compaction loop under a provider profile; DeepSeek answers with reasoning."""
    limits = Limits(input_ceiling=8_000, output_reserve=100, protocol_overhead=50)
    conv = Conversation(
        system="You track orders. " * 20,
        tools=TOOLS,
        limits=limits,
        compactor=Recorder(),
        compaction=CompactionPolicy(compact_at=0.3, remaining_calls=500),
        provider=provider,
        **kwargs,
    )
    summ, pairs, last = conv.compactor, [], None
    for turn in range(1, 11):
        conv.add_user(f"Where is order A-{turn}? Please check it.")
        for step in range(2):
            seen = len(summ.requests)
            call = conv.prepare()
            if len(summ.requests) > seen:
                pairs.append((last, summ.requests[-1]))
                assert summ.requests[-1].call is not None and _counted_as_sent(conv, summ.requests[-1].call)
            last = call
            reply = tool_reply(turn, 2) if step == 0 else text_reply(turn)
            conv.record_response({**reply, "reasoning_content": f"thinking about A-{turn}, step {step}"})
            if step == 0:
                for k in range(2):
                    conv.add_tool_result(f"call_{turn}_{k}", f"order A-{turn}-{k}: " + "shipped " * 40)
    assert pairs
    return pairs


def test_the_summarisers_request_renders_by_the_conversations_provider_rules():
    # the request must be the last one byte for byte: the same cache key (OpenAI routes by it),
    # the same retention on every mark (Anthropic 1h), the reasoning the provider's rule sends
    # (DeepSeek answers 400 when a tool turn's reasoning_content is missing)
    for last, req in _provider_loop("openai", cache_ttl="24h"):
        assert req.call is not None
        for shape in ("openai", "responses"):
            body, before = getattr(req.call, shape)(), getattr(last, shape)()
            assert body["prompt_cache_key"] == before["prompt_cache_key"]
            assert body["prompt_cache_retention"] == before["prompt_cache_retention"] == "24h"
    for last, req in _provider_loop("anthropic", cache_ttl="1h"):
        assert req.call is not None
        a, b = req.call.anthropic(max_tokens=512), last.anthropic(max_tokens=512)
        assert a["system"] == b["system"]
        marks = [x["cache_control"] for x in _blocks(a) if isinstance(x, dict) and "cache_control" in x]
        assert marks and all(m == {"type": "ephemeral", "ttl": "1h"} for m in marks)
    for last, req in _provider_loop("deepseek"):
        assert req.call is not None
        body, before = req.call.openai()["messages"], last.openai()["messages"]
        k = req.call.previous_end
        assert body[: k + 1] == before[: k + 1]  # the system message and the messages sent before
        assert any("reasoning_content" in m for m in body)
