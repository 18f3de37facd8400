"""The configurations the eval compares, and the engine each one builds.

Every configuration sees the same sources with the same settings; only the policy, the layout
and (optionally) model rescoring change, so differences in the table come from them alone:

* ``system``: the assistant's instructions, pinned.
* ``okf_index``: the bundle's short index, pinned (stable, so it opens the cached prefix).
* ``rag``: the top ``RAG_K`` chunks from the retriever (BM25 by default).
* ``okf``: the top ``OKF_LIMIT`` whole concepts of the bundle, ranked by the bundle's BM25.
* ``history``: the conversation so far; its newest unit always goes in.

Policies: ``everything`` is the control (``Everything(truncate=True)`` that also keeps
deprecated pages and skips deduplication: what stuffing the candidates in by score costs);
``fixed_slots`` the baseline most stacks run (a fixed share per source); ``scored_knapsack`` the
default (one budget, calibrated scores); ``density`` the knapsack with ``beta = DENSITY_BETA``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ctxsieve.engine import ContextEngine
from ctxsieve.errors import ConfigError
from ctxsieve.sources import HistorySource, OKFBundle, OKFIndexSource, OKFSource, RAGSource, SourceConfig, StaticSource
from ctxsieve.stages.policies import Everything, FixedSlots, Policy, ScoredKnapsack

RAG_K = 10
OKF_LIMIT = 4
DENSITY_BETA = 0.5
# The fixed-slots baseline: shares of the budget per source (system and the index are pinned
# and split what is left). Chosen before running the eval, as a team would size its slots.
FIXED_SHARES = {"rag": 0.45, "okf": 0.2, "history": 0.25}
POLICY_NAMES = ("everything", "fixed_slots", "scored_knapsack", "density")
LAYOUT_NAMES = ("seed", "cache")
DEFAULT = "scored_knapsack/cache"

SYSTEM_PROMPT = (
    "You are the support assistant of Tessel, a shift-scheduling product. Answer from the context "
    "pages only, in the language of the question, in at most three sentences. Cite page ids in "
    "brackets. If the pages do not answer the question, say that the knowledge base does not say."
)


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
    return out


def make_engine(
    config: EvalConfig,
    retriever: Any,
    bundle: OKFBundle,
    messages: Callable[[], list[dict[str, Any]]],
    budget: int,
    scorer: Any = None,
) -> ContextEngine:
    """The engine for one configuration; ``messages`` returns the session's history so far."""
    sources = [
        SourceConfig(StaticSource(SYSTEM_PROMPT, name="system", pinned=True)),
        SourceConfig(OKFIndexSource(bundle)),
        SourceConfig(RAGSource(retriever, k=RAG_K)),
        SourceConfig(OKFSource(bundle, limit=OKF_LIMIT)),
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
