"""Bad configuration fails at construction; token counts are cached; builds run on threads."""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import (
    Budget,
    CallableSource,
    ConfigError,
    ContextEngine,
    ContextItem,
    FixedSlots,
    ScoredKnapsack,
    SourceConfig,
    StaticSource,
)
from ctxsieve.cli import main
from ctxsieve.stages.render import SEPARATOR, wrapper
from ctxsieve.tokenizers import resolve_estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

from .helpers import item, text

KB = StaticSource([item("a")], name="kb")


class Nameless:
    def candidates(self, q):
        return []


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: ContextEngine([KB, StaticSource([], name="kb")], budget=10), "duplicate source name 'kb'"),
        (lambda: ContextEngine([SourceConfig(KB, mode="cosine")], budget=10), "source 'kb': mode must be one of"),
        (lambda: ContextEngine([KB], budget=10, policy="greedy"), "unknown policy 'greedy'"),
        (lambda: ContextEngine([KB], budget=10, policy=object()), "has no select"),
        (lambda: ContextEngine([KB], budget=10, policy=ScoredKnapsack), "pass an instance, e.g. ScoredKnapsack()"),
        (lambda: ContextEngine([KB], budget=0), "budget: must be a positive int, got 0"),
        (lambda: ContextEngine([KB], budget=-5), "budget: must be a positive int, got -5"),
        (lambda: ContextEngine([KB], budget=2.5), "budget: must be a positive int, got 2.5"),  # type: ignore[arg-type]
        (lambda: FixedSlots({"a": 0.6, "b": 0.5}), "shares: must sum to at most 1, got 1.1"),
        (lambda: FixedSlots({"a": -0.1}), "shares['a']: must be >= 0"),
        (lambda: ScoredKnapsack(beta=-1), "beta: must be >= 0"),
        (lambda: ScoredKnapsack(min_score=math.nan), "min_score: must be a finite number"),
        (lambda: ContextEngine([KB], budget=10, layout="fast"), "layout: must be 'seed' or 'cache'"),
        (lambda: ContextEngine([KB], budget=10, dedupe_threshold=1.5), "dedupe_threshold"),
        (lambda: ContextEngine([KB], budget=10, source_timeout=0), "source_timeout"),
        (lambda: ContextEngine([KB], budget=10, tokenizer="words/2"), "unknown estimator 'words/2'"),
        (lambda: ContextEngine([KB], budget=10, tokenizer=42), "got 42"),
        (lambda: ContextEngine([KB], budget=10, scorer=object()), "scorer"),
        (lambda: ContextEngine([Nameless()], budget=10), "needs a non-empty str name"),
        (lambda: ContextEngine([SourceConfig(KB, weight=-1)], budget=10), "weight must be a finite number >= 0"),
        (lambda: ContextEngine([SourceConfig(KB, max_tokens=-1)], budget=10), "max_tokens must be an int >= 0"),
        (lambda: ContextEngine([SourceConfig(KB, timeout=0)], budget=10), "timeout must be > 0"),
        (lambda: Budget(10, caps={"kb": -1}), "budget.caps['kb']: must be an int >= 0"),
        (lambda: ContextItem("x", "t", kind="podcast"), "ContextItem 'x': kind must be one of"),  # type: ignore[arg-type]
        (lambda: ContextItem("x", "t", score=math.inf), "score must be a finite number"),
        (lambda: ContextItem("", "t"), "id must be a non-empty str"),
        (lambda: ContextItem("x", "t", tokens=-1), "tokens must be None or an int >= 0"),
        (lambda: ContextItem("x", "t", meta=None), "ContextItem 'x': meta must be a mapping, got NoneType"),  # type: ignore[arg-type]
    ],
)
def test_bad_configuration_fails_at_construction(build, message):
    with pytest.raises(ConfigError) as info:
        build()
    assert message in str(info.value)


def test_query_must_be_text():
    with pytest.raises(TypeError, match="query: expected str, got bytes"):
        ContextEngine([KB], budget=10).build_sync(b"q")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="dedupe_threshold"):
        ContextEngine([KB], budget=10, dedupe_threshold=True)


def test_token_counts_are_computed_once_per_distinct_text():
    calls = []

    def counter(texts):
        calls.append(list(texts))
        return [len(t) for t in texts]

    same = "the same paragraph, proposed by two sources"
    kb = StaticSource([item("a", tokens=None, content=same), item("b", tokens=None, content="other text")], name="kb")
    web = StaticSource([item("c", tokens=None, content=same)], name="web")
    engine = ContextEngine([kb, web], budget=1000, tokenizer=counter, dedupe_threshold=None)
    first = engine.build_sync("q")
    # one call for the contents (the shared one once), one for what each is wrapped in
    wrapped = {i.id: "".join(wrapper(i)) + SEPARATOR for i in first.items}
    assert calls == [[same, "other text"], [wrapped["a"], wrapped["b"], wrapped["c"]]]
    sizes = [len(same) + len(wrapped["a"]), 10 + len(wrapped["b"]), len(same) + len(wrapped["c"])]
    assert [first.trace.entry(k).tokens for k in "abc"] == sizes
    engine.build_sync("another query")
    assert len(calls) == 2, "a repeated candidate must not be counted again"


