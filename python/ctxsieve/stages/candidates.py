"""The candidates of one build, held as columns.

Every stage reads and writes these parallel lists instead of per-item objects: the kernels take
lists, so each stage crosses the native boundary once, and a build over 100k candidates pays
for a handful of list comprehensions rather than 100k intermediate objects. ``ScoredItem`` and
``TraceEntry`` rows are made only for what a caller actually reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxsieve.types import ContextItem, ScoredItem, Signals, TraceEntry


class Candidates:
    """Parallel columns over ``items``; ``source_rank[i]`` is the index of item i's source in
    the engine's source list and ``sources[i]`` its name. ``reasons[i]`` stays None until a
    stage decides the item's fate. ``readers`` is who the build is for: every item here is one
    they may see (the engine left the others out before making the columns)."""

    __slots__ = (
        "adjustments",
        "calibrated",
        "deprecated",
        "final",
        "history",
        "ids",
        "items",
        "pinned",
        "raw",
        "readers",
        "reasons",
        "signals",
        "source_rank",
        "sources",
        "texts",
        "tokens",
    )

    def __init__(
        self,
        items: list[ContextItem],
        source_rank: list[int],
        source_names: Sequence[str],
        readers: frozenset[str] | None = None,
    ):
        n = len(items)
        self.readers = readers
        self.items = items
        self.source_rank = source_rank
        self.sources = [source_names[r] for r in source_rank]
        # one comprehension per column: building per-item tuples instead (attrgetter + zip)
        # allocates n GC-tracked objects, which set off full collections: 10x slower at 100k.
        # Also lost (issue 15): every column in one native pass (PyO3, PyObject_GetAttr with
        # interned names, each item visited once): builds got slower, 10k 56 -> 61 ms and
        # 100k 777-843 -> 817-884 ms CPU (A/B, one thread): CPython 3.11's specialised
        # attribute load for a slots dataclass beats the generic getattr of the C API
        self.ids: list[str] = [it.id for it in items]
        self.texts: list[str] = [it.content for it in items]
        self.raw: list[float] = [it.score for it in items]
        self.pinned: list[bool] = [it.pinned for it in items]
        self.history: list[bool] = [it.kind == "history" for it in items]
        self.signals: list[Signals] = [it.signals for it in items]
        self.deprecated: list[bool] = [False] * n  # set by calibrate, from the signals
        self.tokens: list[int | None] = [it.tokens for it in items]
        self.calibrated: list[float] = [0.0] * n
        self.final: list[float] = [0.0] * n
        # sparse: most items carry no adjustment, and an empty list per item would cost memory
        self.adjustments: dict[int, list[str]] = {}
        self.reasons: list[str | None] = [None] * n

    def __len__(self) -> int:
        return len(self.items)

    def adjust(self, i: int, note: str) -> None:
        self.adjustments.setdefault(i, []).append(note)

    def scored(self, i: int) -> ScoredItem:
        tokens = self.tokens[i]
        assert tokens is not None, "tokens are estimated before any ScoredItem is made"
        return ScoredItem(
            self.items[i], self.raw[i], self.calibrated[i], self.final[i], tokens, tuple(self.adjustments.get(i, ()))
        )

    def size(self) -> int:
        return len(self.items)

    def entries(self) -> list[TraceEntry]:
        """The trace rows, in proposal order (``Trace`` calls this lazily)."""
        adj = self.adjustments
        return [
            TraceEntry(
                self.ids[i],
                self.sources[i],
                self.items[i].kind,
                self.raw[i],
                self.calibrated[i],
                self.final[i],
                self.tokens[i] or 0,
                self.reasons[i] in ("pinned", "min_items", "selected"),
                self.reasons[i] or "",
                tuple(adj.get(i, ())),
            )
            for i in range(len(self.items))
        ]
