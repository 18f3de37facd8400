"""ctxsieve decides what an LLM agent reads on every model call.

Sources propose candidates; ctxsieve estimates their cost, calibrates their scores, removes
near-duplicates, fills one token budget, orders the prompt for the provider's prefix cache,
admits or refuses the request before it is sent, and explains every decision.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from ctxsieve.admission import ContextBudgetError, Limits, RunLimits, Session, SystemPrompt, Turn
from ctxsieve.engine import ContextEngine
from ctxsieve.errors import BudgetExceededError, ConfigError, ContextError, MissingExtraError
from ctxsieve.kernels import backend
from ctxsieve.scorer import LLMScorer, openai_compatible
from ctxsieve.session import ContextSession
from ctxsieve.session_window import SessionCut, SessionWindow
from ctxsieve.sources import (
    CallableSource,
    HistorySource,
    OKFBundle,
    OKFIndexSource,
    OKFSource,
    RAGSource,
    SourceConfig,
    StaticSource,
)
from ctxsieve.stages.policies import Everything, FixedSlots, Policy, ScoredKnapsack
from ctxsieve.types import Budget, ContextItem, ScoredItem, Signals, Trace, TraceEntry, Window

__version__ = "0.1.0"


def load_engine(
    path: str | os.PathLike[str],
    objects: Mapping[str, Any] | None = None,
    *,
    allow_endpoints: Iterable[str] = (),
    allow_env: Iterable[str] = (),
) -> ContextEngine:
    """A ``ContextEngine`` from a ``kind: ContextPolicy`` YAML file (extra ``yaml``); see
    ``ctxsieve.spec``. Imported on call, so ``import ctxsieve`` never needs pydantic. The file
    may use a scorer endpoint only if its URL is in ``allow_endpoints`` and its key variable in
    ``allow_env`` (docs/security.md)."""
    from ctxsieve.spec import load_engine as load

    return load(path, objects, allow_endpoints=allow_endpoints, allow_env=allow_env)


__all__ = [
    "Budget",
    "BudgetExceededError",
    "CallableSource",
    "ConfigError",
    "ContextBudgetError",
    "ContextEngine",
    "ContextError",
    "ContextItem",
    "ContextSession",
    "Everything",
    "FixedSlots",
    "HistorySource",
    "LLMScorer",
    "Limits",
    "MissingExtraError",
    "OKFBundle",
    "OKFIndexSource",
    "OKFSource",
    "Policy",
    "RAGSource",
    "RunLimits",
    "ScoredItem",
    "ScoredKnapsack",
    "Session",
    "SessionCut",
    "SessionWindow",
    "Signals",
    "SourceConfig",
    "StaticSource",
    "SystemPrompt",
    "Trace",
    "TraceEntry",
    "Turn",
    "Window",
    "__version__",
    "backend",
    "load_engine",
    "openai_compatible",
]