def test_tokenizer_object_with_count_batch():
    class Tok:
        name = "fixed"

        def count_batch(self, texts):
            return [7] * len(texts)

    engine = ContextEngine([StaticSource([item("a", tokens=None)], name="kb")], budget=100, tokenizer=Tok())
    # 7 for the content, 7 for its wrapper, and the framing of the context message
    assert engine.build_sync("q").tokens_used == 7 + 7 + MESSAGE_FRAMING_TOKENS


def test_tokens_given_by_a_source_are_trusted():
    given = item("a", tokens=3, content="x" * 300)  # 100 tokens by bytes/3
    window = ContextEngine([StaticSource([given], name="kb")], budget=100).build_sync("q")
    (wrapping,) = resolve_estimator("bytes/3").count(["".join(wrapper(window.items[0])) + SEPARATOR])
    assert window.scored[0].tokens == 3 + wrapping
    assert window.tokens_used == 3 + wrapping + MESSAGE_FRAMING_TOKENS


def test_build_many_on_threads_matches_sequential_builds():
    docs = [item(f"d{i}", tokens=None, content=text(i, 20)) for i in range(300)]

    def search(q):
        rng = random.Random(q)
        return [ContextItem(d.id, d.content, score=rng.random()) for d in rng.sample(docs, 60)]

    engine = ContextEngine(
        [StaticSource("Be brief.", pinned=True, name="sys"), CallableSource(search, name="search", blocking=False)],
        budget=800,
    )
    queries = [f"question {i}" for i in range(64)]
    parallel = engine.build_many(queries, max_workers=8)
    sequential = [engine.build_sync(q) for q in queries]
    for p, s in zip(parallel, sequential):
        assert p.to_text() == s.to_text()
        assert [(e.id, e.reason, e.final) for e in p.trace] == [(e.id, e.reason, e.final) for e in s.trace]
    assert len({w.to_text() for w in parallel}) > 1


def test_build_many_with_blocking_sources_history_and_a_scorer_matches_sequential_builds():
    # each worker thread runs its own event loop (blocking source on a thread, the scorer's
    # call): shared state is the estimator's cache and the history source's unit cache
    from ctxsieve import HistorySource, LLMScorer

    docs = [item(f"d{i}", tokens=None, content=text(i, 20)) for i in range(200)]

    def search(q):
        rng = random.Random(q)
        return [ContextItem(d.id, d.content, score=rng.random()) for d in rng.sample(docs, 40)]

    messages = [{"role": "user" if k % 2 == 0 else "assistant", "content": text(1000 + k, 8)} for k in range(20)]
    engine = ContextEngine(
        [
            StaticSource("Be brief.", pinned=True, name="sys"),
            CallableSource(search, name="search"),
            HistorySource(messages),
        ],
        budget=900,
        scorer=LLMScorer(lambda prompt: "[" + ", ".join(str(k % 11) for k in range(20)) + "]", top_n=20),
    )
    queries = [f"question {i}" for i in range(48)]
    parallel = engine.build_many(queries, max_workers=12)
    sequential = [engine.build_sync(q) for q in queries]
    for p, s in zip(parallel, sequential):
        assert p.trace.events == [] and p.to_text() == s.to_text()
        assert [(e.id, e.reason, e.final) for e in p.trace] == [(e.id, e.reason, e.final) for e in s.trace]
    assert any(a.startswith("llm ") for w in parallel for e in w.trace for a in e.adjustments)


item_strategy = st.builds(
    lambda i, score, tokens, pinned, stab, src: item(
        f"i{i}", score, tokens=tokens, stability=stab, source=src, content=text(i % 7, 6) + f" {i}"
    ),
    st.integers(0, 10_000),
    st.floats(-5, 5, allow_nan=False),
    st.integers(0, 60),
    st.just(False),
    st.sampled_from(["stable", "session", "volatile"]),
    st.just(""),
)


