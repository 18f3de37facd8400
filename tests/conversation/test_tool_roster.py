"""The tool roster: a cap on the tool schemas as a share of the window (whole schemas, in order),
deferred tools loaded through ``tool_search``, and where a loaded tool goes (the end of the
tools array, or Anthropic's own deferred loading with ``tool_reference`` results)."""

from __future__ import annotations

import json

import pytest

from ctxsieve import ConfigError, Limits
from ctxsieve.admission.accounting import schema_json
from ctxsieve.conversation import Conversation
from ctxsieve.conversation.tool_roster import TOOL_SEARCH, TOOL_SEARCH_DOC, TOOL_SEARCH_SCHEMA
from ctxsieve.tokenizers import get_estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

WINDOW = 40_000
COUNT = get_estimator("bytes/3")


def tool(name: str, words: int, purpose: str = "orders") -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"Work on {purpose}: " + "it reads and updates the records. " * words,
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "string", "description": f"the {purpose} id"}},
            },
        },
    }


# a big schema in the middle, then small ones: "whole entries, in order" defers the big one and
# every one after it, though a small later one alone would still fit
TOOLS = [tool(f"t{i}", 10) for i in range(6)] + [tool("big", 150)] + [tool(f"s{i}", 1) for i in range(5)]
TOOLS += [tool("weather_forecast", 2, "the weather"), tool("refund_order", 2, "refunds")]


def cost(t) -> int:
    return MESSAGE_FRAMING_TOKENS + COUNT([schema_json(t)])[0]


def conversation(fraction, **kw) -> Conversation:
    limits = Limits(input_ceiling=100_000, output_reserve=1_000, tools_fraction=fraction)
    return Conversation(system="You help.", tools=TOOLS, limits=limits, model="m", window_lookup=lambda m: WINDOW, **kw)


def first_call(conv: Conversation):
    conv.add_user("Where is order A-1?")
    return conv.prepare()


def names(body_tools) -> list[str]:
    return [t["function"]["name"] if "function" in t else t["name"] for t in body_tools]


def test_the_roster_keeps_the_longest_prefix_of_whole_schemas_that_fits():
    fraction = 0.05
    cap = int(WINDOW * fraction)
    call = first_call(conversation(fraction))
    sent = names(call.openai()["tools"])
    assert sent[-1] == TOOL_SEARCH and sent[:-1] == [f"t{i}" for i in range(6)]
    spent = sum(cost(t) for t in TOOLS[:6]) + cost(TOOL_SEARCH_SCHEMA)
    assert spent <= cap < spent + cost(TOOLS[6])  # the next schema, whole, would not fit
    assert spent + cost(TOOLS[7]) <= cap  # a small later one would: it waits all the same
    assert call.report.sections["tools"] == spent  # the estimate counts what is sent
    assert call.report.counts["tools"] == {"schemas": 7, "included": 7, "deferred": 8, "loaded": 0}
    deferred = ["big", *(f"s{i}" for i in range(5)), "weather_forecast", "refund_order"]
    assert call.system.endswith(
        "Deferred tools (call tool_search to load one before you use it): " + ", ".join(deferred) + "."
    )


def test_the_tool_search_schema_is_paid_from_the_cap():
    # the six first schemas fit the cap alone, but not with tool_search beside them: the sixth waits
    six = sum(cost(t) for t in TOOLS[:6])
    fraction = (six + cost(TOOL_SEARCH_SCHEMA) // 2) / WINDOW
    call = first_call(conversation(fraction))
    assert names(call.openai()["tools"]) == [f"t{i}" for i in range(5)] + [TOOL_SEARCH]
    assert call.report.sections["tools"] <= int(WINDOW * fraction)


def test_without_a_fraction_or_when_all_fit_nothing_changes():
    plain = Conversation(system="You help.", tools=TOOLS, model="m", window_lookup=lambda m: WINDOW)
    for conv in (conversation(None), conversation(1.0)):
        a, b = first_call(conv), first_call(plain)
        assert a.openai() == b.openai() and a.estimated_input_tokens == b.estimated_input_tokens
        assert TOOL_SEARCH not in names(a.openai()["tools"]) and "Deferred tools" not in a.system
        plain = Conversation(system="You help.", tools=TOOLS, model="m", window_lookup=lambda m: WINDOW)


def test_marked_tools_wait_even_when_they_fit():
    call = first_call(conversation(None, deferred_tools=["refund_order", "t2"]))
    sent = names(call.openai()["tools"])
    assert "refund_order" not in sent and "t2" not in sent and sent[-1] == TOOL_SEARCH
    assert len(sent) == len(TOOLS) - 2 + 1
    assert call.system.endswith("tool_search to load one before you use it): t2, refund_order.")


def _answer_search(conv: Conversation, query: str) -> dict:
    conv.record_response(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "ts1",
                    "type": "function",
                    "function": {"name": TOOL_SEARCH, "arguments": json.dumps({"query": query})},
                }
            ],
        }
    )
    text = conv.tool_search(query)
    conv.add_tool_result("ts1", text, name=TOOL_SEARCH)
    return json.loads(text)


