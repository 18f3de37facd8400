"""The runner against the real engine, and the issue's targets on the shipped corpus."""

from __future__ import annotations

import dataclasses
import re
from itertools import pairwise

import pytest

from ctxsieve.admission.context import CONTEXT_HEADER
from ctxsieve.errors import ConfigError
from ctxsieve.eval import metrics
from ctxsieve.eval.configs import DEFAULT, Depth, EvalConfig, default_configs, parse_configs
from ctxsieve.eval.corpus import load_corpus
from ctxsieve.eval.runner import prepare, run, run_session
from ctxsieve.eval.summary import summarize

BUDGETS = (750, 1000, 2000)


@pytest.fixture(scope="module")
def assets():
    return prepare(load_corpus())


@pytest.fixture(scope="module")
def rows(assets):
    records = run(assets, default_configs(), BUDGETS)
    return {(r.config, r.budget): r for r in summarize(records)}


def test_records_account_for_every_window_token(assets):
    session = assets.sessions[0]
    records = run_session(EvalConfig("scored_knapsack", "cache"), 1000, session, assets)
    assert [r.turn for r in records] == list(range(1, len(session.turns) + 1))
    for r in records:
        # the items are what the call added (within its budget, which also covers the framing
        # of the message the items go in) plus the earlier-shown pages its candidates matched,
        # which the conversation does not send again
        assert sum(t for _, t in r.items) + r.framing_tokens == r.tokens_used + r.reused_tokens
        assert r.framing_tokens > 0 or not r.tokens_used
        assert r.tokens_used <= 1000
        assert set(r.docs) <= set(assets.corpus.documents)
        assert r.candidate_tokens >= r.tokens_used
        assert r.prompt_tokens > 0 and 0 <= r.shared_prefix_tokens <= r.prompt_tokens
    assert records[0].shared_prefix_tokens == 0  # nothing was sent before the first call


@pytest.mark.parametrize("budget", BUDGETS)
def test_cache_layout_prompt_extends_the_previous_call(assets, budget):
    # the cache layout runs on a Conversation: every call's prompt is the previous call's
    # prompt, byte for byte, plus the reply, the new pages and the question
    session = next(s for s in assets.sessions if len(s.turns) >= 10)
    cache = run_session(EvalConfig("scored_knapsack", "cache"), budget, session, assets)
    seed = run_session(EvalConfig("scored_knapsack", "seed"), budget, session, assets)
    for prev, cur in pairwise(cache):
        assert cur.prompt.startswith(prev.prompt + "\n<|assistant|>\n")
        assert cur.messages[: len(prev.messages)] == prev.messages
        # the conversation's own estimate: the whole previous request is this call's prefix
        assert cur.shared_prefix_tokens == prev.prompt_tokens
        # it counts each message (4 tokens of framing, then each text), the text metric the whole
        # framed string: the two agree within a token per message
        assert abs(prev.prompt_tokens - metrics.shared_prefix_tokens(None, prev.prompt)[1]) <= len(prev.messages)
        assert not any(e.startswith("lifecycle.window.drop") for e in cur.events)
    assert sum(r.shared_prefix_tokens for r in cache) > sum(r.shared_prefix_tokens for r in seed)


def test_session_pages_are_sent_once_and_still_count(assets):
    session = next(s for s in assets.sessions if len(s.turns) >= 10)
    records = run_session(EvalConfig("scored_knapsack", "cache"), 750, session, assets)
    reused = [r for r in records if r.reused_tokens]
    assert reused, "a 10-turn session asks about some page twice"
    for r in records:
        # a page's chunk appears at most once in the whole prompt, however often it was proposed
        blocks = re.findall(r'<context id="([^"]+)"', r.prompt)
        assert len(blocks) == len(set(blocks)), r.turn
        # and every document the call counts (recall) is in the prompt, shown now or earlier
        assert all(any(b == d or b.startswith(d + "#") for b in blocks) for d in r.docs), r.turn


def test_default_recall_is_at_least_fixed_slots_at_every_budget(rows):
    for b in BUDGETS:
        assert rows[(DEFAULT, b)].recall >= rows[("fixed_slots/cache", b)].recall, b


def test_default_never_shows_a_superseded_page(rows):
    for b in BUDGETS:
        assert rows[(DEFAULT, b)].superseded_rate == 0.0


def test_the_control_does_show_superseded_pages(rows):
    # the metric can fail: stuffing candidates in without honouring deprecation lets them in
    assert rows[("everything/cache", 2000)].superseded_rate > 0.1


def test_cache_layout_prefix_share_over_ten_turns_reaches_0_8(rows):
    for b in BUDGETS:
        assert rows[(DEFAULT, b)].cache_share_10 >= 0.8
        assert rows[("scored_knapsack/seed", b)].cache_share_10 < 0.3  # reported beside it


def test_cache_layout_beats_seed_when_history_survives(rows):
    assert rows[(DEFAULT, 2000)].cache_share_10 > rows[("scored_knapsack/seed", 2000)].cache_share_10


