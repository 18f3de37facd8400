"""The end-to-end agent benchmark's targets (issue 13, docs/agent-benchmark.md), paths (a) to (c).

The scripted 30-turn support conversation runs through ``Conversation`` by hand (a), LangChain's
``create_agent`` with ``ContextMiddleware`` (b) and a PydanticAI ``Agent`` with
``ContextCapability`` (c); every request is checked independently of the conversation's own
figures (benches/agent/measure.py), for (b) and (c) as the framework's model received it.
CI runs the 30 turns the issue names; ``CTXSIEVE_AGENT_TURNS=120`` runs a longer script locally.
Times are measured by benches/bench_agent.py, never asserted here.
"""

from __future__ import annotations

import copy
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout's benches/ package

from benches.agent import knowledge, path_conversation
from benches.agent.measure import Checker, Rendered, anthropic_orphans, openai_orphans
from benches.agent.script import BIG_SIZES, SYSTEM, build
from benches.agent.timing import Grown
from ctxsieve.tokenizers import resolve_estimator

TURNS = int(os.environ.get("CTXSIEVE_AGENT_TURNS", "30"))


@pytest.fixture(scope="module")
def run(tmp_path_factory: Any) -> path_conversation.Run:
    return path_conversation.run(build(TURNS), tmp_path_factory.mktemp("agent"))


def test_the_script_is_the_conversation_the_issue_describes():
    s = build(TURNS)
    assert len(s.turns) == TURNS and s.turns == build(TURNS).turns  # seeded: the same bytes each run
    assert all(sum(len(r) for r in t.rounds) in (2, 3) for t in s.turns)
    assert any(len(r) > 1 for t in s.turns for r in t.rounds)  # parallel calls in one message
    assert any(len(t.rounds) > 1 for t in s.turns)  # sequential calls
    big = [st.result for t in s.turns for r in t.rounds for st in r if len(st.result) > 10_000]
    assert len(big) >= TURNS // 4 and all(BIG_SIZES[0] <= len(b) <= BIG_SIZES[1] for b in big)
    assert any(b.startswith("{") and json.loads(b) for b in big) and any(" ERROR " in b for b in big)


def test_path_a_meets_the_targets(run: path_conversation.Run):
    s = run.summary
    assert s.share >= 0.85, s.share
    assert s.anthropic_share >= 0.85, s.anthropic_share
    assert s.over_limit == 0, [c for c in s.calls if c.over_limit]
    assert s.orphans == 0, [c.orphans for c in s.calls if c.orphans]
    assert s.present == 1.0, [c.label for c in s.calls if not (c.system_ok and c.pinned_ok)]


def test_path_a_exercises_cuts_fallback_offloading_and_compaction(run: path_conversation.Run):
    script = build(TURNS)
    assert run.cuts >= 1 and run.fallbacks == 1
    assert run.offloaded == script.big_results  # every big result was capped as it was written
    small = [c for c in run.summary.calls if c.label.startswith(path_conversation.SMALL)]
    assert len(small) == 1 and small[0].recount <= small[0].limit < run.summary.calls[0].limit
    assert 1 <= run.compactions < run.cuts  # the large model's cuts compact, the fallback's does not
    assert all(2 <= c.breakpoints <= 4 for c in run.summary.calls[1:])


# -- paths b and c: the frameworks' own loops on the integrations ---------------------------------

FRAMEWORK_PATHS = {
    "b": ("benches.agent.path_langchain", "langchain"),
    "c": ("benches.agent.path_pydantic_ai", "pydantic_ai"),
}


@pytest.fixture(scope="module", params=sorted(FRAMEWORK_PATHS))
def framework_run(request: Any, tmp_path_factory: Any) -> path_conversation.Run:
    module, framework = FRAMEWORK_PATHS[request.param]
    pytest.importorskip(framework)
    path = importlib.import_module(module)
    return path.run(build(TURNS), tmp_path_factory.mktemp(f"agent-{request.param}"))


def test_paths_b_and_c_meet_the_targets(framework_run: path_conversation.Run):
    s = framework_run.summary
    assert len(s.calls) == build(TURNS).calls + framework_run.fallbacks  # every request was checked
    assert s.share >= 0.85, s.share
    assert s.over_limit == 0, [c for c in s.calls if c.over_limit]
    assert s.orphans == 0, [c.orphans for c in s.calls if c.orphans]
    assert s.present == 1.0, [c.label for c in s.calls if not (c.system_ok and c.pinned_ok)]
    # the integration's own estimate is the request the model got, recounted
    assert s.estimate_mismatches == 0, [(c.label, c.estimate, c.recount) for c in s.calls if c.estimate != c.recount]


def test_paths_b_and_c_exercise_compaction_fallback_and_offloading(framework_run: path_conversation.Run):
    script = build(TURNS)
    assert framework_run.fallbacks == 1 and framework_run.compactions >= 1 and framework_run.cuts >= 1
    assert framework_run.offloaded == script.big_results  # every big result reached the model as a handle
    small = [c for c in framework_run.summary.calls if c.label.startswith(path_conversation.SMALL)]
    assert len(small) == 1 and small[0].recount <= small[0].limit < framework_run.summary.calls[0].limit


def test_the_conversations_own_figures_match_the_independent_recount(run: path_conversation.Run):
    # the estimate it admits is the request as rendered, and the prefix it reports is the one
    # the rendered requests share: a conversation that miscounted would pass the limit silently
    for c in run.summary.calls:
        assert c.estimate == c.recount, c.label
        assert c.own_shared == c.shared_tokens, c.label


