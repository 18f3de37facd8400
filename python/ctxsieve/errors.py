"""The exceptions ctxsieve raises. Every one derives from ``ContextError``."""

from __future__ import annotations


class ContextError(Exception):
    """Base class of every ctxsieve error."""


class ConfigError(ContextError, ValueError):
    """A configuration that can never work (bad budget, duplicate source names, unknown mode)."""


class BudgetExceededError(ContextError):
    """Content that must go in does not fit the budget.

    ``items`` lists ``(id, tokens)`` for each item that had to go in, ``budget`` is the limit.
    """

    def __init__(self, message: str, items: list[tuple[str, int]] | None = None, budget: int | None = None):
        super().__init__(message)
        self.items = list(items or [])
        self.budget = budget


class MissingExtraError(ContextError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""

    def __init__(self, extra: str, package: str, install: str | None = None):
        command = install or f"pip install 'ctxsieve[{extra}]'"
        super().__init__(f"{package} is not installed: {command}")
        self.extra = extra
        self.package = package
