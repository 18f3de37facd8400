"""The candidates of one build, held as columns.

Every stage reads and writes these parallel lists instead of per-item objects: the kernels take
lists, so each stage crosses the native boundary once, and a build over 100k candidates pays
for a handful of list comprehensions rather than 100k intermediate objects. ``ScoredItem`` and
``TraceEntry`` rows are made only for what a caller actually reads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ctxsieve.kernels.build_reference import REVIEWED, STALE
from ctxsieve.types import NO_SIGNALS, ContextItem, ScoredItem, Signals, TraceEntry

DEPRECATED = 4  # the third signal bit (``signal_masks``): marked, no factor
HUMAN_REVIEWED = "human-reviewed"
# The columns read from the items themselves: what ``columns_of`` makes, and what a memo of an
# earlier build may hand over for items it has seen (``stages.columns_memo``).
ITEM_COLUMNS = ("ids", "texts", "raw", "pinned", "kinds", "stable", "signals", "tokens", "sigmask")


def signal_masks(signals: Sequence[Signals]) -> list[int]:
    """Per item, its signal bits: ``STALE`` (1), ``REVIEWED`` (2, trust ``human-reviewed``),
    ``DEPRECATED`` (4); 0 for most. One comprehension whose common case is an identity compare
    (``NO_SIGNALS``) or three slot reads that find nothing set. It was a C loop of identity
    compares picking the items to visit in Python, which is as fast when most items share
    ``NO_SIGNALS`` but 2x slower when each item has a ``Signals()`` of its own (bench_engine's
    corpus, and any source that makes one per item): 10k 1.09 -> 0.59 ms (distinct, in cache),
    0.29 -> 0.25 ms (90 % ``NO_SIGNALS``). Lost: testing every item with no identity compare
    (0.43 / 0.37 ms), the compare then the bits OR-ed unconditionally (0.60 / 0.19 ms)."""
    return [
        (STALE if s.stale else 0) | (REVIEWED if s.trust == HUMAN_REVIEWED else 0) | (DEPRECATED if s.deprecated else 0)
        if s is not NO_SIGNALS and (s.stale or s.deprecated or s.trust == HUMAN_REVIEWED)
        else 0
        for s in signals
    ]


def columns_of(items: Sequence[ContextItem]) -> dict[str, list[Any]]:
    """The ``ITEM_COLUMNS`` of ``items``, one comprehension each: building per-item tuples
    instead (attrgetter + zip) allocates n GC-tracked objects, which set off full collections:
    10x slower at 100k. Lost twice (issue 15): every column in one native pass. Through the
    generic PyObject_GetAttr: builds got slower, 10k 56 -> 61 ms and 100k 777-843 -> 817-884
    ms CPU (A/B, one thread). Through each slot's own descriptor ``__get__``, found once (the
    third session): the read alone 10k 0.86 -> 0.71 ms in cache, ``columns_of`` at 100k
    104 -> 78 ms, but cold builds did not move (interleaved A/B at load 7-8, median CPU: 1k
    6.2 / 6.5 ms, 10k 69 / 72, 100k 992 / 973): not worth unsafe code; CPython 3.11's
    specialised slot load is nearly as fast, and the first touch of each item costs the same."""
    signals = [it.signals for it in items]
    return {
        "ids": [it.id for it in items],
        "texts": [it.content for it in items],
        "raw": [it.score for it in items],
        "pinned": [it.pinned for it in items],
        "kinds": [it.kind for it in items],
        "stable": [it.stability == "stable" for it in items],
        "signals": signals,
        "tokens": [it.tokens for it in items],
        "sigmask": signal_masks(signals),
    }


class Candidates:
    """Parallel columns over ``items``; ``source_rank[i]`` is the index of item i's source in
    the engine's source list (``names``) and ``sources[i]`` its name; the rows come source by
    source (``source_rank`` never decreases: the built-in fill numbers sources by rank).
    ``reasons[i]`` stays None until a stage decides the item's fate. ``readers`` is who the
    build is for: every item here is one they may see (the engine left the others out before
    making the columns)."""

    __slots__ = (
        "adjust_head",
        "adjust_next",
        "adjust_notes",
        "adjust_tail",
        "calibrated",
        "deprecated",
        "final",
        "history",
        "ids",
        "inherited",
        "inherited_citation",
        "inherited_deprecated",
        "inherited_stale",
        "inherited_trust",
        "items",
        "kinds",
        "names",
        "notes",
        "pinned",
        "raw",
        "readers",
        "reasons",
        "sigmask",
        "signals",
        "source_rank",
        "sources",
        "stable",
        "texts",
        "tokens",
    )

    def __init__(
        self,
        items: list[ContextItem],
        source_rank: list[int],
        source_names: Sequence[str],
        readers: frozenset[str] | None = None,
        columns: Mapping[str, list[Any]] | None = None,
        history: list[bool] | None = None,
    ):
        """``columns``: the ``ITEM_COLUMNS`` of ``items`` when the caller has them already
        (a memo of the previous build's, ``stages.columns_memo``); else they are read here.
        ``history``: ``kinds[i] == "history"`` per row, when the caller made it already."""
        n = len(items)
        self.readers = readers
        self.items = items
        self.source_rank = source_rank
        self.names = source_names  # the engine's source names, by rank
        # comprehensions: lost, map(source_names.__getitem__, ...) and map(operator.eq, ...) for
        # history (CPython 3.11, 10k in cache: 0.23 ms against 0.12, and 0.26 against 0.21)
        self.sources = [source_names[r] for r in source_rank]
        cols = columns_of(items) if columns is None else columns
        self.ids: list[str] = cols["ids"]
        self.texts: list[str] = cols["texts"]
        self.raw: list[float] = cols["raw"]
        self.pinned: list[bool] = cols["pinned"]
        self.kinds: list[str] = cols["kinds"]
        self.history: list[bool] = [k == "history" for k in self.kinds] if history is None else history
        self.stable: list[bool] = cols["stable"]  # stability == "stable"
        self.signals: list[Signals] = cols["signals"]  # the items' own; see signals_of
        self.sigmask: list[int] = cols["sigmask"]
        self.deprecated: list[bool] = [False] * n  # set by calibrate, from the signals
        self.tokens: list[int | None] = cols["tokens"]
        self.calibrated: list[float] = [0.0] * n
        self.final: list[float] = [0.0] * n
        # the signals' notes calibrate found, per item: a shared tuple (most items have none)
        self.notes: dict[int, tuple[str, ...]] = {}
        # every note a later stage made (``adjust``), as one log: ``adjust_head[i]`` is the
        # position of row i's first, ``adjust_next[at]`` that of the same row's next (-1 after
        # its last), ``adjust_tail[i]`` of its last. Ints and strings only, so nothing here is
        # GC-tracked: a list of notes per adjusted row (and a ``Signals`` per row that inherited,
        # below) were the ~2.8k objects a 100k build left alive, which set off 4 collections a
        # build, a full one every third build (23 ms of a 330 ms build, issue 15)
        self.adjust_notes: list[str] = []
        self.adjust_next: list[int] = []
        self.adjust_head: dict[int, int] = {}
        self.adjust_tail: dict[int, int] = {}
        # what a kept copy inherited from its duplicates (``stages.dedupe``), as columns:
        # ``inherited[i]`` is row i's slot in the four ``inherited_*`` lists (each field what it
        # took, or None/False); ``signals_of`` merges them with the row's own
        self.inherited: dict[int, int] = {}
        self.inherited_trust: list[str | None] = []
        self.inherited_stale: list[bool] = []
        self.inherited_deprecated: list[bool] = []
        self.inherited_citation: list[str | None] = []
        self.reasons: list[str | None] = [None] * n

    def __len__(self) -> int:
        return len(self.items)

    def adjust(self, i: int, note: str) -> None:
        """Notes ``note`` in row ``i``'s adjustments, after those it has."""
        at = len(self.adjust_notes)
        self.adjust_notes.append(note)
        self.adjust_next.append(-1)
        last = self.adjust_tail.get(i)
        if last is None:
            self.adjust_head[i] = at
        else:
            self.adjust_next[last] = at
        self.adjust_tail[i] = at

    def notes_of(self, i: int) -> tuple[str, ...]:
        """Item ``i``'s adjustments, in the order they were made (the signals' notes first:
        calibrate, which finds them, runs before any stage that adjusts)."""
        own = self.notes.get(i, ())
        at = self.adjust_head.get(i)
        if at is None:
            return own
        notes, after = self.adjust_notes, self.adjust_next
        out = list(own)
        while at >= 0:
            out.append(notes[at])
            at = after[at]
        return tuple(out)

    def signals_of(self, i: int) -> Signals:
        """Row ``i``'s signals with what it inherited from its duplicates: its own object when
        it inherited nothing."""
        have = self.signals[i]
        k = self.inherited.get(i)
        if k is None:
            return have
        trust, citation = self.inherited_trust[k], self.inherited_citation[k]
        changes: dict[str, Any] = {}
        if self.inherited_deprecated[k]:
            changes["deprecated"] = True
        if self.inherited_stale[k]:
            changes["stale"] = True
        if trust is not None:
            changes["trust"] = trust
        if citation is not None:
            changes["citation"] = citation
        if type(have) is Signals:  # its constructor, not dataclasses.replace: 1.5 -> 0.53 us
            return Signals(
                changes.get("trust", have.trust),
                changes.get("stale", have.stale),
                changes.get("deprecated", have.deprecated),
                changes.get("citation", have.citation),
            )
        return dataclasses.replace(have, **changes)

    def scored(self, i: int) -> ScoredItem:
        tokens = self.tokens[i]
        assert tokens is not None, "tokens are estimated before any ScoredItem is made"
        return ScoredItem(self.items[i], self.raw[i], self.calibrated[i], self.final[i], tokens, self.notes_of(i))

    def size(self) -> int:
        return len(self.items)

    def entries(self) -> list[TraceEntry]:
        """The trace rows, in proposal order (``Trace`` calls this lazily)."""
        notes_of = self.notes_of
        return [
            TraceEntry(
                self.ids[i],
                self.sources[i],
                self.kinds[i],
                self.raw[i],
                self.calibrated[i],
                self.final[i],
                self.tokens[i] or 0,
                self.reasons[i] in ("pinned", "min_items", "selected"),
                self.reasons[i] or "",
                notes_of(i),
            )
            for i in range(len(self.items))
        ]
