"""The runner against the real engine, and the issue's targets on the shipped corpus."""

from __future__ import annotations

from itertools import pairwise

import pytest

from ctxsieve.errors import ConfigError
from ctxsieve.eval.configs import DEFAULT, EvalConfig, default_configs, parse_configs
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
        assert sum(t for _, t in r.items) == r.tokens_used <= 1000
        assert set(r.docs) <= set(assets.corpus.documents)
        assert r.candidate_tokens >= r.tokens_used
        assert r.prompt_tokens > 0 and 0 <= r.shared_prefix_tokens <= r.prompt_tokens
    assert records[0].shared_prefix_tokens == 0  # nothing was sent before the first call


def test_cache_layout_keeps_the_previous_prompt_up_to_the_new_turn(assets):
    # At 2000 tokens nothing in a 10-turn session's history is dropped, so in the cache layout
    # the previous call's system message and whole history are a prefix of the next call.
    session = next(s for s in assets.sessions if len(s.turns) >= 10)
    cache = run_session(EvalConfig("scored_knapsack", "cache"), 2000, session, assets)
    seed = run_session(EvalConfig("scored_knapsack", "seed"), 2000, session, assets)
    for prev, cur in pairwise(cache):
        head = prev.prompt.split("<|user|>", 1)[0]
        history = [m for m in prev.messages if m["role"] != "system"][:-2]  # minus context and query
        assert cur.prompt.startswith(head)
        assert all(cur.prompt.count(m["content"]) >= 1 for m in history)
    assert sum(r.shared_prefix_tokens for r in cache) > sum(r.shared_prefix_tokens for r in seed)


def test_default_recall_is_at_least_fixed_slots_at_every_budget(rows):
    for b in BUDGETS:
        assert rows[(DEFAULT, b)].recall >= rows[("fixed_slots/cache", b)].recall, b


def test_default_never_shows_a_superseded_page(rows):
    for b in BUDGETS:
        assert rows[(DEFAULT, b)].superseded_rate == 0.0


def test_the_control_does_show_superseded_pages(rows):
    # the metric can fail: stuffing candidates in without honouring deprecation lets them in
    assert rows[("everything/cache", 2000)].superseded_rate > 0.1


@pytest.mark.xfail(
    strict=True,
    reason="fresh retrieval for each question is most of every prompt and the engine's cache "
    "layout renders it after the history, so the 10-turn share is ~0.2-0.3 (docs/eval.md)",
)
def test_cache_layout_prefix_share_over_ten_turns_reaches_0_8(rows):
    for b in BUDGETS:
        assert rows[(DEFAULT, b)].cache_share_10 >= 0.8


def test_cache_layout_beats_seed_when_history_survives(rows):
    assert rows[(DEFAULT, 2000)].cache_share_10 > rows[("scored_knapsack/seed", 2000)].cache_share_10


def test_configuration_names_are_checked():
    assert [c.name for c in parse_configs(["fixed_slots"])] == ["fixed_slots/seed", "fixed_slots/cache"]
    with pytest.raises(ConfigError, match="eval policy"):
        parse_configs(["greedy/cache"])
    with pytest.raises(ConfigError, match="eval layout"):
        parse_configs(["density/sideways"])


def test_transcript_sessions_keep_what_each_turn_was_shown(assets):
    session = next(s for s in assets.sessions if len(s.turns) >= 10)
    records = run_session(EvalConfig("scored_knapsack", "cache"), 16000, session, assets, history_mode="transcript")
    # turn 2's history: turn 1's context message, then its question, then its answer
    history = [m for m in records[1].messages if m["role"] != "system"][:3]
    assert [m["role"] for m in history] == ["user", "user", "assistant"]
    assert history[0]["content"] == records[0].messages[-2]["content"]
    assert history[0]["content"].startswith("<context ")
    assert history[1]["content"] == session.turns[0].question


def test_transcript_sessions_reach_the_cache_target_when_the_history_is_never_cut(assets):
    # the condition under which the 0.8 target holds (docs/eval.md): append-only conversation,
    # a budget that never cuts it; the seed layout, which rewrites its system message, does not
    rows = {
        r.config: r
        for r in summarize(run(assets, parse_configs(["scored_knapsack"]), [16000], history_mode="transcript"))
    }
    assert rows["scored_knapsack/cache"].cache_share_10 >= 0.8
    assert rows["scored_knapsack/seed"].cache_share_10 < 0.2


def test_unknown_history_mode_is_refused(assets):
    with pytest.raises(ConfigError, match="history mode"):
        run_session(EvalConfig("density", "seed"), 750, assets.sessions[0], assets, history_mode="full")
