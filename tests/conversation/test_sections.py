"""What admission did per call, carried into the conversation: the skill roster, labels,
attribution, section ceilings and the gap notice's text."""

from __future__ import annotations

import pytest

from ctxsieve import ConfigError, ContextEngine, ContextItem, Limits
from ctxsieve.conversation import Conversation
from ctxsieve.sources import CallableSource

from .helpers import TOOLS, run_turn

SKILLS = [{"name": f"skill-{i}", "description": "does one thing well " * 5} for i in range(40)]


def test_the_roster_keeps_whole_entries_within_its_share_of_the_window():
    limits = Limits(input_ceiling=4000, skills_fraction=0.1, output_reserve=100, protocol_overhead=50)
    conv = Conversation(system="Be brief.", skills=SKILLS, limits=limits)
    conv.add_user("hi")
    call = conv.prepare()
    lines = [line for line in call.system.splitlines() if line.startswith("- skill-")]
    assert 0 < len(lines) == conv.skills_included < len(SKILLS)
    assert all(line.rstrip().endswith("well") for line in lines)  # never an entry cut in half
    assert conv.estimator.count(["\n".join(lines)])[0] <= 400
    assert call.report.counts["skills"] == {"roster": 40, "included": len(lines)}


def test_labels_go_in_the_system_prompt_and_attribution_in_the_turns_context():
    kb = CallableSource(lambda q: [ContextItem("p", "Refunds take 30 days.", "kb", score=1.0)], name="kb")
    conv = Conversation(ContextEngine([kb], budget=300), system="s", labels={"channel": "email"})
    conv.add_user("refunds?", attribution="alice@example.com")
    body = conv.prepare().openai()["messages"]
    assert "[conversation channel: email]" in body[0]["content"]
    context = body[1]["content"]
    assert context.startswith("Context for the current message follows: reference material")
    assert "[current message from: alice@example.com]" in context and '<context id="p"' in context


def test_the_memory_ceiling_caps_what_the_engine_adds_per_turn():
    pages = [ContextItem(f"p{i}", f"page {i} " + "text " * 60, "kb", score=float(i)) for i in range(10)]
    engine = ContextEngine([CallableSource(lambda q: pages, name="kb")], budget=2000)
    conv = Conversation(engine, system="s", limits=Limits(memory_ceiling=300))
    conv.add_user("everything")
    call = conv.prepare()
    assert 0 < call.report.sections["memory"] <= 300 + 4  # the ceiling, plus the message's framing


def test_the_history_ceiling_cuts_older_turns_to_it():
    conv = Conversation(system="s", tools=TOOLS, limits=Limits(history_ceiling=800))
    calls = [c for turn in range(1, 12) for c in run_turn(conv, turn)]
    assert conv.cuts and all(c.report.sections["history"] <= 800 for c in calls)


def test_the_gap_notice_text_is_the_callers_and_can_be_left_out():
    limits = Limits(input_ceiling=1500, output_reserve=100, protocol_overhead=50)
    custom = Conversation(system="s", tools=TOOLS, limits=limits, gap_notice="[{turns} turns omitted]")
    silent = Conversation(system="s", tools=TOOLS, limits=limits, gap_notice="")
    for turn in range(1, 12):
        a, b = run_turn(custom, turn)[-1], run_turn(silent, turn)[-1]
    assert custom.cuts and a.messages[0].text.endswith("turns omitted]")
    assert silent.cuts and b.messages[0].role == "user" and "omitted" not in b.messages[0].text
    with pytest.raises(ConfigError, match="gap_notice"):
        Conversation(gap_notice="{nope}")


def test_a_turn_that_fits_only_without_the_gap_notice_is_sent_without_it():
    # every older turn is cut and the notice alone would push the call over: the required part
    # (5 + 10 + the turn) fits, so the call goes out without the notice instead of being refused
    limits = Limits(input_ceiling=1200, output_reserve=100, protocol_overhead=10)
    conv = Conversation(system="s", limits=limits)
    conv.add_user("a " * 600)
    conv.prepare()
    conv.record_response({"role": "assistant", "content": "ok"})
    conv.add_user("b " * 1740)
    call = conv.prepare()
    assert conv.cuts and [m.role for m in call.messages] == ["user"]
    assert call.messages[0].text.startswith("b b")
    assert call.report.sections["history"] == 0 and call.estimated_input_tokens <= 1200
    assert any("gap notice" in n for n in call.report.notes)
