"""The dedupe memo an engine keeps across builds (issue 15): warm builds cost what changed.

Natively, ``kernels.dedupe``'s decisions can be made from a memo of the texts seen before:
each distinct text's shingles and the complete list of memo texts it matches, so a build
shingles and joins only the texts it has not seen and replays the visit over those lists
(``rust/dedupe_memo.rs``; docs/engine.md, "The dedupe memo"). The decisions are the cold
kernel's on every build: a build the memo cannot hold (too many texts or matching pairs, or
another build of the engine holding it at the same time) runs the cold kernel. The reference
backend has no memo and runs its cold dedupe: the two agree exactly, memo or not.

>>> memos = DedupeMemos()
>>> memo = memos.get(0.8)
>>> memo is None or memo.threshold == 0.8
True
"""

from __future__ import annotations

import threading
from typing import Any

from ctxsieve import kernels


class DedupeMemos:
    """One memo for the engine's dedupe threshold (a new one when the threshold changes); None
    on the reference backend."""

    def __init__(self) -> None:
        self._memo: Any = None
        self._lock = threading.Lock()

    def get(self, threshold: float) -> Any:
        """The native ``DedupeMemo`` for ``threshold``, or None without the native backend."""
        if kernels.backend() != "native":
            return None
        memo = self._memo
        if memo is not None and memo.threshold == threshold:
            return memo
        with self._lock:  # two builds on threads make one memo, not two
            if self._memo is None or self._memo.threshold != threshold:
                from ctxsieve._native import DedupeMemo

                self._memo = DedupeMemo(threshold)
            return self._memo

    def clear(self) -> None:
        """Forgets every text (a cold build starts from an empty memo; its counters stay)."""
        memo = self._memo
        if memo is not None:
            memo.clear()

    def stats(self) -> dict[str, int]:
        """The memo's counters (``DedupeMemo.stats``); empty when there is none."""
        memo = self._memo
        return {} if memo is None else dict(memo.stats())
