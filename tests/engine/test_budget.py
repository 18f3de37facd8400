"""Issue 13: the budget bounds what the engine renders for its context, not only the items' text.

Each item costs what it renders as (its ``<context ...>`` wrapper and the blank line that joins
it to the next block included; a history item its framed messages), and the messages the window
opens (system, context) cost their framing, reserved before the policy. Before this change
``examples/support-kb`` at ``budget=600`` rendered 742 estimated tokens (739 in the seed layout).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import (
    BudgetExceededError,
    ContextEngine,
    ContextItem,
    Everything,
    FixedSlots,
    OKFIndexSource,
    OKFSource,
    ScoredKnapsack,
    Signals,
    StaticSource,
)
from ctxsieve.stages.render import message_body
from ctxsieve.tokenizers import resolve_estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

KB = Path(__file__).resolve().parents[2] / "examples" / "support-kb"
SYSTEM = (
    "You are the support assistant of Lumen Notes. Answer from the knowledge base below and cite the"
    " concept you used. If the knowledge base does not answer, say so."
)
QUERY = "Can I get a refund after 3 weeks on the Team plan?"


def rendered_cost(window: Any, estimator: Any) -> int:
    """What the rendered context costs, counted from the messages themselves: per message its
    framing plus the estimate of what it carries (the query is the caller's, left out)."""
    messages = window.to_messages("openai", include_query=False)
    counts = estimator.count([message_body(m) for m in messages])
    return sum(MESSAGE_FRAMING_TOKENS + c for c in counts)


@pytest.mark.parametrize("layout", ["cache", "seed"])
def test_support_kb_at_600_renders_within_600(layout: str) -> None:
    # the engine of docs/engine.md on the example bundle: it rendered 742 (cache) and 739
    # (seed) estimated tokens for a budget of 600 when only the items' text was counted
    engine = ContextEngine(
        [
            StaticSource(SYSTEM, kind="instruction", stability="stable", pinned=True, name="system"),
            OKFIndexSource(KB),
            OKFSource(KB, limit=10),
        ],
        budget=600,
        layout=layout,
    )
    window = engine.build_sync(QUERY)
    rendered = rendered_cost(window, engine.estimator)
    assert rendered <= 600, f"{rendered} estimated tokens rendered for a budget of 600"
    assert rendered <= window.tokens_used <= 600
    assert len(window.items) >= 3  # the pinned system prompt, the index and at least one concept
    # it is a bound, not a waste: what the engine charges is within 2 tokens per item of it
    assert window.tokens_used - rendered <= 2 * len(window.items)


# A small vocabulary so that near-duplicates, wrappers with odd characters and long texts all occur.
words = st.sampled_from(["refund", "plan", "team", "é", "\U0001f600", "<ctx>", '"q"', "&amp;", "x" * 40])
texts = st.lists(words, min_size=0, max_size=30).map(" ".join)
ids = st.text(alphabet='ab<"&\u00e9\U0001f600', min_size=1, max_size=6)
messages = st.lists(
    st.one_of(
        st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]), "content": texts}),
        st.fixed_dictionaries(
            {
                "role": st.just("assistant"),
                "content": st.none(),
                "tool_calls": st.just([{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]),
            }
        ),
        st.fixed_dictionaries(
            {
                "role": st.just("user"),
                "content": st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": texts})),
            }
        ),
    ),
    min_size=1,
    max_size=3,
)


@st.composite
def candidate(draw: Any, k: int) -> ContextItem:
    kind = draw(st.sampled_from(["instruction", "knowledge", "memory", "tool_result", "history"]))
    meta = {"messages": draw(messages)} if kind == "history" and draw(st.booleans()) else {}
    return ContextItem(
        f"{draw(ids)}{k}",
        draw(texts),
        kind=kind,
        stability=draw(st.sampled_from(["stable", "session", "volatile"])),
        score=draw(st.floats(-3, 3)),
        # a source's own count is trusted for the content; the engine adds what it wraps around it
        tokens=None,
        signals=Signals(citation=draw(st.sampled_from([None, "kb/a.md", 'odd "cite" <x>']))),
        pinned=draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans()),
        order_key=f"{k:04d}",
        meta=meta,
    )


