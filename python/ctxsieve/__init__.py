"""ctxsieve decides what an LLM agent reads on every model call.

Sources propose candidates; ctxsieve estimates their cost, calibrates their scores, removes
near-duplicates, fills one token budget, orders the prompt for the provider's prefix cache,
admits or refuses the request before it is sent, and explains every decision.

The agent loop object is ``Conversation`` (``ctxsieve.conversation``): per model call it adds
the engine's context, admits the call and returns a ``Call`` rendered for OpenAI Chat, OpenAI
Responses or Anthropic (docs/conversation.md). The lower-level objects it is built from stay
importable from their layers: ``ctxsieve.engine.ContextSession`` (an append-only prompt of text
turns over an engine) and ``ctxsieve.admission.Session`` (the Mesh-style per-turn admission).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ctxsieve.admission import ContextBudgetError, Limits, RunLimits, SystemPrompt, Turn
from ctxsieve.conversation import CachePricing, Call, CompactionPolicy, Conversation
from ctxsieve.engine import ContextEngine, Gathered, Window
from ctxsieve.errors import BudgetExceededError, ConfigError, ContextError, MissingExtraError
from ctxsieve.kernels import backend
from ctxsieve.messages.providers import ProviderProfile
from ctxsieve.scorer import LLMScorer, openai_compatible
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
from ctxsieve.tokenizers.usage_calibrator import UsageCalibrator
from ctxsieve.types import Budget, ContextItem, ScoredItem, Signals, Trace, TraceEntry

if TYPE_CHECKING:  # annotations only: the package's namespace holds its own API and nothing else
    from collections.abc import Iterable, Mapping
    from typing import Any

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
    "CachePricing",
    "Call",
    "CallableSource",
    "CompactionPolicy",
    "ConfigError",
    "ContextBudgetError",
    "ContextEngine",
    "ContextError",
    "ContextItem",
    "Conversation",
    "Everything",
    "FixedSlots",
    "Gathered",
    "HistorySource",
    "LLMScorer",
    "Limits",
    "MissingExtraError",
    "OKFBundle",
    "OKFIndexSource",
    "OKFSource",
    "Policy",
    "ProviderProfile",
    "RAGSource",
    "RunLimits",
    "ScoredItem",
    "ScoredKnapsack",
    "Signals",
    "SourceConfig",
    "StaticSource",
    "SystemPrompt",
    "Trace",
    "TraceEntry",
    "Turn",
    "UsageCalibrator",
    "Window",
    "__version__",
    "backend",
    "load_engine",
    "openai_compatible",
]
