"""``Session``: what the turns of one conversation share (limits, cost cache, totals, store).

>>> s = Session(Limits(input_ceiling=50_000))
>>> s.turn("hi").admit().report.limit["input_limit"]
50000
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ctxsieve.admission.accounting import Accountant
from ctxsieve.admission.calls import checked_snapshot_store
from ctxsieve.admission.context import SystemPrompt
from ctxsieve.admission.events import EventCallback, Events
from ctxsieve.admission.limits import (
    InputLimit,
    Limits,
    WindowLookup,
    resolve_input_limit,
    resolve_input_limit_async,
)
from ctxsieve.admission.reports import UsageTotals
from ctxsieve.admission.runlimits import RunBudget, RunLimits
from ctxsieve.admission.turn import Turn
from ctxsieve.tokenizers import EstimatorLike


class Session:
    """Shared state of a conversation's turns.

    ``snapshot_store`` is a ``SnapshotStore`` (``save_snapshot(turn_id, call_index, payload)``),
    e.g. ``ctxsieve.stores.open_snapshot_store(path_or_url)``; a path or URL is refused, as
    stores are a layer below admission and the session never opens one.
    ``window_lookup(model)`` returns the model's context window (sync or async, or None).
    """

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        window_lookup: WindowLookup | None = None,
        estimator: EstimatorLike = None,
        snapshot_store: Any = None,
        on_event: EventCallback | None = None,
        run_limits: RunLimits | None = None,
    ):
        self.limits = limits or Limits()
        self.window_lookup = window_lookup
        self.accountant = Accountant(estimator if estimator is not None else self.limits.tokenizer)
        self.snapshot_store = checked_snapshot_store(snapshot_store)
        self.events = Events(on_event)
        self.run_limits = run_limits or RunLimits()
        self.usage = UsageTotals()
        self.turns = 0
        self.last_turn: UsageTotals | None = None
        self._windows: dict[str, InputLimit] = {}

    def turn(
        self,
        user: Any,
        *,
        system: str | SystemPrompt = "",
        history: Sequence[Any] = (),
        memories: Sequence[Any] = (),
        tools: Sequence[Mapping[str, Any]] = (),
        skills: Sequence[Any] = (),
        labels: Mapping[str, str] | None = None,
        attribution: str | None = None,
        audience: Any = None,
        model: str | None = None,
        turn_id: str | None = None,
        run: RunBudget | RunLimits | None = None,
    ) -> Turn:
        """Start a turn for the user message ``user`` (text, an OpenAI/Anthropic dict or a Message)."""
        return Turn(
            self,
            user,
            system=system,
            history=history,
            memories=memories,
            tools=tools,
            skills=skills,
            labels=labels,
            attribution=attribution,
            audience=audience,
            model=model,
            turn_id=turn_id,
            run=run,
        )

    # window metadata: successful lookups are reused across turns; failures are retried per turn
    # (``turn_cache`` is the turn's own map, so one turn never waits twice for one model)
    def input_limit(self, model: str | None, turn_cache: dict[str, InputLimit]) -> InputLimit:
        key = model or ""
        if key not in turn_cache:
            got = self.cached_window(model) or resolve_input_limit(self.limits, model, self.window_lookup)
            turn_cache[key] = got
            self.remember_window(model, got)
        return turn_cache[key]

    async def input_limit_async(self, model: str | None, turn_cache: dict[str, InputLimit]) -> InputLimit:
        key = model or ""
        if key not in turn_cache:
            got = self.cached_window(model) or await resolve_input_limit_async(self.limits, model, self.window_lookup)
            turn_cache[key] = got
            self.remember_window(model, got)
        return turn_cache[key]

    def cached_window(self, model: str | None) -> InputLimit | None:
        hit = self._windows.get(model or "")
        return replace(hit, lookup="cached") if hit is not None else None

    def remember_window(self, model: str | None, limit: InputLimit) -> None:
        if limit.lookup == "ok":
            self._windows[model or ""] = limit

    def finish_turn(self, totals: UsageTotals) -> None:
        self.turns += 1
        self.last_turn = totals

    def usage_report(self) -> dict[str, Any]:
        """The last turn's usage, and session totals once there is more than one turn."""
        out: dict[str, Any] = {
            "turns": self.turns,
            "last_turn": vars(self.last_turn).copy() if self.last_turn else None,
        }
        if self.turns > 1:
            out["session"] = vars(self.usage).copy()
        return out