@given(
    groups=st.lists(st.lists(item_strategy, max_size=12), min_size=1, max_size=4),
    budget=st.integers(1, 400),
    layout=st.sampled_from(["seed", "cache"]),
)
def test_window_invariants(groups, budget, layout):
    sources = [StaticSource(g, name=f"s{k}") for k, g in enumerate(groups)]
    engine = ContextEngine(sources, budget=budget, layout=layout)
    w = engine.build_sync("q")
    proposed = [i for g in groups for i in g]
    # one entry per proposed item, in proposal order; the window is exactly the included ones
    assert [e.id for e in w.trace] == [i.id for i in proposed]
    assert sorted(i.id for i in w.items) == sorted(e.id for e in w.trace if e.included)
    assert w.tokens_used == sum(e.tokens for e in w.trace if e.included) + w.framing_tokens <= budget
    # rebuilding gives the same window, byte for byte
    assert engine.build_sync("q").to_text() == w.to_text()
    # stable items open the window
    stabilities = [i.stability for i in w.items]
    assert stabilities == sorted(stabilities, key=["stable", "session", "volatile"].index)


def test_explain_cli_prints_the_trace(tmp_path, capsys):
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "apiVersion: ctxsieve/v1\nkind: ContextPolicy\nspec:\n  budget: 40\n  sources:\n"
        "    - {name: sys, type: static, text: 'Be brief.', pinned: true}\n"
        "    - {name: kb, type: static, text: ['" + "a long paragraph " * 5 + "', 'short'], kind: knowledge}\n",
        encoding="utf-8",
    )
    assert main(["explain", "--config", str(policy), "--query", "hello", "--format", "plain"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["id", "source", "kind", "raw", "calib", "final", "tokens", "in", "reason"]
    assert any(line.split()[0] == "kb:0" and line.split()[-1] == "budget" for line in lines[1:4])
    # sys 3 + a separator; short 2 + its wrapper 21; the system message's framing 4
    assert "2 of 3 items, 31/40 tokens" in out
    assert main(["explain", "--config", str(policy), "--query", "hello"]) == 0
    table = capsys.readouterr().out
    assert "kb:0" in table and "budget" in table and "pinned" in table
    assert main(["explain", "--config", str(policy), "--query", "hello", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["report"]["reasons"] == {"pinned": 1, "selected": 1, "budget": 1}
    assert main(["explain", "--config", str(tmp_path / "missing.yaml"), "--query", "q"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_explain_cli_imports_named_objects(tmp_path, capsys, monkeypatch):
    (tmp_path / "my_objects.py").write_text(
        "from ctxsieve import ContextItem\n"
        "def fetch(q):\n"
        "    return [ContextItem('hit-1', 'about ' + q)]\n"
        "OBJECTS = {'fetch': fetch}\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "apiVersion: ctxsieve/v1\nkind: ContextPolicy\nspec:\n  budget: 100\n  sources:\n"
        "    - {name: search, type: callable, fn: fetch}\n",
        encoding="utf-8",
    )
    args = ["explain", "--config", str(policy), "--query", "refunds", "--format", "plain", "--prompt"]
    assert main([*args, "--objects", "my_objects:OBJECTS"]) == 0
    out = capsys.readouterr().out
    assert "hit-1" in out and "about refunds" in out
    assert main([*args, "--objects", "my_objects"]) == 2
    assert "expected module:attribute" in capsys.readouterr().err
    assert main([*args, "--objects", "my_objects:fetch"]) == 2  # the function, not the mapping
    assert "'my_objects:fetch' is a function, not a mapping" in capsys.readouterr().err
    assert main(args) == 2
    assert "no object named 'fetch'" in capsys.readouterr().err


def test_a_tokenizers_counts_are_plain_ints_or_a_config_error_naming_it():
    import numpy as np

    kb = StaticSource([item("a", tokens=None), item("b", tokens=None)], name="kb")
    window = ContextEngine([kb], budget=1000, tokenizer=lambda ts: np.array([7] * len(ts))).build_sync("q")
    # two items of 7 + 7 (content, wrapper), and the context message's framing
    assert window.tokens_used == 28 + MESSAGE_FRAMING_TOKENS and type(window.tokens_used) is int
    json.dumps(window.report())  # numpy ints would not serialise
    generated = ContextEngine([kb], budget=1000, tokenizer=lambda ts: (3 for _ in ts)).build_sync("q")
    assert generated.tokens_used == 12 + MESSAGE_FRAMING_TOKENS
    for counts, message in (
        ([2.5, 1.0], "counts must be ints, got float"),
        ([-1, 3], "counts must be >= 0"),
        ([1], "returned 1 counts for 2 texts"),
        (None, "expected a list of counts"),
    ):
        engine = ContextEngine([kb], budget=1000, tokenizer=lambda ts, c=counts: c)
        with pytest.raises(ConfigError, match=f"(tokenizer|estimator) .*{message}"):
            engine.build_sync("q")
