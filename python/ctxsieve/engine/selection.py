"""Step two of a build: the stages, from gathered candidates to a ``Window``.

``prepare`` makes the build's columns (``Candidates``), estimates what each costs as rendered
(``stages.cost``: the budget bounds the rendered context, not only the items' text) and
calibrates them; the optional model rescoring runs next (``ContextEngine.select``/``aselect``
decide where); ``complete`` deduplicates, lets the caller mark what it already shows (``mark``,
a session's or a conversation's hook), reserves the framing of the messages the window may
open, fills the rest of the budget with the policy, orders for the prefix cache and makes the
window. Everything here is a pure function of the candidates: the same candidates and the
same policy give the same window, byte for byte.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from ctxsieve.engine.gather import Gathered
from ctxsieve.engine.window import Window
from ctxsieve.stages.calibrate import calibrate
from ctxsieve.stages.candidates import Candidates
from ctxsieve.stages.columns_memo import ColumnsMemo
from ctxsieve.stages.cost import costs, framing, framing_reserve, inherited_citations
from ctxsieve.stages.dedupe import dedupe
from ctxsieve.stages.order import order
from ctxsieve.stages.policies import Policy
from ctxsieve.stages.render import stable_block, stable_prefix_hash
from ctxsieve.stages.select import select
from ctxsieve.tokenizers import Estimator
from ctxsieve.types import Budget, ContextItem, Layout, Trace

# What ``select``'s ``mark`` receives: the candidates after dedupe (it writes reasons into
# ``cands.reasons`` for what it decides) and the build's event list (it may append to it).
Mark = Callable[[Candidates, list[str]], None]

# From this many candidates on, ``aselect`` runs the stages off the event loop.
OFFLOAD_AT = 2000


def prepare(
    gathered: Gathered,
    names: Sequence[str],
    estimator: Estimator,
    weights: list[float],
    modes: list[str],
    memo: ColumnsMemo | None = None,
) -> Candidates:
    """The columns of ``gathered``'s candidates, estimated and calibrated. ``memo``: the
    engine's columns of its previous build (``stages.columns_memo``), reused for every item
    proposed again."""
    if memo is not None:
        cands = memo.candidates(gathered.items, names, estimator, gathered.readers)
    else:
        items: list[ContextItem] = []
        ranks: list[int] = []
        for k, lst in enumerate(gathered.items):
            items += lst
            ranks += [k] * len(lst)
        cands = Candidates(items, ranks, names, gathered.readers)
        costs(cands, estimator)  # what the window renders for each: the budget's unit
    calibrate(cands, weights, modes)
    return cands


def complete(
    cands: Candidates,
    query: str,
    events: list[str],
    *,
    budget: Budget,
    policy: Policy,
    dedupe_threshold: float | None,
    layout: Layout,
    estimator: Estimator,
    mark: Mark | None = None,
    dedupe_memo: Any = None,
) -> Window:
    """Deduplicate, mark, fill, order: the window of ``cands``. ``dedupe_memo``: the engine's
    memo of earlier builds' texts for ``dedupe_threshold`` (``stages.dedupe_memo``), or None."""
    if dedupe(cands, dedupe_threshold, dedupe_memo):
        inherited_citations(cands, estimator)  # a kept copy's wrapper may now carry a citation
    if mark is not None:
        mark(cands, events)  # before the policy: what the caller already shows costs no budget
    # the messages the window may open are reserved first: the budget bounds the rendered context
    included = select(cands, policy, budget, framing_reserve(cands, layout))
    ordered = order(cands, included)
    inherited = cands.inherited
    for i in ordered:
        if i in inherited:
            # the kept copy of a duplicate carries the signals it inherited into the window
            cands.items[i] = dataclasses.replace(cands.items[i], signals=cands.signals_of(i))
    items = [cands.items[i] for i in ordered]
    scored = [cands.scored(i) for i in ordered]
    stable = stable_block(items)
    framed = framing(items, layout)
    return Window(
        query=query,
        items=items,
        scored=scored,
        tokens_used=sum(s.tokens for s in scored) + framed,
        budget=budget.total,
        trace=Trace(events=events, columns=cands),
        layout=layout,
        stable_prefix_hash=stable_prefix_hash(stable),
        stable_prefix_tokens=estimator.count([stable])[0] if stable else 0,
        readers=cands.readers,
        framing_tokens=framed,
    )
