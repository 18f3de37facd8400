"""ctxsieve decides what an LLM agent reads on every model call.

Sources propose candidates; ctxsieve estimates their cost, calibrates their scores, removes
near-duplicates, fills one token budget, orders the prompt for the provider's prefix cache,
admits or refuses the request before it is sent, and explains every decision.
"""

from __future__ import annotations

from ctxsieve.errors import BudgetExceededError, ConfigError, ContextError, MissingExtraError
from ctxsieve.kernels import backend
from ctxsieve.types import Budget, ContextItem, ScoredItem, Signals, Trace, TraceEntry, Window

__version__ = "0.1.0"

__all__ = [
    "Budget",
    "BudgetExceededError",
    "ConfigError",
    "ContextError",
    "ContextItem",
    "MissingExtraError",
    "ScoredItem",
    "Signals",
    "Trace",
    "TraceEntry",
    "Window",
    "__version__",
    "backend",
]
