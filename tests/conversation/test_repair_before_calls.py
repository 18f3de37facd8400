"""The conversation never sends an orphan: before each call it repairs what the loop left
broken (a call without its result, a result without its call, a repeated id), keeps the
repaired transcript, and says what it did."""

from __future__ import annotations

from ctxsieve.conversation import Conversation

from .helpers import TOOLS, orphans, text_reply, tool_reply


def test_a_call_whose_result_never_came_gets_a_stand_in_before_the_next_call():
    conv = Conversation(system="s", tools=TOOLS)
    conv.add_user("where are A-1 and A-2?")
    conv.prepare()
    conv.record_response(tool_reply(1, 2))
    conv.add_tool_result("call_1_0", "shipped")  # the second tool crashed: no result
    call = conv.prepare()
    body = call.openai()["messages"]
    assert orphans(body) == []
    assert body[-1]["tool_call_id"] == "call_1_1" and "No result was recorded" in body[-1]["content"]
    assert any("missing_result" in n for n in call.report.notes)
    conv.record_response(text_reply(1))
    conv.add_user("thanks")
    later = conv.prepare()  # the repaired transcript is what every later call sends
    assert later.openai()["messages"][: len(body)] == body and later.shared_prefix_tokens == call.prompt_tokens


def test_a_result_without_its_call_is_dropped_and_reported():
    conv = Conversation(system="s", tools=TOOLS)
    conv.add_user("hi")
    conv.prepare()
    conv.record_response(text_reply(1))
    conv.add_tool_result("call_nobody_made", "stray output")
    call = conv.prepare()
    assert "stray output" not in str(call.openai()) and orphans(call.openai()["messages"]) == []
    assert [r.kind for r in conv.repairs] == ["orphan_result"]


def test_a_clean_loop_is_never_repaired():
    conv = Conversation(system="s", tools=TOOLS)
    conv.add_user("where is A-1?")
    conv.prepare()
    conv.record_response(tool_reply(1, 1))
    conv.add_tool_result("call_1_0", "shipped")
    call = conv.prepare()
    assert conv.repairs == [] and not any("repaired" in n for n in call.report.notes)
