"""The configurations the eval compares, and the engine each one builds.

Every configuration sees the same sources with the same settings; only the policy, the layout
and (optionally) model rescoring change, so differences in the table come from them alone:

* ``system``: the assistant's instructions, pinned.
* ``okf_index``: the bundle's short index, pinned (stable, so it opens the cached prefix).
* ``rag``: the top chunks from the retriever (hybrid BM25 + MiniLM when the ``embed`` extra is
  installed, else BM25), as many as ``Depth`` gives for the budget.
* ``okf``: the top whole concepts of the bundle, ranked by the bundle's BM25, likewise.
* ``history``: the conversation so far; its newest unit always goes in.

Policies: ``everything`` is the control (``Everything(truncate=True)`` that also keeps
deprecated pages and skips deduplication: what stuffing the candidates in by score costs);
``fixed_slots`` the baseline most stacks run (a fixed share per source); ``scored_knapsack`` the
default (one budget, calibrated scores); ``density`` the knapsack with ``beta = DENSITY_BETA``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ctxsieve import Everything, FixedSlots, Policy, ScoredKnapsack
from ctxsieve.engine import ContextEngine
from ctxsieve.errors import ConfigError
from ctxsieve.eval.corpus import CorpusInfo
from ctxsieve.sources import HistorySource, OKFBundle, OKFIndexSource, OKFSource, RAGSource, SourceConfig, StaticSource

# Candidate depth. A fixed depth (10 chunks and 4 concepts, about 1,600 tokens on the shipped
# corpus) fits whole into a 2,000-token budget, so there a larger budget could not raise recall:
# retrieval, not the budget, capped it. The depth now follows the budget: candidates worth
# DEPTH_OVERSHOOT times the budget (RAG_SHARE of it chunks, the rest whole concepts), never fewer
# than the old fixed depth, and the policy decides what fits.
RAG_K = 10
OKF_LIMIT = 4
DEPTH_OVERSHOOT = 2.0
RAG_SHARE = 0.7
MAX_DEPTH = 500


@dataclass(frozen=True)
class Depth:
    """How many candidates each retrieval source proposes: fixed numbers, or None to follow the
    budget.

    >>> Depth().resolve(2000, chunk_tokens=50.0, page_tokens=200.0)
    (56, 6)
    >>> Depth(rag_k=10, okf_limit=4).resolve(2000, 50.0, 200.0)
    (10, 4)
    """

    rag_k: int | None = None
    okf_limit: int | None = None

    def resolve(self, budget: int, chunk_tokens: float, page_tokens: float) -> tuple[int, int]:
        # whole tokens: 0.3 * 4000 is 1200.0000000000002 in floats, and its ceil one page more
        want = math.ceil(DEPTH_OVERSHOOT * budget)
        rag_tokens = round(want * RAG_SHARE)
        rag = self.rag_k or min(MAX_DEPTH, max(RAG_K, math.ceil(rag_tokens / max(chunk_tokens, 1.0))))
        okf = self.okf_limit or min(MAX_DEPTH, max(OKF_LIMIT, math.ceil((want - rag_tokens) / max(page_tokens, 1.0))))
        return rag, okf


DENSITY_BETA = 0.5
# The fixed-slots baseline: shares of the budget per source (system and the index are pinned
# and split what is left). Chosen before running the eval, as a team would size its slots.
FIXED_SHARES = {"rag": 0.45, "okf": 0.2, "history": 0.25}
POLICY_NAMES = ("everything", "fixed_slots", "scored_knapsack", "density")
LAYOUT_NAMES = ("seed", "cache")
DEFAULT = "scored_knapsack/cache"

INSTRUCTIONS = (
    "Answer from the context pages only, in the language of the question, in at most three sentences. "
    "Cite page ids in brackets. If the pages do not answer the question, say that the knowledge base does not say."
)


def system_prompt(info: CorpusInfo) -> str:
    """The corpus's own prompt, else the eval's instructions introduced by its product (if any).

    >>> system_prompt(CorpusInfo(product="Acme", description="a billing tool"))[:58]
    'You are the support assistant of Acme, a billing tool. Ans'
    >>> system_prompt(CorpusInfo())[:40]
    'You are a support assistant. Answer from'
    """
    if info.system_prompt:
        return info.system_prompt
    if not info.product:
        return "You are a support assistant. " + INSTRUCTIONS
    about = f", {info.description}" if info.description else ""
    return f"You are the support assistant of {info.product}{about}. " + INSTRUCTIONS


@dataclass(frozen=True)
class EvalConfig:
    policy: str
    layout: str
    llm: bool = False

    def __post_init__(self) -> None:
        if self.policy not in POLICY_NAMES:
            raise ConfigError(f"eval policy: must be one of {', '.join(POLICY_NAMES)}, got {self.policy!r}")
        if self.layout not in LAYOUT_NAMES:
            raise ConfigError(f"eval layout: must be seed or cache, got {self.layout!r}")

    @property
    def name(self) -> str:
        return f"{self.policy}{'+llm' if self.llm else ''}/{self.layout}"

    def make_policy(self) -> Policy:
        if self.policy == "everything":
            return Everything(truncate=True, include_deprecated=True)
        if self.policy == "fixed_slots":
            return FixedSlots(FIXED_SHARES)
        if self.policy == "density":
            return ScoredKnapsack(beta=DENSITY_BETA)
        return ScoredKnapsack()

    @property
    def dedupe_threshold(self) -> float | None:
        return None if self.policy == "everything" else 0.8


def default_configs(llm: bool = False) -> list[EvalConfig]:
    """Every policy in both layouts; with ``llm``, the default policy rescored by the model too."""
    out = [EvalConfig(p, lay) for p in POLICY_NAMES for lay in LAYOUT_NAMES]
    if llm:
        out += [EvalConfig("scored_knapsack", lay, llm=True) for lay in LAYOUT_NAMES]
    return out


def parse_configs(names: Sequence[str], llm: bool = False) -> list[EvalConfig]:
    """``policy/layout`` names (``policy`` alone means both layouts)."""
    out: list[EvalConfig] = []
    for raw in names:
        policy, _, layout = raw.strip().partition("/")
        layouts = [layout] if layout else list(LAYOUT_NAMES)
        out += [EvalConfig(policy, lay) for lay in layouts]
    if llm:
        out += [EvalConfig("scored_knapsack", lay, llm=True) for lay in LAYOUT_NAMES]
    # a name given twice ("scored_knapsack,scored_knapsack/cache") would run twice into one row:
    # twice the calls, and a session's hashes compared across the two runs' boundary
    return list(dict.fromkeys(out))


def make_engine(
    config: EvalConfig,
    retriever: Any,
    bundle: OKFBundle,
    messages: Callable[[], list[dict[str, Any]]],
    budget: int,
    scorer: Any = None,
    instructions: str = "You are a support assistant. " + INSTRUCTIONS,
    depth: tuple[int, int] = (RAG_K, OKF_LIMIT),
) -> ContextEngine:
    """The engine for one configuration; ``messages`` returns the session's history so far,
    ``instructions`` is the system prompt (``system_prompt(corpus.info)``) and ``depth`` the
    number of chunks and concepts proposed (``Depth.resolve``)."""
    sources = [
        SourceConfig(StaticSource(instructions, name="system", pinned=True)),
        SourceConfig(OKFIndexSource(bundle)),
        SourceConfig(RAGSource(retriever, k=depth[0])),
        SourceConfig(OKFSource(bundle, limit=depth[1])),
        SourceConfig(HistorySource(messages)),
    ]
    return ContextEngine(
        sources,
        budget=budget,
        policy=config.make_policy(),
        layout=config.layout,
        dedupe_threshold=config.dedupe_threshold,
        scorer=scorer if config.llm else None,
    )