@st.composite
def sources(draw: Any) -> list[StaticSource]:
    groups = draw(st.lists(st.integers(0, 8), min_size=1, max_size=4))
    out, k = [], 0
    for g, n in enumerate(groups):
        items = [draw(candidate(k + j)) for j in range(n)]
        k += n
        out.append(StaticSource(items, name=f"s{g}"))
    return out


@given(
    srcs=sources(),
    budget=st.integers(1, 600),
    layout=st.sampled_from(["cache", "seed"]),
    policy=st.sampled_from(
        [ScoredKnapsack(), ScoredKnapsack(beta=1), Everything(truncate=True), FixedSlots({"s0": 0.5})]
    ),
    estimator=st.sampled_from(["bytes/3", "bytes/4", "calibrated:o200k"]),
)
def test_the_rendered_context_never_exceeds_the_budget(
    srcs: list[StaticSource], budget: int, layout: str, policy: Any, estimator: str
) -> None:
    engine = ContextEngine(srcs, budget=budget, layout=layout, policy=policy, estimator=estimator)
    try:
        window = engine.build_sync("q")
    except BudgetExceededError as exc:
        # only pinned items may refuse to fit, and then they alone are over the budget
        assert exc.budget == budget
        return
    rendered = rendered_cost(window, resolve_estimator(estimator))
    assert rendered <= budget
    assert rendered <= window.tokens_used <= budget
    assert window.tokens_used == sum(s.tokens for s in window.scored) + window.framing_tokens
    # the trace's tokens column is the same rendered cost
    assert {e.id: e.tokens for e in window.trace if e.included} == {s.item.id: s.tokens for s in window.scored}


def test_a_session_call_renders_what_it_adds_within_the_budget() -> None:
    kb = StaticSource([ContextItem(f"k{i}", f"Refund rule {i}: " + "within thirty days. " * 6) for i in range(12)])
    engine = ContextEngine(
        [StaticSource(SYSTEM, kind="instruction", stability="stable", pinned=True, name="system"), kb], budget=300
    )
    first = engine.session().build_sync(QUERY)
    system, context = first.to_messages("openai", include_query=False)
    counts = engine.estimator.count([system["content"], context["content"]])
    assert 2 * MESSAGE_FRAMING_TOKENS + sum(counts) <= first.tokens_used <= 300


def test_a_budget_the_framing_fills_leaves_everything_out() -> None:
    engine = ContextEngine([StaticSource([ContextItem("k", "x")], name="kb")], budget=MESSAGE_FRAMING_TOKENS)
    window = engine.build_sync("q")
    assert window.items == [] and window.tokens_used == 0 and window.trace.entry("k").reason == "budget"
    pinned = ContextEngine([StaticSource("Be brief.", pinned=True, name="sys")], budget=MESSAGE_FRAMING_TOKENS)
    with pytest.raises(BudgetExceededError, match="taken by 4 tokens of message framing") as info:
        pinned.build_sync("q")
    assert info.value.budget == MESSAGE_FRAMING_TOKENS and info.value.items[0][0] == "sys:0"


def test_the_trace_reports_the_rendered_cost_of_each_item() -> None:
    item = ContextItem("faq-1", "Refunds are accepted within 30 days.", "faq")
    window = ContextEngine([StaticSource([item], name="faq")], budget=100).build_sync("q")
    (block,) = window.rendered.context.split("\n\n")
    est = resolve_estimator("bytes/3")
    # the content's estimate plus its wrapper's (and the separator's), counted apart
    content, around = est.count([item.content, block.replace(item.content, "") + "\n\n"])
    assert window.trace.entry("faq-1").tokens == content + around
    assert est.count([block])[0] <= content + around <= est.count([block])[0] + 2