def test_configuration_names_are_checked():
    assert [c.name for c in parse_configs(["fixed_slots"])] == ["fixed_slots/seed", "fixed_slots/cache"]
    with pytest.raises(ConfigError, match="eval policy"):
        parse_configs(["greedy/cache"])
    with pytest.raises(ConfigError, match="eval layout"):
        parse_configs(["density/sideways"])


def test_session_turns_keep_what_each_turn_was_shown(assets):
    session = next(s for s in assets.sessions if len(s.turns) >= 10)
    records = run_session(EvalConfig("scored_knapsack", "cache"), 1000, session, assets)
    # turn 2's prompt: turn 1's context message, then its question, then its answer
    history = [m for m in records[1].messages if m["role"] != "system"][:3]
    assert [m["role"] for m in history] == ["user", "user", "assistant"]
    assert history[0]["content"] == records[0].messages[-2]["content"]
    # the conversation's context message: what it is (reference material, not instructions), then the pages
    assert history[0]["content"].startswith(CONTEXT_HEADER + "\n<context ")
    assert history[1]["content"] == session.turns[0].question
    assert history[2]["content"] == session.reply(session.turns[0])


def test_transcript_history_feeds_the_seed_layout(assets):
    # the old fixed depth, so that at 16,000 tokens every candidate and the whole history fit
    # (with the depth following the budget, chunks fill it and the history is cut)
    assets = dataclasses.replace(assets, depth=Depth(rag_k=10, okf_limit=4))
    session = next(s for s in assets.sessions if len(s.turns) >= 10)
    records = run_session(EvalConfig("scored_knapsack", "seed"), 16000, session, assets, history_mode="transcript")
    # the seed layout's history holds turn 1's context message before its question
    history = [m for m in records[1].messages if m["role"] != "system"][:3]
    assert [m["role"] for m in history] == ["user", "user", "assistant"]
    assert history[0]["content"].startswith("<context ")
    assert history[1]["content"] == session.turns[0].question


def test_seed_layout_misses_the_cache_even_with_transcript_history(assets):
    # an append-only history is not enough for the seed layout: it rewrites its system message
    # with each question's pages, so the cached prefix ends there; the session does not
    rows = {
        r.config: r
        for r in summarize(run(assets, parse_configs(["scored_knapsack"]), [16000], history_mode="transcript"))
    }
    assert rows["scored_knapsack/cache"].cache_share_10 >= 0.8
    assert rows["scored_knapsack/seed"].cache_share_10 < 0.2


def test_unknown_history_mode_is_refused(assets):
    with pytest.raises(ConfigError, match="history mode"):
        run_session(EvalConfig("density", "seed"), 750, assets.sessions[0], assets, history_mode="full")


def test_a_session_ceiling_cuts_and_the_eval_sees_the_cut(assets):
    session = next(s for s in assets.sessions if len(s.turns) >= 10)
    records = run_session(EvalConfig("scored_knapsack", "cache"), 750, session, assets, max_prompt_tokens=5000)
    # the conversation's cut: its lifecycle.window.drop event, in the record of the call that cut
    cut = [r for r in records if any(e.startswith("lifecycle.window.drop:") for e in r.events)]
    assert 1 <= len(cut) <= 3  # one large cut at a time, not one per turn
    for r in cut:
        prev = records[r.turn - 2]
        assert not r.prompt.startswith(prev.prompt)
        assert r.shared_prefix_tokens < prev.prompt_tokens  # the cut breaks the cached prefix there
        assert "not shown here" in r.messages[1]["content"]  # the gap notice opens the transcript
    assert all(r.prompt_tokens <= 5000 for r in records)


def test_the_cache_layout_runs_on_the_conversation(assets, monkeypatch):
    # the object a user's loop runs: one Conversation per script, add_user + prepare() per
    # question; the record is what that call sent and what it reported
    from ctxsieve.conversation import Conversation

    prepared = []
    real = Conversation.prepare

    def spy(self, *args, **kwargs):
        call = real(self, *args, **kwargs)
        prepared.append((self.id, call))
        return call

    monkeypatch.setattr(Conversation, "prepare", spy)
    session = next(s for s in assets.sessions if len(s.turns) >= 10)
    records = run_session(EvalConfig("scored_knapsack", "cache"), 1000, session, assets)
    assert len(prepared) == len(session.turns) and len({cid for cid, _ in prepared}) == 1
    for r, (_, call) in zip(records, prepared):
        assert r.messages == call.openai()["messages"]
        assert (r.prompt_tokens, r.shared_prefix_tokens) == (call.prompt_tokens, call.shared_prefix_tokens)
        assert r.prompt_tokens <= call.limit.tokens
    # each reply recorded: the next call's request holds the previous answer
    assert records[1].messages[3] == {"role": "assistant", "content": session.reply(session.turns[0])}


def test_the_eval_is_built_on_the_conversation_not_on_the_stages():
    # DESIGN.md section 7: edges are built on conversation/, never on stages directly
    import ast
    from pathlib import Path

    import ctxsieve.eval

    root = Path(ctxsieve.eval.__file__).parent
    reaching = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            reaching += [f"{path.name}: {n}" for n in names if n.startswith("ctxsieve.stages")]
    assert reaching == []