def test_tool_search_loads_the_matching_schemas_at_the_end_of_the_tools():
    conv = conversation(0.05)
    before = first_call(conv)
    got = _answer_search(conv, "weather forecast")
    assert [t["name"] for t in got["loaded"]] == ["weather_forecast"]
    assert got["loaded"][0]["parameters"] == TOOLS[-2]["function"]["parameters"]
    after = conv.prepare()
    sent = names(after.openai()["tools"])
    assert sent == [*names(before.openai()["tools"]), "weather_forecast"]  # appended: the rest unchanged
    assert after.report.sections["tools"] == before.report.sections["tools"] + cost(TOOLS[-2])
    assert after.system == before.system  # the system prompt never changes
    assert "refund_order" not in sent and after.report.counts["tools"]["loaded"] == 1
    # the tools changed, so this call does not reuse the previous one's prefix past the system prompt
    assert after.previous_end == 0 and after.shared_prefix_tokens < before.prompt_tokens
    conv.record_response({"role": "assistant", "content": "Sunny."})
    conv.add_user("And tomorrow?")
    again = conv.prepare()
    assert again.previous_end > 0 and names(again.openai()["tools"]) == sent  # stable from here on
    # asked again, nothing new is loaded
    assert json.loads(conv.tool_search("weather_forecast")) == {"loaded": [], "already_loaded": ["weather_forecast"]}


def test_the_anthropic_profile_uses_defer_loading_and_tool_references():
    conv = conversation(0.05, provider="anthropic")
    before = first_call(conv)
    _answer_search(conv, "refunds")
    after = conv.prepare()
    a, b = before.anthropic(max_tokens=64), after.anthropic(max_tokens=64)
    assert a["tools"] == b["tools"]  # the cached prefix's first part is untouched by the load
    deferred = [t["name"] for t in b["tools"] if t.get("defer_loading")]
    assert deferred == ["big", *(f"s{i}" for i in range(5)), "weather_forecast", "refund_order"]
    assert [t["name"] for t in b["tools"] if not t.get("defer_loading")][-1] == TOOL_SEARCH
    results = [
        blk for m in b["messages"] if m["role"] == "user" for blk in m["content"] if blk["type"] == "tool_result"
    ]
    assert results and results[-1]["content"] == [{"type": "tool_reference", "tool_name": "refund_order"}]
    assert after.previous_end > 0  # the prefix the previous call sent is still this one's
    # the other renderings still send the loaded schema, so a fallback can call it
    assert names(after.openai()["tools"])[-1] == "refund_order"
    # the written forms are shared between renderings and calls: the rewrite never edits them
    assert after.anthropic(max_tokens=64) == b
    (result,) = [m for m in after.openai()["messages"] if m["role"] == "tool"]
    assert json.loads(result["content"])["loaded"][0]["name"] == "refund_order"


def test_bad_input_is_refused_where_it_is_given():
    with pytest.raises(ConfigError, match=r"deferred_tools\[0\]: 'nope'"):
        conversation(None, deferred_tools=["nope"])
    with pytest.raises(ConfigError, match="tools_fraction"):
        Limits(tools_fraction=1.5)
    with pytest.raises(ConfigError, match="clashes"):
        Conversation(tools=[tool(TOOL_SEARCH, 1)], limits=Limits(tools_fraction=0.1))
    conv = conversation(0.05)
    first_call(conv)
    assert conv.tool_search("  ").startswith("error: query")
    assert conv.tool_search("weather", limit=0).startswith("error: limit")
    assert conv.tool_search("weather", limit=True).startswith("error: limit")
    none = json.loads(conv.tool_search("zebra"))
    assert none["loaded"] == [] and "big" in none["note"]
    assert first_call(conversation(None)).tools == tuple(TOOLS)
    nothing = conversation(None)
    first_call(nothing)
    assert nothing.tool_search("weather").startswith("error: no tool is deferred")


def test_the_schema_and_the_method_say_the_same():
    pytest.importorskip("griffe")
    from ctxsieve.integrations._common import describe

    def tool_search(query: str, limit: int = 5) -> str:
        return ""

    tool_search.__doc__ = TOOL_SEARCH_DOC
    spec = describe(tool_search)
    fn = TOOL_SEARCH_SCHEMA["function"]
    assert spec.description == fn["description"]
    assert dict(spec.arguments) == {k: v["description"] for k, v in fn["parameters"]["properties"].items()}
    assert Conversation.tool_search.__doc__ == TOOL_SEARCH_DOC


def test_a_tool_search_answer_is_never_offloaded(tmp_path):
    from ctxsieve.loop import Offloader
    from ctxsieve.stores import open_store

    off = Offloader(open_store(f"sqlite:///{tmp_path}/off.db"), max_tokens=200, preview_tokens=40)
    conv = conversation(0.05, offloader=off)
    first_call(conv)
    conv.record_response(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "ts1",
                    "type": "function",
                    "function": {"name": TOOL_SEARCH, "arguments": '{"query": "big s0"}'},
                },
                {"id": "c1", "type": "function", "function": {"name": "t0", "arguments": '{"id": "A-1"}'}},
            ],
        }
    )
    answer = conv.tool_search("big s0")
    assert off.over_limit(answer)  # over the offloader's limit, and kept whole all the same
    conv.add_tool_result("ts1", answer, name=TOOL_SEARCH)
    conv.add_tool_result("c1", "record A-1: " + "line of the record. " * 40)
    tool_messages = [m for m in conv.prepare().openai()["messages"] if m["role"] == "tool"]
    assert tool_messages[0]["content"] == answer
    assert "ctx_read" in tool_messages[1]["content"]  # an ordinary result is still offloaded
