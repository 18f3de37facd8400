"""Errors raised by admission. Each derives from a ``ctxsieve.errors`` class."""

from __future__ import annotations

from collections.abc import Mapping

from ctxsieve.errors import BudgetExceededError, ContextError

# The order in which a breakdown is printed: the sections a person can act on first.
BREAKDOWN_ORDER = ("system", "skills", "tools", "messages", "memory", "history", "images", "overhead")


class ContextBudgetError(BudgetExceededError):
    """Required content alone does not fit the input limit; raised before any provider call.

    ``breakdown`` maps each section (system, tools, messages, memory, history, images, overhead)
    to its estimated tokens; ``limit`` is the input limit and ``limit_origin`` where it came from.
    """

    def __init__(self, breakdown: Mapping[str, int], limit: int, *, limit_origin: str, model: str | None = None):
        self.breakdown = dict(breakdown)
        self.limit = limit
        self.limit_origin = limit_origin
        self.model = model
        required = sum(self.breakdown.values())
        parts = ", ".join(f"{k} {self.breakdown[k]}" for k in BREAKDOWN_ORDER if self.breakdown.get(k))
        biggest = max(self.breakdown, key=lambda k: self.breakdown[k]) if self.breakdown else "none"
        where = f" for model {model!r}" if model else ""
        message = (
            f"required content needs {required} estimated tokens but the input limit{where} is {limit} "
            f"({limit_origin}); breakdown: {parts}. The largest part is {biggest!r}: shrink it (fewer images, "
            "shorter tool results or system prompt, fewer tool schemas) or raise Limits.input_ceiling / "
            "choose a model with a larger window."
        )
        super().__init__(message, items=list(self.breakdown.items()), budget=limit)
        self.required = required


class RunLimitError(ContextError):
    """A run allowance (model calls, tool calls, tokens, wall time) is used up."""

    def __init__(self, allowance: str, used: float, limit: float):
        super().__init__(
            f"run limit reached: {allowance} used {used:g} of {limit:g}; no further model call is admitted"
        )
        self.allowance = allowance
        self.used = used
        self.limit = limit


class SnapshotError(ContextError):
    """The assembled prompt could not be persisted, so the model call must not happen."""


class AudienceError(ContextError):
    """Required content (the current message, a message the loop adds to the turn) carries an
    audience that does not include every reader of the call. Optional content the readers may
    not see is left out; required content cannot be, so it is refused and never sent. The
    message names where, never the labels (they are identities)."""


class TurnStateError(ContextError):
    """The turn was used out of order (e.g. ``admit`` after ``finish``)."""
