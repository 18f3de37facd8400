"""What a turn hands out and keeps per model call: the admission, the call record, lineage."""

from __future__ import annotations

from dataclasses import dataclass

from ctxsieve.admission.limits import InputLimit
from ctxsieve.admission.reports import ContextAssemblyReport, RequestUsage
from ctxsieve.admission.request import Request


@dataclass(frozen=True)
class Admission:
    """One admitted call: send ``request``; ``report`` says what is in it and why."""

    request: Request
    report: ContextAssemblyReport
    call_index: int
    attempt: int
    snapshot_id: str | None
    limit: InputLimit
    breakdown: dict[str, int]


@dataclass
class CallRecord:
    """A model call of the turn; ``snapshot_id`` names the snapshot of the prompt it used."""

    call_index: int
    attempt: int
    model: str | None
    snapshot_id: str | None
    estimated_input_tokens: int
    usage: RequestUsage | None = None


@dataclass(frozen=True)
class LineageEntry:
    """Evidence a call of this turn included; kept even when a later call prunes it."""

    id: str
    source: str
    first_call: int