def test_prepare_counts_nothing_already_counted():
    # flat in the conversation's length: a call after a new tool result estimates no text
    g = Grown(2_000)
    counted: list[str] = []
    inner = g.conv.estimator

    class Counting:
        name = inner.name

        def count(self, texts: list[str]) -> list[int]:
            counted.extend(texts)
            return inner.count(texts)

    g.conv.estimator = Counting()  # type: ignore[assignment]
    g.next_result()
    counted.clear()  # the new result is counted once, when it is written
    g.conv.prepare()
    assert counted == [] and len(g.conv.transcript) > 1_900


# -- the checks catch what they are there to catch -------------------------------------------------


def _two_calls() -> tuple[Any, Any]:
    g = Grown(40)
    g.next_result()
    first = g.conv.prepare()
    g.next_result()
    return first, g.conv.prepare()


def _checker() -> Checker:
    return Checker("t", resolve_estimator(None), system=SYSTEM, pinned=knowledge.PINNED, overhead=0)


def test_the_checker_measures_the_prefix_up_to_the_first_difference():
    first, second = _two_calls()
    a, b = first.openai(), second.openai()
    changed = copy.deepcopy(b)
    changed["messages"][5]["content"] = "rewritten"
    checker = _checker()
    checker.add(Rendered(a, 10**6, 1))
    whole = checker.add(Rendered(b, 10**6, 1))
    assert whole.shared_tokens == checker.tool_tokens(b["tools"]) + sum(map(checker.message_tokens, a["messages"]))
    checker = _checker()
    checker.add(Rendered(a, 10**6, 1))
    cut = checker.add(Rendered(changed, 10**6, 1))
    expected = checker.tool_tokens(b["tools"]) + sum(map(checker.message_tokens, a["messages"][:5]))
    assert cut.shared_tokens == expected and not cut.pinned_ok  # no engine here: no pinned item


def test_the_checker_reads_anthropic_cache_only_within_the_look_back():
    first, second = _two_calls()
    a, b = first.anthropic(max_tokens=10), second.anthropic(max_tokens=10)
    checker = _checker()
    checker.add(Rendered(first.openai(), 10**6, 1, anthropic=a))
    read = checker.add(Rendered(second.openai(), 10**6, 1, anthropic=b))
    assert 0 < read.anthropic_shared < read.anthropic_tokens
    # the same request with 25 more blocks and its only message breakpoint moved to the end:
    # the previous call's last breakpoint is out of reach, only the system prompt's is read
    far = copy.deepcopy(b)
    for m in far["messages"]:
        for block in m["content"] if isinstance(m["content"], list) else ():
            block.pop("cache_control", None)
    far["messages"].append({"role": "assistant", "content": [{"type": "text", "text": f"x{i}"} for i in range(25)]})
    far["messages"].append({"role": "user", "content": [{"type": "text", "text": "end", "cache_control": {}}]})
    checker = _checker()
    checker.add(Rendered(first.openai(), 10**6, 1, anthropic=a))
    out = checker.add(Rendered(second.openai(), 10**6, 1, anthropic=far))
    head = len(far["tools"]) + len(far["system"])
    assert out.anthropic_shared == sum(checker._block_tokens(b) for b in [*far["tools"], *far["system"]][:head])


def test_orphans_are_found_in_both_shapes():
    _, second = _two_calls()
    msgs = second.openai()["messages"]
    assert openai_orphans(msgs) == []
    no_result = [m for m in msgs if not (m["role"] == "tool" and m is msgs[-1])]
    assert openai_orphans(no_result) == [f"call {msgs[-1]['tool_call_id']} without its result"]
    assert openai_orphans(msgs[:2] + msgs[3:])  # a call's message gone: its results are orphans
    body = second.anthropic(max_tokens=10)["messages"]
    assert anthropic_orphans(body) == []
    body[-1]["content"] = [b for b in body[-1]["content"] if b["type"] != "tool_result"] or "nothing"
    assert anthropic_orphans(body) and "without its result" in anthropic_orphans(body)[0]


# -- what the benchmark found ----------------------------------------------------------------------


def test_a_dropped_turn_context_is_not_reported_as_a_shared_prefix():
    from ctxsieve import ContextEngine, ContextItem, Limits
    from ctxsieve.conversation import Conversation
    from ctxsieve.sources import CallableSource

    from .helpers import TOOLS, tool_reply

    note = ContextItem("refunds", "Refunds are paid within 5 working days of the return arriving. " * 12, "kb")
    engine = ContextEngine([CallableSource(lambda q: [note], name="kb")], budget=400)
    limits = Limits(input_ceiling=1200, output_reserve=100, protocol_overhead=50)
    conv = Conversation(engine, system="s", tools=TOOLS, limits=limits)
    conv.add_user("How long do refunds take?")
    first = conv.prepare()
    room, context = first.limit.tokens - first.estimated_input_tokens, first.report.sections["memory"]
    conv.record_response(tool_reply(1, 1))
    conv.add_tool_result("call_1_0", "x" * (3 * (room + context // 2)))  # fits only without the context
    second = conv.prepare()
    assert second.report.sections["memory"] == 0 and context > 0  # the context was left out
    p, c = first.openai()["messages"], second.openai()["messages"]
    assert c[1]["role"] == "user" and c[1]["content"] == "How long do refunds take?"  # the context went
    # what the conversation says the two requests share must be what they share
    assert c[: second.previous_end + 1] == p[: second.previous_end + 1]
    assert second.shared_prefix_tokens == first.report.sections["system"] + first.report.sections["tools"]
