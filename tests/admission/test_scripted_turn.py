"""One scripted multi-call turn that exercises every admission rule, checked report by report.

Script: call 0 on the primary model (history cut, memory ceiling, audience filter, snapshot),
its fallback to a model with a smaller window (re-admission shrinks optional context), call 1
on a model whose window lookup times out (ceiling kept, nothing reintroduced) after a snapshot
write fails once, call 2 on a model whose lookup raises, and the final call without tools;
then a second turn for session totals.
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

import pytest

from ctxsieve.admission import (
    WINDOW_DROP,
    ContextBudgetError,
    Limits,
    RunLimitError,
    RunLimits,
    Session,
    SnapshotError,
    SystemPrompt,
)

SYSTEM = SystemPrompt(instructions="Answer from the evidence.", persona="You are Ada.", tool_policy="Search first.")
WINDOWS = {"primary": 128_000, "small": 24_000}


def lookup(model: str) -> int | None:
    if model == "slow":
        time.sleep(1.0)
        return 1_000_000
    if model == "broken":
        raise RuntimeError("metadata service down")
    return WINDOWS.get(model)


def memories() -> list[dict[str, Any]]:
    mems: list[dict[str, Any]] = [
        {"id": f"m{i:02d}", "content": f"fact {i}: " + "f" * 290, "score": i / 30, "source": "kb"} for i in range(30)
    ]
    mems.append({"id": "bob-secret", "content": "Bob's salary is private.", "score": 5.0, "audience": "bob"})
    mems.append({"id": "alice-note", "content": "Alice prefers charts.", "score": 0.99, "audience": ["alice"]})
    # pinned: required content, first in the memory section, never reduced
    mems.append({"id": "identity", "content": "The user is a premium customer.", "score": 0.0, "pinned": True})
    return mems


def current_message() -> dict[str, Any]:
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": "Compare these two charts."},
            {"type": "image_url", "image_url": {"url": "https://example.test/a.png"}},
            {"type": "image_url", "image_url": {"url": "https://example.test/b.png"}},
        ],
    }


def memory_ids(context: str | None) -> list[str]:
    return re.findall(r"^\[memory ([^\s\]]+)", context or "", flags=re.M)


def history_turns(context: str | None) -> list[int]:
    return [int(t) for t in re.findall(r"^\[turn (\d+) ·", context or "", flags=re.M)]


def test_scripted_turn(flaky_store: Any, est: Any, make_history: Any, make_tools: Any, caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="ctxsieve.admission")
    events: list[tuple[str, dict[str, Any]]] = []
    limits = Limits(
        input_ceiling=60_000, output_reserve=4_000, memory_ceiling=2_000, history_ceiling=30_000, lookup_deadline=0.2
    )
    session = Session(
        limits, window_lookup=lookup, snapshot_store=flaky_store, on_event=lambda n, a: events.append((n, a))
    )
    history = make_history(40)
    tools = make_tools(3)
    turn = session.turn(
        current_message(),
        system=SYSTEM,
        history=history,
        memories=memories(),
        tools=tools,
        audience="alice",
        model="primary",
        turn_id="turn-1",
        skills=[{"name": f"skill_{i}", "description": "s" * 300} for i in range(100)],
        labels={"channel": "support"},
        attribution="a customer on the web chat",
        run=RunLimits(max_model_calls=5, max_tool_calls=10),
    )

    # ---- call 0, primary model ----------------------------------------------------------------
    a0 = turn.admit()
    r0 = a0.report
    assert (r0.kind, r0.turn_id, r0.call_index, r0.attempt, r0.model, r0.estimator) == (
        "context_assembly",
        "turn-1",
        0,
        0,
        "primary",
        "bytes/3",
    )
    assert r0.limit == {
        "input_limit": 60_000,
        "origin": "ceiling",
        "ceiling": 60_000,
        "window": 128_000,
        "output_reserve": 4_000,
        "protocol_overhead": 1_024,
        "lookup": "ok",
    }
    system_text = "Answer from the evidence.\n\nYou are Ada.\n\nSearch first."
    assert a0.request.system.startswith(system_text + "\n\nSkills you can load:\n- skill_0: ")
    # the roster: whole entries, at most 5% of the 128,000 window
    n_skills = r0.counts["skills"]["included"]
    assert r0.counts["skills"] == {"roster": 100, "included": n_skills, "omitted": 100 - n_skills}
    assert 0 < n_skills < 100 and 0 < r0.sections["skills"] <= 6_400
    assert a0.request.system.count("- skill_") == n_skills and a0.request.system.endswith("s" * 300 + "\n")
    assert "[conversation channel: support]" in a0.request.context
    assert "[current message from: a customer on the web chat]" in a0.request.context
    tools_cost = sum(4 + est(json.dumps(t, separators=(",", ":"))) for t in tools)
    assert r0.sections["system"] == 4 + est(system_text)
    assert r0.sections["tools"] == tools_cost
    assert r0.sections["images"] == 2 * 8_192
    assert r0.sections["overhead"] == 1_024
    assert r0.sections["messages"] >= 4 + est("Compare these two charts.")
    assert r0.estimated_input_tokens == sum(r0.sections.values()) <= 60_000
    assert r0.headroom == 60_000 - r0.estimated_input_tokens
    # memory: audience first (bob's item never appears), then relevance prefix under the ceiling
    ranked = ["alice-note"] + [f"m{i:02d}" for i in range(29, -1, -1)]
    pinned_cost = est("[memory identity]\nThe user is a premium customer.\n")
    shown = memory_ids(a0.request.context)
    assert shown[0] == "identity"
    got = shown[1:]
    assert "bob-secret" not in a0.request.payload() and "salary" not in a0.request.payload()
    assert got == ranked[: len(got)] and 0 < len(got) < len(ranked)
    assert pinned_cost < r0.sections["memory"] <= 2_000 + pinned_cost  # the ceiling caps the optional part
    assert r0.counts["memory"] == {
        "candidates": 33,
        "ineligible": 1,
        "pinned": 1,
        "included": 1 + len(got),
        "omitted": 31 - len(got),
        "omitted_earlier_call": 0,
        "omitted_section_ceiling": 31 - len(got),
        "omitted_budget": 0,
    }
    # history: a chronological suffix ending with the last turn, cut with a gap notice and an event
    h0 = r0.counts["history"]
    assert h0["records"] == 40 * 3 and h0["ineligible"] == 0
    assert h0["omitted"] > 0 and h0["omitted"] + h0["included"] == 120
    assert h0["omitted_section_ceiling"] == h0["omitted"] and h0["omitted_budget"] == h0["omitted_earlier_call"] == 0
    assert r0.sections["history"] <= 30_000
    turns0 = history_turns(a0.request.context)
    assert turns0 == sorted(turns0) and turns0[-1] == 40
    assert "A39: " in a0.request.context and "Q0: " not in a0.request.context
    gap = re.search(
        r"\[(\d+) earlier turn\(s\) .*?\((\d+) estimated tokens\)\. Call the session_search tool", a0.request.context
    )
    assert gap is not None and int(gap.group(1)) == h0["omitted_turns"] > 0
    drops = [a for n, a in events if n == WINDOW_DROP]
    assert len(drops) == 1
    d0 = drops[0]
    assert d0["turn_id"] == "turn-1" and d0["call_index"] == 0
    assert d0["omitted_turns"] == h0["omitted_turns"] and d0["omitted_records"] == h0["omitted"]
    assert d0["retained_records"] == h0["included"] and d0["omitted_tokens"] == int(gap.group(2))
    assert d0["retained_history_tokens"] < r0.sections["history"]  # the section also holds the notice
    total_history = d0["omitted_tokens"] + d0["retained_history_tokens"]
    assert any("lifecycle.window.drop" in rec.getMessage() for rec in caplog.records)
    # the three-part structure
    openai = a0.request.to_openai()
    assert [m["role"] for m in openai["messages"]] == ["system", "user", "user"]
    assert openai["messages"][2]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "https://example.test/a.png"},
    }
    assert len(openai["tools"]) == 3
    anthropic = a0.request.to_anthropic()
    assert anthropic["system"] == a0.request.system and len(anthropic["messages"]) == 1
    assert [b["type"] for b in anthropic["messages"][0]["content"]] == ["text", "text", "image", "image"]
    # snapshot persisted before the call and referenced by the call record
    assert r0.snapshot_id == a0.snapshot_id == turn.calls[0].snapshot_id
    assert flaky_store.load_snapshot(a0.snapshot_id) == a0.request.payload()
    # no bodies, no actor identities in the report
    blob = json.dumps(r0.to_dict())
    assert "alice" not in blob and "fact 29" not in blob and "Compare these" not in blob
    assert [e.id for e in turn.lineage] == ["identity", *got]

    # ---- the provider fails: fallback to a model with a smaller window --------------------------
    a0b = turn.fallback("small")
    r0b = a0b.report
    assert (r0b.call_index, r0b.attempt, r0b.model) == (0, 1, "small")
    assert r0b.limit["input_limit"] == 20_000 and r0b.limit["origin"] == "model_window"
    assert r0b.limit["window"] == 24_000 and r0b.limit["lookup"] == "ok"
    assert r0b.estimated_input_tokens <= 20_000
    # memories go first (lowest ranked), then the oldest history
    assert memory_ids(a0b.request.context) == ["identity"] and r0b.counts["memory"]["omitted_budget"] == len(got)
    assert r0b.sections["memory"] == pinned_cost
    h0b = r0b.counts["history"]
    assert h0b["omitted"] > h0["omitted"] and h0b["omitted_earlier_call"] == h0["omitted"]
    assert history_turns(a0b.request.context)[-1] == 40
    drops = [a for n, a in events if n == WINDOW_DROP]
    assert len(drops) == 2 and drops[1]["omitted_records"] == h0b["omitted"]
    assert drops[1]["omitted_tokens"] + drops[1]["retained_history_tokens"] == total_history
    assert a0b.snapshot_id not in (None, a0.snapshot_id)
    assert [e.id for e in turn.lineage] == ["identity", *got]  # pruning does not erase what the model saw
    assert turn.run.model_calls == 2

    reply = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "tool_0", "arguments": '{"q": "x"}'}}],
    }
    u0 = turn.record_response(reply, usage={"prompt_tokens": 19_000, "completion_tokens": 50, "total_tokens": 19_050})
    assert (u0.input_tokens, u0.output_tokens, u0.total_tokens, u0.input_budget, u0.source) == (
        19_000,
        50,
        19_050,
        20_000,
        "provider",
    )
    assert u0.estimated_input_tokens == r0b.estimated_input_tokens
    assert u0.breakdown == {
        "system": r0b.sections["system"],
        "tools": tools_cost,
        "skills": r0b.sections["skills"],
        "memory": pinned_cost,
        "messages": r0b.sections["messages"] + r0b.sections["history"] + r0b.sections["images"],
    }
    assert turn.run.tool_calls == 1 and turn.run.tokens == 19_050
    turn.add_tool_result("t1", "T1: " + "x" * 3_000, name="tool_0")

    # ---- call 1: the lookup times out, and the first snapshot write fails ---------------------------
    flaky_store.fail = True
    t = time.monotonic()
    with pytest.raises(SnapshotError, match="disk full"):
        turn.admit("slow")
    assert time.monotonic() - t < 0.9  # the 2 s default deadline is honoured (0.2 s here)
    assert turn.run.model_calls == 2 and len(turn.calls) == 2 and len(flaky_store.saved) == 2
    flaky_store.fail = False
    a1 = turn.admit("slow")
    r1 = a1.report
    assert (r1.call_index, r1.attempt) == (1, 0)
    assert r1.limit == {
        "input_limit": 60_000,
        "origin": "ceiling",
        "ceiling": 60_000,
        "window": None,
        "output_reserve": 4_000,
        "protocol_overhead": 1_024,
        "lookup": "timeout",
    }
    assert any("took longer than 0.2s" in n and "kept the ceiling" in n for n in r1.notes)
    # a larger limit reintroduces nothing omitted earlier in the turn
    assert memory_ids(a1.request.context) == ["identity"]
    assert r1.counts["memory"]["omitted_earlier_call"] == 31
    assert r1.counts["history"]["omitted"] == h0b["omitted"] == r1.counts["history"]["omitted_earlier_call"]
    assert r1.sections["messages"] > r0b.sections["messages"] + 1_000  # the tool result is required
    assert r1.sections["skills"] <= 3_000 and r0b.sections["skills"] <= 0.05 * 24_000  # 5% of window or ceiling
    # the roster shrank for the small fallback and does not grow back within the turn
    assert r0b.counts["skills"]["included"] < n_skills
    assert r1.counts["skills"]["included"] == r0b.counts["skills"]["included"]
    assert [m.role for m in a1.request.messages] == ["assistant", "tool"]
    assert turn.calls[-1].snapshot_id == a1.snapshot_id
    assert len([a for n, a in events if n == WINDOW_DROP]) == 2  # no new cut, no new event
    u1 = turn.record_response(
        # the provider answered in Anthropic's shape (so did its usage)
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "tool_1", "input": {"q": "y"}}]},
        usage={"input_tokens": 100, "cache_read_input_tokens": 20_000, "output_tokens": 30},
    )
    assert (u1.input_tokens, u1.output_tokens, u1.total_tokens, u1.source) == (20_100, 30, 20_130, "provider")
    turn.add_tool_result("t2", "T2: " + "y" * 120_000)

    # ---- call 2: the lookup raises; the tool result now forces more history out -----------------
    a2 = turn.admit("broken")
    r2 = a2.report
    assert r2.limit["lookup"] == "failed" and r2.limit["origin"] == "ceiling"
    assert any("RuntimeError: metadata service down" in n for n in r2.notes)
    assert r2.counts["history"]["omitted"] > h0b["omitted"]
    assert r2.estimated_input_tokens <= 60_000
    drops = [a for n, a in events if n == WINDOW_DROP]
    assert len(drops) == 3 and drops[2]["call_index"] == 2
    u2 = turn.record_response(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "t3", "function": {"name": "tool_2", "arguments": "{}"}}],
        }
    )
    assert (u2.source, u2.input_tokens, u2.output_tokens) == ("estimate", r2.estimated_input_tokens, 0)
    turn.add_tool_result("t3", "done")

    # ---- the final call, without tools ----------------------------------------------------------
    a3 = turn.admit(tools=False)
    r3 = a3.report
    assert r3.model == "primary" and r3.sections["tools"] == 0
    assert r3.counts["tools"] == {"schemas": 3, "included": 0}
    assert "tools" not in a3.request.to_openai() and "tools" not in a3.request.to_anthropic()
    assert r3.counts["history"]["omitted"] >= r2.counts["history"]["omitted"]
    assert r3.counts["messages"] == {"turn_messages": 6}
    turn.record_response(
        {"role": "assistant", "content": "Chart A grows faster."},
        usage={"prompt_tokens": 30_000, "completion_tokens": 10},
    )

    # five model calls (fallback attempts count): the allowance is spent, admission never resets it
    with pytest.raises(RunLimitError, match="model_calls used 5 of 5"):
        turn.admit()
    summary = turn.finish()
    assert [(c["call_index"], c["attempt"], c["model"]) for c in summary["calls"]] == [
        (0, 0, "primary"),
        (0, 1, "small"),
        (1, 0, "slow"),
        (2, 0, "broken"),
        (3, 0, "primary"),
    ]
    assert all(c["snapshot_id"] for c in summary["calls"])
    assert summary["calls"][0]["usage"] is None  # the failed primary attempt has no usage
    assert (
        summary["calls"][1]["usage"]["input_tokens"] == 19_000 and summary["calls"][1]["usage"]["source"] == "provider"
    )
    assert summary["calls"][3]["usage"]["source"] == "estimate"
    assert [c["estimated_input_tokens"] for c in summary["calls"]] == [
        r0.estimated_input_tokens,
        r0b.estimated_input_tokens,
        r1.estimated_input_tokens,
        r2.estimated_input_tokens,
        r3.estimated_input_tokens,
    ]
    assert [e["id"] for e in summary["lineage"]] == ["identity", *got] and all(
        e["first_call"] == 0 for e in summary["lineage"]
    )
    expected_input = 19_000 + 20_100 + r2.estimated_input_tokens + 30_000
    assert summary["usage"] == {
        "requests": 4,
        "input_tokens": expected_input,
        "output_tokens": 90,
        "total_tokens": expected_input + 90 - 50 + 50,
        # only the Anthropic-shaped usage said what was cached: 20,000 read, none written
        "cached_input_tokens": 20_000,
        "cache_write_tokens": 0,
        "uncached_input_tokens": expected_input - 20_000,
        "cache_reported": 1,
    }
    assert summary["run"]["model_calls"] == 5 and summary["run"]["tool_calls"] == 3
    assert session.usage_report() == {"turns": 1, "last_turn": summary["usage"]}

    # ---- a second turn: session totals across turns ---------------------------------------------
    turn2 = session.turn("Thanks!", system=SYSTEM, history=history, model="primary", turn_id="turn-2")
    turn2.admit()
    turn2.record_response(
        {"role": "assistant", "content": "You're welcome."}, usage={"prompt_tokens": 500, "completion_tokens": 5}
    )
    turn2.finish()
    report = session.usage_report()
    assert report["turns"] == 2
    no_cache_info = {"cached_input_tokens": 0, "cache_write_tokens": 0, "cache_reported": 0}
    assert report["last_turn"] == {
        "requests": 1,
        "input_tokens": 500,
        "output_tokens": 5,
        "total_tokens": 505,
        **no_cache_info,
        "uncached_input_tokens": 500,
    }
    assert report["session"] == {
        "requests": 5,
        "input_tokens": expected_input + 500,
        "output_tokens": 95,
        "total_tokens": expected_input + 90 + 505,
        "cached_input_tokens": 20_000,
        "cache_write_tokens": 0,
        "uncached_input_tokens": expected_input + 500 - 20_000,
        "cache_reported": 1,
    }
    assert turn2.calls[0].snapshot_id and turn2.admit  # the session keeps its store


def test_image_heavy_request_is_refused_before_the_call(flaky_store: Any) -> None:
    images = [{"type": "image_url", "image_url": {"url": f"https://example.test/{i}.png"}} for i in range(8)]
    events: list[tuple[str, dict[str, Any]]] = []
    session = Session(
        Limits(input_ceiling=60_000), snapshot_store=flaky_store, on_event=lambda n, a: events.append((n, a))
    )
    turn = session.turn(
        {"role": "user", "content": [{"type": "text", "text": "what changed?"}, *images]},
        system="sys",
        memories=["a memory"],
        history=[{"role": "user", "content": "hi"}],
    )
    with pytest.raises(ContextBudgetError) as info:
        turn.admit()
    err = info.value
    assert err.limit == 60_000 and err.limit_origin == "ceiling"
    assert err.breakdown["images"] == 8 * 8_192 and err.breakdown["memory"] == 0 and err.breakdown["history"] == 0
    assert set(err.breakdown) >= {"system", "tools", "messages", "memory", "history", "images", "overhead"}
    assert err.required == sum(err.breakdown.values()) > 60_000
    assert "'images'" in str(err) and "input limit is 60000" in str(err)
    assert err.budget == 60_000 and ("images", 65_536) in err.items
    assert flaky_store.saved == [] and turn.run.model_calls == 0 and turn.calls == []
    ((name, attrs),) = events
    assert name == "context.refused" and attrs["images"] == 65_536 and attrs["required"] == err.required
    assert (attrs["input_limit"], attrs["limit_origin"], attrs["call_index"]) == (60_000, "ceiling", 0)
