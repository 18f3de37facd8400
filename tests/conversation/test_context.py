"""The engine inside the conversation: stable items frozen into the system prompt, each turn's
context before its user message, nothing shown twice, audience and offloading on write."""

from __future__ import annotations

import re

from ctxsieve import ContextEngine, ContextItem, Limits, StaticSource
from ctxsieve.conversation import Conversation
from ctxsieve.sources import CallableSource

from .helpers import TOOLS, orphans, run_turn

PAGES = {
    "refund": "Refunds are accepted within 30 days of delivery when the item is unused.",
    "shipping": "Orders ship within two business days from the warehouse in Leeds.",
    "returns": "Returns need the order number and a photo of the label on the box.",
    "secret": "Internal: the refund override code is 4471.",
}


def kb(query: str) -> list[ContextItem]:
    words = set(re.findall(r"\w+", query.lower()))
    out = []
    for k, text in PAGES.items():
        score = len(words & set(re.findall(r"\w+", text.lower())))
        audience = "staff" if k == "secret" else None
        out.append(ContextItem(k, text, "kb", score=float(score), audience=audience))
    return out


def engine(budget: int = 400) -> ContextEngine:
    return ContextEngine(
        [StaticSource("Always cite the page you used.", pinned=True, name="rules"), CallableSource(kb, name="kb")],
        budget=budget,
    )


def test_stable_items_open_the_system_prompt_and_context_precedes_the_question():
    conv = Conversation(engine(), system="You answer from the knowledge base.")
    conv.add_user("How long do refunds take?")
    call = conv.prepare()
    body = call.openai()["messages"]
    assert body[0]["role"] == "system"
    assert body[0]["content"].startswith("You answer from the knowledge base.")
    assert "Always cite the page you used." in body[0]["content"]
    assert [m["role"] for m in body] == ["system", "user", "user"]
    assert '<context id="refund"' in body[1]["content"] and body[2]["content"] == "How long do refunds take?"
    assert call.report.sections["memory"] > 0


def test_what_an_earlier_turn_showed_is_not_sent_again():
    conv = Conversation(engine(), system="s")
    conv.add_user("How long do refunds take?")
    conv.prepare()
    conv.record_response({"role": "assistant", "content": "30 days."})
    conv.add_user("And refunds for unused items?")
    call = conv.prepare()
    text = "\n".join(str(m["content"]) for m in call.openai()["messages"])
    assert text.count('<context id="refund"') == 1
    assert conv.context is not None and any(item.id == "refund" for item, _ in conv.context.matched)


def test_the_reader_decides_what_the_engine_may_add():
    staff = Conversation(engine(), reader="staff")
    staff.add_user("refund override code")
    anyone = Conversation(engine())
    anyone.add_user("refund override code")
    assert "4471" in str(staff.prepare().openai())
    assert "4471" not in str(anyone.prepare().openai())


def test_the_pinned_and_system_items_are_in_every_call_across_cuts():
    limits = Limits(input_ceiling=2200, output_reserve=100, protocol_overhead=50)
    conv = Conversation(engine(300), system="s", tools=TOOLS, limits=limits)
    calls = [c for turn in range(1, 20) for c in run_turn(conv, turn, calls=2, result_chars=300)]
    assert conv.cuts
    for c in calls:
        assert "Always cite the page you used." in c.system
        assert c.estimated_input_tokens <= c.limit.tokens
        assert orphans(c.openai()["messages"]) == []


def test_large_tool_results_are_offloaded_as_they_are_written(tmp_path):
    from ctxsieve.loop.offloader import Offloader
    from ctxsieve.stores import open_store

    off = Offloader(open_store(str(tmp_path / "o.db")), max_tokens=200, preview_tokens=50)
    conv = Conversation(system="s", tools=TOOLS, offloader=off)
    conv.add_user("list it")
    conv.prepare()
    conv.record_response(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}],
        }
    )
    conv.add_tool_result("c1", "\n".join(f"row {i}" for i in range(5000)))
    sent = conv.prepare().openai()["messages"][-1]["content"]
    handle = re.search(r"ctx_[0-9a-f]{32}", sent)
    assert handle is not None and len(sent) < 2000
    ctx_read, *_ = off.tools()
    assert "row 4999" in ctx_read(handle.group(0), 4990, 20)
