"""What a turn reads of its session, and what the assembly report reads of a turn, as
protocols: ``turn`` and ``assembly`` depend on these shapes, not on ``Session`` and ``Turn``
themselves, so no admission module imports another in a cycle (``Session`` creates ``Turn``,
``Turn`` renders through ``assembly``). mypy checks that ``Session`` and ``Turn`` satisfy them
where they are passed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ctxsieve.admission.accounting import Accountant
from ctxsieve.admission.events import Events
from ctxsieve.admission.limits import InputLimit, Limits
from ctxsieve.admission.prepared import Prepared
from ctxsieve.admission.reports import UsageTotals
from ctxsieve.admission.runlimits import RunLimits


class SessionState(Protocol):
    """The shared state of a conversation's turns that a ``Turn`` uses (``Session`` is one)."""

    limits: Limits
    accountant: Accountant
    snapshot_store: Any
    events: Events
    run_limits: RunLimits
    usage: UsageTotals

    def input_limit(self, model: str | None, turn_cache: dict[str, InputLimit]) -> InputLimit: ...

    async def input_limit_async(self, model: str | None, turn_cache: dict[str, InputLimit]) -> InputLimit: ...

    def finish_turn(self, totals: UsageTotals) -> None: ...


class TurnState(Protocol):
    """What the assembly report and the drop event read of a turn (``Turn`` is one)."""

    @property
    def turn_id(self) -> str: ...

    @property
    def session(self) -> SessionState: ...

    @property
    def prepared(self) -> Prepared: ...

    @property
    def call_index(self) -> int: ...

    @property
    def attempt(self) -> int: ...

    @property
    def messages(self) -> Sequence[Any]: ...

    @property
    def notes(self) -> Sequence[str]: ...
