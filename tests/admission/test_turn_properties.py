"""Properties of whole turns under random conversations, limits, tool results and fallbacks."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.admission import ContextBudgetError, Limits, Session

WINDOWS = {"a": 30_000, "b": 14_000, "c": 400_000}

text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=400)


def est(s: str) -> int:
    return math.ceil(len(s.encode("utf-8")) / 3)


@st.composite
def conversations(draw: Any) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    for t in range(draw(st.integers(0, 25))):
        msgs.append({"role": "user", "content": draw(text) + f" q{t}"})
        if draw(st.booleans()):
            n = draw(st.integers(1, 2))
            calls = [
                {"id": f"h{t}_{i}", "function": {"name": "f", "arguments": json.dumps({"x": i})}} for i in range(n)
            ]
            msgs.append({"role": "assistant", "content": None, "tool_calls": calls})
            msgs += [{"role": "tool", "tool_call_id": c["id"], "content": draw(text) * 5} for c in calls]
        msgs.append({"role": "assistant", "content": draw(text)})
    return msgs


def rendered_cost(body: dict[str, Any], image_tokens: int, overhead: int) -> int:
    """An independent estimate of what the OpenAI body sends (texts, calls, images, schemas)."""
    total = overhead
    for m in body["messages"]:
        total += 4
        content = m.get("content")
        if isinstance(content, str):
            total += est(content)
        elif isinstance(content, list):
            total += sum(est(p["text"]) if p["type"] == "text" else image_tokens for p in content)
        for c in m.get("tool_calls", []):
            total += est(c["id"]) + est(c["function"]["name"]) + est(c["function"]["arguments"])
        if m.get("tool_call_id"):
            total += est(m["tool_call_id"])
    for t in body.get("tools", []):
        total += 4 + est(json.dumps(t, separators=(",", ":")))
    return total


@given(
    history=conversations(),
    memories=st.lists(st.tuples(text, st.floats(0, 1)), max_size=20),
    ceiling=st.integers(3_000, 40_000),
    steps=st.lists(st.tuples(st.sampled_from(["a", "b", "c", None]), st.integers(0, 6_000)), min_size=1, max_size=5),
    images=st.integers(0, 1),
)
def test_turn_invariants(history: Any, memories: Any, ceiling: int, steps: Any, images: int) -> None:
    mems = [{"id": f"m{i}", "content": c, "score": s} for i, (c, s) in enumerate(memories)]
    user = {
        "role": "user",
        "content": [{"type": "text", "text": "now"}] + [{"type": "image_url", "image_url": {"url": "u"}}] * images,
    }
    tools = [{"name": "f", "description": "d", "parameters": {"type": "object"}}]
    session = Session(
        Limits(input_ceiling=ceiling, image_tokens=1_000, output_reserve=4_000), window_lookup=WINDOWS.get
    )
    turn = session.turn(user, history=history, memories=mems, tools=tools)
    prev_mem: int | None = None
    prev_omitted = 0
    seen_ids: set[str] = set()
    for i, (model, result) in enumerate(steps):
        try:
            adm = turn.admit(model)
        except ContextBudgetError as e:
            assert e.required > e.limit and e.breakdown["memory"] == 0
            return
        r = adm.report
        # the estimate covers what is actually sent, and fits the limit
        assert (
            rendered_cost(adm.request.to_openai(), 1_000, 1_024) <= r.estimated_input_tokens <= r.limit["input_limit"]
        )
        assert r.estimated_input_tokens == sum(r.sections.values())
        # omission is monotonic within the turn
        mem_in, hist_out = r.counts["memory"]["included"], r.counts["history"]["omitted"]
        assert prev_mem is None or mem_in <= prev_mem
        assert hist_out >= prev_omitted
        prev_mem, prev_omitted = mem_in, hist_out
        # memory is a relevance prefix, history a suffix of whole records
        ctx = adm.request.context or ""
        got = re.findall(r"^\[memory (m\d+)\]", ctx, flags=re.M)
        ranked = [m["id"] for m in sorted(mems, key=lambda m: -m["score"])]
        assert got == ranked[: len(got)]
        assert set(re.findall(r"\[call (h\d+_\d+)\]", ctx)) == set(re.findall(r"for call (h\d+_\d+)\]", ctx))
        turns = [int(t) for t in re.findall(r"^\[turn (\d+) ·", ctx, flags=re.M)]
        assert turns == sorted(turns)
        if hist_out:
            assert "session_search" in ctx
        # lineage only grows
        ids = {e.id for e in turn.lineage}
        assert seen_ids <= ids and set(got) <= ids
        seen_ids = ids
        call = {"id": f"t{i}", "function": {"name": "f", "arguments": "{}"}}
        turn.record_response({"role": "assistant", "content": None, "tool_calls": [call]})
        turn.add_tool_result(f"t{i}", "x" * result)
