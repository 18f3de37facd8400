"""What a turn hands out and keeps per model call: the admission, the call record, lineage."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ctxsieve.admission.errors import SnapshotError
from ctxsieve.admission.limits import InputLimit
from ctxsieve.admission.reports import ContextAssemblyReport, RequestUsage
from ctxsieve.admission.request import Request
from ctxsieve.errors import ConfigError


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


def checked_snapshot_store(store: Any) -> Any:
    """``store`` when it can save snapshots (or None); a path or URL is refused: stores are a
    layer below, so the caller opens one (nothing here ever opens a URL)."""
    if isinstance(store, (str, os.PathLike)):
        raise ConfigError(
            f"snapshot_store: pass a store, e.g. ctxsieve.stores.open_snapshot_store({str(store)!r}), not a path or URL"
        )
    if store is not None and not callable(getattr(store, "save_snapshot", None)):
        raise ConfigError(f"snapshot_store: expected an object with save_snapshot(), got {store!r}")
    return store


def persist_snapshot(
    store: Any, turn_id: str, call_index: int, request: Request, last: tuple[str, str] | None
) -> tuple[str | None, tuple[str, str] | None]:
    """Persist a changed prompt before its call; an unchanged one reuses its snapshot.

    Returns (snapshot id, (payload, id) to compare the next call with). Raises
    ``SnapshotError`` when the store fails: the call must then not happen.
    """
    if store is None:
        return None, last
    payload = request.payload()
    if last is not None and last[0] == payload:
        return last[1], last
    try:
        snapshot_id = store.save_snapshot(turn_id, call_index, payload)
    except Exception as exc:
        raise SnapshotError(
            f"could not persist the prompt of turn {turn_id} call {call_index} "
            f"({type(exc).__name__}: {exc}); the model call must not happen"
        ) from exc
    if not isinstance(snapshot_id, str) or not snapshot_id:
        raise SnapshotError(f"snapshot store returned {snapshot_id!r} instead of a snapshot id")
    return snapshot_id, (payload, snapshot_id)
