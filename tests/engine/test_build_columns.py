"""The build's column passes (issue 15) against the item-by-item definitions they replaced:
the framing reserve, inherited citations' costs, the whole prepare/complete on random
candidates with citations, history and duplicates, on both backends."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.stages.candidates import Candidates
from ctxsieve.stages.cost import SEPARATOR, _opens, framing_reserve, inherited_citations, rendered_costs
from ctxsieve.stages.dedupe import dedupe
from ctxsieve.stages.estimate import estimate
from ctxsieve.stages.render import wrapper
from ctxsieve.tokenizers import resolve_estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS, ContextItem, Signals

WORDS = ["refund", "plan", "team", "days", "thirty", "policy", "within", "the", "of", "a"]


@st.composite
def candidates(draw: st.DrawFn) -> Candidates:
    n = draw(st.integers(0, 14))
    items = []
    for k in range(n):
        kind = draw(st.sampled_from(["knowledge", "history", "instruction", "memory"]))
        text = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=9)))
        cite = draw(st.sampled_from([None, None, 'a "cite" & <b>', "doc-7"]))
        sig = Signals(citation=cite, stale=draw(st.booleans()), trust=draw(st.sampled_from([None, "human-reviewed"])))
        extra = {"meta": {"role": "assistant"}} if kind == "history" and draw(st.booleans()) else {}
        items.append(
            ContextItem(
                draw(st.sampled_from([f"id{k}", "same"])),
                text,
                "kb",
                kind,  # type: ignore[arg-type]
                draw(st.sampled_from(["stable", "session", "volatile"])),  # type: ignore[arg-type]
                draw(st.floats(0, 1)),
                signals=sig,
                **extra,  # type: ignore[arg-type]
            )
        )
    cands = Candidates(items, [0] * n, ["kb"])
    cands.final = [it.score for it in items]
    return cands


@given(candidates(), st.sampled_from(["cache", "seed"]), st.data())
def test_framing_reserve_is_the_framing_of_the_open_items(cands: Candidates, layout: str, data: st.DataObject) -> None:
    for i in range(len(cands)):
        if data.draw(st.booleans()):
            cands.reasons[i] = "duplicate_of:x"
    open_items = [cands.items[i] for i, r in enumerate(cands.reasons) if r is None]
    assert framing_reserve(cands, layout) == MESSAGE_FRAMING_TOKENS * _opens(open_items, layout)


@given(candidates())
def test_costs_and_inherited_citations_match_the_item_by_item_definition(cands: Candidates) -> None:
    est = resolve_estimator("bytes/3")
    estimate(cands, est)
    content = list(cands.tokens)
    rendered_costs(cands, est)
    for i, it in enumerate(cands.items):
        if not it.kind == "history":
            head, tail = wrapper(it)
            assert cands.tokens[i] == (content[i] or 0) + est.one(head + tail + SEPARATOR)
    before = list(cands.tokens)
    if dedupe(cands, 0.8):
        inherited_citations(cands, est)
    for i, it in enumerate(cands.items):
        sig = cands.signals_of(i)  # its own merged with what it inherited
        grew = sig is not it.signals and sig.citation != it.signals.citation and not cands.history[i]
        if grew:
            old = "".join(wrapper(it)) + SEPARATOR
            new = "".join(wrapper(dataclasses.replace(it, signals=sig))) + SEPARATOR
            assert cands.tokens[i] == before[i] - est.one(old) + est.one(new)
        else:
            assert cands.tokens[i] == before[i]
