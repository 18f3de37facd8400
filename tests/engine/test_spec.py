"""kind: ContextPolicy YAML: a working document, and errors that name their path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ctxsieve import ConfigError, Everything, FixedSlots, ScoredKnapsack, load_engine
from ctxsieve.sources import HistorySource, OKFSource, RAGSource, StaticSource

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

GOOD = """
apiVersion: ctxsieve/v1
kind: ContextPolicy
metadata: {name: test}
spec:
  budget: 900
  layout: seed
  policy: {type: scored_knapsack, beta: 0.5, min_score: 0.1}
  sources:
    - {name: system, type: static, text: "Be brief.", pinned: true}
    - {name: kb, type: okf, path: kb, limit: 4, weight: 1.5, mode: blend}
    - {name: rag, type: rag, pipeline: retriever, k: 7, max_tokens: 300, timeout: 2}
    - {name: history, type: history, messages: conversation, min_items: 2}
"""


def write(tmp_path, text):
    p = tmp_path / "policy.yaml"
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


class Retriever:
    async def query(self, q, k):
        return []


@pytest.fixture
def kb(tmp_path):
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "a.md").write_text("---\ntitle: A\n---\nalpha beta", encoding="utf-8")


def test_a_policy_builds_the_engine_it_describes(tmp_path, kb):
    conversation = [{"role": "user", "content": "hi"}]
    engine = load_engine(write(tmp_path, GOOD), {"retriever": Retriever(), "conversation": conversation})
    assert engine.budget.total == 900 and engine.layout == "seed"
    assert isinstance(engine.policy, ScoredKnapsack) and engine.policy.beta == 0.5 and engine.policy.min_score == 0.1
    sources = [c.source for c in engine.configs]
    assert [type(s) for s in sources] == [StaticSource, OKFSource, RAGSource, HistorySource]
    assert sources[1].limit == 4 and sources[2].k == 7
    assert engine.configs[1].weight == 1.5 and engine.configs[1].mode == "blend"
    assert engine.budget.caps == {"rag": 300} and engine.budget.min_items == {"history": 2}
    assert engine.configs[2].timeout == 2
    window = engine.build_sync("alpha")
    assert {i.id for i in window.items} == {"system:0", "a", "history:0"}


def test_other_policies(tmp_path, kb):
    slots = GOOD.replace("{type: scored_knapsack, beta: 0.5, min_score: 0.1}", "{type: fixed_slots, shares: {kb: 0.5}}")
    objs = {"retriever": Retriever(), "conversation": []}
    assert isinstance(load_engine(write(tmp_path, slots), objs).policy, FixedSlots)
    every = GOOD.replace("{type: scored_knapsack, beta: 0.5, min_score: 0.1}", "{type: everything, truncate: true}")
    policy = load_engine(write(tmp_path, every), objs).policy
    assert isinstance(policy, Everything) and policy.truncate


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("weight: 1.5", "weight: heavy", "spec.sources[1].weight: must be a number"),
        ("weight: 1.5", "weight: -1", "spec.sources[1].weight: Input should be greater than or equal to 0"),
        ("k: 7", "k: 7, colour: red", "spec.sources[2].colour: unknown key"),
        ("budget: 900", "budget: 0", "spec.budget: Input should be greater than 0"),
        ("budget: 900", "budget: lots", "spec.budget: must be an integer"),
        ("  budget: 900\n", "", "spec.budget: is required"),
        ("layout: seed", "layout: fastest", "spec.layout: Input should be 'seed' or 'cache'"),
        ("mode: blend", "mode: cosine", "spec.sources[1].mode: Input should be"),
        ("type: okf,", "type: graph,", "spec.sources[1]: Input tag 'graph' found using 'type' does not match"),
        ("beta: 0.5", "beta: -0.5", "spec.policy.beta: Input should be greater than or equal to 0"),
        ("metadata: {name: test}", "metadata: {name: test}\nextra: 1", "extra: unknown key"),
        ("apiVersion: ctxsieve/v1", "apiVersion: v2", "apiVersion: Input should be 'ctxsieve/v1'"),
        ("kind: ContextPolicy", "kind: Policy", "kind: Input should be 'ContextPolicy'"),
    ],
)
def test_errors_name_their_path(tmp_path, kb, old, new, error):
    assert old in GOOD
    with pytest.raises(ConfigError) as info:
        load_engine(write(tmp_path, GOOD.replace(old, new, 1)), {"retriever": Retriever(), "conversation": []})
    assert error in str(info.value), str(info.value)


def test_every_error_is_listed(tmp_path, kb):
    text = GOOD.replace("weight: 1.5", "weight: x").replace("k: 7", "k: 0")
    with pytest.raises(ConfigError) as info:
        load_engine(write(tmp_path, text), {})
    assert info.value.errors == [  # type: ignore[attr-defined]
        "spec.sources[1].weight: must be a number",
        "spec.sources[2].k: Input should be greater than 0",
    ]


@pytest.mark.parametrize(
    ("old", "new", "objects", "error"),
    [
        ("budget: 900", "budget: 900", {"conversation": []}, "spec.sources[2].pipeline: no object named 'retriever'"),
        ("path: kb", "path: missing", None, "spec.sources[1] (kb): OKF bundle"),
        ("layout: seed", "tokenizer: words/2", None, "spec.tokenizer: "),
        ("{name: kb, type: okf", "{name: system, type: okf", None, "duplicate source name 'system'"),
        (
            "{type: scored_knapsack, beta: 0.5, min_score: 0.1}",
            "{type: fixed_slots, shares: {a: 0.7, b: 0.7}}",
            None,
            "spec.policy: shares: must sum to at most 1",
        ),
    ],
)
def test_errors_found_while_building_name_their_path(tmp_path, kb, old, new, objects, error):
    objs = objects if objects is not None else {"retriever": Retriever(), "conversation": []}
    text = GOOD.replace(old, new, 1)
    with pytest.raises(ConfigError) as info:
        load_engine(write(tmp_path, text), objs)
    assert error in str(info.value), str(info.value)


def test_unreadable_and_invalid_yaml(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_engine(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_engine(write(tmp_path, "spec: [unclosed"))


def test_the_example_policy_loads():
    import sys

    sys.path.insert(0, str(EXAMPLES))
    try:
        import quickstart
    finally:
        sys.path.remove(str(EXAMPLES))
    engine = load_engine(EXAMPLES / "support-policy-rag.yaml", quickstart.OBJECTS)
    window = engine.build_sync("Can I get a refund after 3 weeks on the Team plan?")
    assert "billing/refund-policy" in {i.id for i in window.items}
    assert window.trace.entry("billing/refund-policy-2024#0").reason == "deprecated"


def test_scorer_from_an_object_or_an_endpoint(tmp_path, kb, monkeypatch):
    objs = {"retriever": Retriever(), "conversation": [], "llm": lambda prompt: "[5]"}
    with_object = GOOD.replace("  sources:", "  scorer: {complete: llm, top_n: 3, alpha: 0.25}\n  sources:")
    scorer = load_engine(write(tmp_path, with_object), objs).scorer
    assert (scorer.top_n, scorer.alpha, scorer.complete) == (3, 0.25, objs["llm"])
    endpoint = "  scorer: {endpoint: {base_url: 'http://127.0.0.1:1/v1', model: m, api_key_env: TEST_KEY}}\n"
    text = GOOD.replace("  sources:", endpoint + "  sources:")
    monkeypatch.delenv("TEST_KEY", raising=False)
    allowed = {"allow_endpoints": ["http://127.0.0.1:1/v1/"], "allow_env": ["TEST_KEY"]}
    with pytest.raises(ConfigError, match=r"api_key_env: \$TEST_KEY is not set"):
        load_engine(write(tmp_path, text), objs, **allowed)
    monkeypatch.setenv("TEST_KEY", "sk-x")
    assert callable(load_engine(write(tmp_path, text), objs, **allowed).scorer.complete)
    # the caller's allow-lists, not the file, decide (tests/engine/test_policy_trust.py)
    with pytest.raises(ConfigError, match=r"base_url: 'http://127\.0\.0\.1:1/v1' is not an endpoint the caller"):
        load_engine(write(tmp_path, text), objs)
    both = GOOD.replace("  sources:", "  scorer: {}\n  sources:")
    with pytest.raises(ConfigError, match=r"^spec\.scorer: give exactly one of complete"):
        load_engine(write(tmp_path, both), objs)
    missing = GOOD.replace("  sources:", "  scorer: {complete: nobody}\n  sources:")
    with pytest.raises(ConfigError, match=r"^spec\.scorer\.complete: no object named 'nobody'"):
        load_engine(write(tmp_path, missing), objs)
    not_callable = GOOD.replace("  sources:", "  scorer: {complete: conversation}\n  sources:")
    with pytest.raises(ConfigError, match=r"^spec\.scorer: LLMScorer: complete must be callable"):
        load_engine(write(tmp_path, not_callable), objs)


def test_relative_tokenizer_files_are_found_next_to_the_policy(tmp_path, kb, monkeypatch):
    """``tokenizer: calibrated:<file>`` (and ``hf:``/``tiktoken:``/``sentencepiece:`` files) are
    read relative to the policy file, as source paths are, not to the working directory."""
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "mine.json").write_text('{"name": "mine", "costs": {"doc": 1000, "lower": 2000}}')
    policy = write(tmp_path, GOOD.replace("layout: seed", "layout: seed\n  tokenizer: calibrated:profiles/mine.json"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    engine = load_engine(policy, {"retriever": Retriever(), "conversation": []})
    assert engine.estimator.name == f"calibrated:{tmp_path / 'profiles' / 'mine.json'}"
    assert engine.estimator.count_batch(["abc"]) == [7]  # 1 + 3 * 2 tokens: the file's costs
    missing = write(tmp_path, GOOD.replace("layout: seed", "layout: seed\n  tokenizer: hf:tok/tokenizer.json"))
    with pytest.raises(ConfigError, match=rf"spec.tokenizer: .*{tmp_path / 'tok' / 'tokenizer.json'}"):
        load_engine(missing, {"retriever": Retriever(), "conversation": []})
