"""ContextEngine: gather candidates from every source, run the stages, return a Window.

A build is two public steps, and everything that drives the engine (``build``, a
``ContextSession``, a ``Conversation``) goes through them:

1. ``gather(query, reader=...)`` (or ``gather_sync``) calls the sources and returns a
   ``Gathered``: every source's valid items the reader may see, and the events.
2. ``select(gathered, budget=..., mark=...)`` (or ``aselect``) runs the stages on it and
   returns a ``Window``. ``mark(cands, events)`` runs after dedupe and before the policy: a
   session marks there what its prompt already shows. Selecting again from the same
   ``Gathered`` (a smaller budget, say) does not call the sources again.

>>> from ctxsieve.sources import StaticSource
>>> engine = ContextEngine([StaticSource("Answer briefly.", pinned=True)], budget=100)
>>> gathered = engine.gather_sync("hello")
>>> engine.select(gathered).trace.entries[0].reason
'pinned'
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ctxsieve.audience import parse_readers
from ctxsieve.engine import selection
from ctxsieve.engine.config import (
    check_layout,
    check_scorer,
    check_threshold,
    check_timeout,
    merged_budget,
    resolve_policy,
    source_configs,
)
from ctxsieve.engine.gather import Gathered, Gathering, close_pending
from ctxsieve.engine.run import run
from ctxsieve.engine.selection import Mark
from ctxsieve.engine.session import DEFAULT_GAP_NOTICE, DEFAULT_MAX_PROMPT_TOKENS, ContextSession
from ctxsieve.engine.window import Window
from ctxsieve.errors import ConfigError, ContextError
from ctxsieve.kernels.gate import gated, join_gate
from ctxsieve.kernels.threads import set_thread_budget
from ctxsieve.stages.candidates import Candidates
from ctxsieve.stages.columns_memo import ColumnsMemo
from ctxsieve.stages.dedupe_memo import DedupeMemos
from ctxsieve.stages.policies import Policy
from ctxsieve.stages.score import rescore
from ctxsieve.tokenizers import EstimatorLike, resolve_estimator
from ctxsieve.types import Budget, Layout


class ContextEngine:
    """One budget for every source, a trace for every item, an order built for the cache.

    ``sources``: sources or ``SourceConfig``s (names must be unique). ``budget``: total tokens
    (or a ``Budget``; per-source ``max_tokens``/``min_items`` are merged into it). ``policy``:
    a ``Policy`` or one of ``"scored_knapsack"``, ``"fixed_slots"``, ``"everything"``.
    ``estimator`` (formerly ``tokenizer``, still accepted): an estimator name (default
    ``"bytes/3"``), a ``list[str] -> list[int]`` callable, or an object with ``count_batch``.
    ``scorer``: an optional ``LLMScorer``. ``layout``: ``"cache"`` or ``"seed"``.
    """

    def __init__(
        self,
        sources: Sequence[Any],
        *,
        budget: int | Budget,
        policy: Policy | str | None = None,
        estimator: EstimatorLike = None,
        scorer: Any = None,
        layout: str = "cache",
        dedupe_threshold: float | None = 0.8,
        source_timeout: float = 5.0,
        tokenizer: EstimatorLike = None,
    ):
        self.configs = source_configs(sources)
        self.names = [c.name for c in self.configs]
        self.budget = merged_budget(budget, self.configs)
        self.policy = resolve_policy(policy)
        self.layout: Layout = check_layout(layout)
        self.dedupe_threshold = check_threshold(dedupe_threshold)
        self.source_timeout = check_timeout(source_timeout)
        if scorer is not None:
            check_scorer(scorer)
        self.scorer = scorer
        if tokenizer is not None and estimator is not None:
            raise ConfigError("estimator: pass estimator= or its old name tokenizer=, not both")
        # the one resolver (ctxsieve.tokenizers): the error names the keyword the caller used
        self.estimator = resolve_estimator(
            estimator if tokenizer is None else tokenizer, "estimator" if tokenizer is None else "tokenizer"
        )
        self._weights = [float(c.weight) for c in self.configs]
        self._modes = [c.mode for c in self.configs]
        self._gathering = Gathering(self.configs, self.source_timeout)
        # the texts earlier builds deduplicated, so a warm build joins only the new ones
        self._dedupe_memos = DedupeMemos()
        # the previous build's per-item columns: a warm build reads only the items that changed
        self._columns = ColumnsMemo(len(self.configs))

    # -- step one: gather ------------------------------------------------------------------

    async def gather(self, query: str, *, reader: Any = None) -> Gathered:
        """Every source's proposal for ``query`` that ``reader`` may see (empty for a failed
        source), and the ``source_error`` and ``audience_excluded`` events. ``reader`` (a
        label or a set of labels: who reads this call) defaults to None, an anonymous call
        that gets public items only."""
        readers = parse_readers(reader, "reader")
        g = self._gathering
        results, pending = g.start(query)
        return g.check(query, await g.settle(results, pending), readers)

    def gather_sync(self, query: str, *, reader: Any = None) -> Gathered:
        """``gather`` without an event loop of your own. When every source answers from memory
        no event loop is started at all (so it works inside a running loop too); otherwise
        one is, for this call, with the same timeouts and threads as ``gather``."""
        return self._gather_sync(query, reader, "gather")

    def _gather_sync(self, query: str, reader: Any, caller: str) -> Gathered:
        readers = parse_readers(reader, "reader")
        g = self._gathering
        results, pending = g.start(query)
        if all(p is None for p in pending):
            return g.check(query, results, readers)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return g.check(query, run(g.settle(results, pending)), readers)
        close_pending(pending)
        raise ContextError(f"{caller}_sync() was called inside a running event loop: use `await engine.{caller}(...)`")

    # -- step two: select and finish -------------------------------------------------------

    def select(
        self,
        gathered: Gathered,
        *,
        budget: int | None = None,
        mark: Mark | None = None,
        layout: Layout | None = None,
    ) -> Window:
        """The window of ``gathered`` (from this engine's ``gather``). ``budget`` overrides the
        total for this selection; ``mark(cands, events)`` runs after dedupe and before the
        policy (write a reason into ``cands.reasons[i]`` to decide candidate i yourself);
        ``layout`` overrides the engine's for this window. With a scorer, the scorer's call
        runs on an event loop of its own (use ``aselect`` inside a running loop)."""
        b, lay = self._options(gathered, budget, layout)
        cands, events = self._prepare(gathered), list(gathered.events)
        if self.scorer is not None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                self._note(events, run(rescore(cands, self.scorer, gathered.query)))
            else:
                raise ContextError(
                    "select() with a scorer was called inside a running event loop: use `await engine.aselect(...)`"
                )
        return self._complete(cands, gathered.query, events, b, lay, mark)

    async def aselect(
        self,
        gathered: Gathered,
        *,
        budget: int | None = None,
        mark: Mark | None = None,
        layout: Layout | None = None,
    ) -> Window:
        """``select`` on the running event loop: the scorer (if any) is awaited here, and from
        ``OFFLOAD_AT`` (2,000) candidates on the stages run on a worker thread (the kernels
        release the GIL), so a large build does not hold the loop for tens of milliseconds;
        small ones stay inline, where the hop (about 0.1 ms) would cost more than it frees."""
        b, lay = self._options(gathered, budget, layout)
        events = list(gathered.events)
        offload = gathered.size >= selection.OFFLOAD_AT
        cands = await asyncio.to_thread(self._prepare, gathered) if offload else self._prepare(gathered)
        if self.scorer is not None:
            self._note(events, await rescore(cands, self.scorer, gathered.query))
        if offload:
            return await asyncio.to_thread(self._complete, cands, gathered.query, events, b, lay, mark)
        return self._complete(cands, gathered.query, events, b, lay, mark)

    def _options(self, gathered: Gathered, budget: int | None, layout: Layout | None) -> tuple[Budget, Layout]:
        self._gathering.owns(gathered)
        b = self.budget if budget is None else Budget(budget, self.budget.caps, self.budget.min_items)
        return b, self.layout if layout is None else check_layout(layout)

    @gated  # a build_many worker's Python stages take turns (kernels/gate.py)
    def _prepare(self, gathered: Gathered) -> Candidates:
        return selection.prepare(gathered, self.names, self.estimator, self._weights, self._modes, self._columns)

    @gated
    def _complete(
        self, cands: Candidates, query: str, events: list[str], budget: Budget, layout: Layout, mark: Mark | None
    ) -> Window:
        memo = None if self.dedupe_threshold is None else self._dedupe_memos.get(self.dedupe_threshold)
        try:
            return selection.complete(
                cands,
                query,
                events,
                budget=budget,
                policy=self.policy,
                dedupe_threshold=self.dedupe_threshold,
                layout=layout,
                estimator=self.estimator,
                mark=mark,
                dedupe_memo=memo,
            )
        finally:
            if memo is not None:
                # a rebuild of the memo's index this build found due starts now, on a pool
                # thread, not beside the rest of this build (`DedupeMemo.start_rebuild`)
                memo.start_rebuild()

    @staticmethod
    def _note(events: list[str], event: str | None) -> None:
        if event is not None:
            events.append(event)

    # -- both steps --------------------------------------------------------------------------

    async def build(self, query: str, *, budget: int | None = None, reader: Any = None) -> Window:
        """The window for ``query``: ``aselect(await gather(query, reader=reader), budget=budget)``."""
        return await self.aselect(await self.gather(query, reader=reader), budget=budget)

    def build_sync(self, query: str, *, budget: int | None = None, reader: Any = None) -> Window:
        """``build`` without an event loop of your own: ``gather_sync`` then ``select``. When
        every source answers from memory and there is no scorer, no event loop is started."""
        if self.scorer is not None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass
            else:
                raise ContextError("build_sync() was called inside a running event loop: use `await engine.build(...)`")
        return self.select(self._gather_sync(query, reader, "build"), budget=budget)

    def session(
        self,
        *,
        max_prompt_tokens: int = DEFAULT_MAX_PROMPT_TOKENS,
        cut_to: float = 0.5,
        gap_notice: str = DEFAULT_GAP_NOTICE,
        reader: Any = None,
    ) -> ContextSession:
        """A ``ContextSession`` over this engine: one append-only prompt for a conversation,
        so the provider's prefix cache serves every earlier turn (see ``ctxsieve.engine.session``).
        ``reader`` is the conversation's one reader set (default: anonymous, public only)."""
        return ContextSession(
            self, max_prompt_tokens=max_prompt_tokens, cut_to=cut_to, gap_notice=gap_notice, reader=reader
        )

    def build_many(self, queries: Iterable[str], *, max_workers: int | None = None, reader: Any = None) -> list[Window]:
        """Windows for many queries, built on threads (the native kernels release the GIL),
        all for the same ``reader``."""
        readers = parse_readers(reader, "reader")
        qs = list(queries)

        def one(q: str) -> Window:
            return self.build_sync(q, reader=readers)

        if len(qs) <= 1:
            return [one(q) for q in qs]
        cores = os.cpu_count() or 4
        workers = min(max_workers or min(cores, 32), len(qs))
        # each worker's kernels get its share of the cores (kernels/threads.py): on their own
        # they use every core, and N builds at once would then want N times the cores
        budget = max(1, cores // workers) if workers > 1 else None
        # and their Python stages take turns (kernels/gate.py), unless the estimator is one that
        # may wait (a tokenizer's batch lets the GIL go, a counter of one's own may call out)
        est = self.estimator
        gate = threading.Lock() if workers > 1 and est.trusted and not est.exact else None

        def start(budget: int | None, gate: threading.Lock | None) -> None:
            set_thread_budget(budget)
            join_gate(gate)

        with ThreadPoolExecutor(workers, "ctxsieve-build", start, (budget, gate)) as pool:
            return list(pool.map(one, qs))
