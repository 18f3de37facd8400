"""ContextEngine: gather candidates from every source, run the stages, return a Window.

Sources run concurrently, each with a timeout that bounds the build: a blocking source runs on
a daemon thread of its own (``ctxsieve.workers``), which a timeout abandons rather than waits
for. A source that raises, times out or proposes a malformed item is left out with the event
``source_error:<name>:<why>`` and the window is built from the rest. Everything after the
gathering is a pure function of the candidates: the same candidates and the same policy give
the same window, byte for byte.

>>> from ctxsieve.sources import StaticSource
>>> engine = ContextEngine([StaticSource("Answer briefly.", pinned=True)], budget=100)
>>> engine.build_sync("hello").trace.entries[0].reason
'pinned'
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import os
import signal
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ctxsieve.audience import Readers, parse_readers, visible
from ctxsieve.errors import ConfigError, ContextError
from ctxsieve.session import DEFAULT_GAP_NOTICE, DEFAULT_MAX_PROMPT_TOKENS, ContextSession
from ctxsieve.sources.base import SourceConfig
from ctxsieve.sources.history import HistorySource
from ctxsieve.stages.calibrate import calibrate
from ctxsieve.stages.candidates import Candidates
from ctxsieve.stages.dedupe import dedupe
from ctxsieve.stages.estimate import TokenEstimator, estimate
from ctxsieve.stages.order import order
from ctxsieve.stages.policies import POLICIES, Policy, ScoredKnapsack
from ctxsieve.stages.render import stable_block, stable_prefix_hash
from ctxsieve.stages.score import rescore
from ctxsieve.stages.select import select
from ctxsieve.types import LAYOUTS, Budget, ContextItem, Trace, Window, item_problem
from ctxsieve.workers import Late, StuckCalls, start_thread, within

Gathered = tuple[list[list[ContextItem]], list[str]]

# From this many candidates on, `build` runs the stages off the event loop.
OFFLOAD_AT = 2000

# A blocking source with this many timed-out calls still running is not called again (its event
# says "busy") until one returns: it can leave at most this many threads behind per engine.
STUCK_LIMIT = 4

# How long `build_sync` lets timed-out coroutine sources unwind after their cancellation before
# it closes its event loop without them (one that ignores cancellation would hold it forever).
UNWIND_GRACE = 0.1


class ContextEngine:
    """One budget for every source, a trace for every item, an order built for the cache.

    ``sources``: sources or ``SourceConfig``s (names must be unique). ``budget``: total tokens
    (or a ``Budget``; per-source ``max_tokens``/``min_items`` are merged into it). ``policy``:
    a ``Policy`` or one of ``"scored_knapsack"``, ``"fixed_slots"``, ``"everything"``.
    ``tokenizer``: an estimator name, a ``list[str] -> list[int]`` callable, or an object with
    ``count_batch``. ``scorer``: an optional ``LLMScorer``. ``layout``: ``"cache"`` or ``"seed"``.
    """

    def __init__(
        self,
        sources: Sequence[Any],
        *,
        budget: int | Budget,
        policy: Policy | str | None = None,
        tokenizer: Any = "bytes/3",
        scorer: Any = None,
        layout: str = "cache",
        dedupe_threshold: float | None = 0.8,
        source_timeout: float = 5.0,
    ):
        self.configs = [s if isinstance(s, SourceConfig) else SourceConfig(s) for s in sources]
        seen: set[str] = set()
        for c in self.configs:
            if c.name in seen:
                raise ConfigError(f"duplicate source name {c.name!r}")
            seen.add(c.name)
        self.names = [c.name for c in self.configs]
        self.budget = self._budget(budget)
        self.policy = self._policy(policy)
        if layout not in LAYOUTS:
            raise ConfigError(f"layout: must be 'seed' or 'cache', got {layout!r}")
        self.layout = layout
        if dedupe_threshold is not None and (
            isinstance(dedupe_threshold, bool)
            or not isinstance(dedupe_threshold, (int, float))
            or not 0 < dedupe_threshold <= 1
        ):
            raise ConfigError(f"dedupe_threshold: must be in (0, 1] or None, got {dedupe_threshold!r}")
        self.dedupe_threshold = dedupe_threshold
        if isinstance(source_timeout, bool) or not isinstance(source_timeout, (int, float)) or not source_timeout > 0:
            raise ConfigError(f"source_timeout: must be > 0 seconds, got {source_timeout!r}")
        self.source_timeout = float(source_timeout)
        if scorer is not None:
            _check_scorer(scorer)
        self.scorer = scorer
        self.estimator = tokenizer if isinstance(tokenizer, TokenEstimator) else TokenEstimator(tokenizer)
        self._weights = [float(c.weight) for c in self.configs]
        self._modes = [c.mode for c in self.configs]
        self._stuck = StuckCalls(STUCK_LIMIT)  # per source index; per engine, so engines never share it

    def _budget(self, budget: int | Budget) -> Budget:
        base = budget if isinstance(budget, Budget) else Budget(budget)
        caps, mins = dict(base.caps), dict(base.min_items)
        for c in self.configs:
            if c.max_tokens is not None:
                caps[c.name] = c.max_tokens
            if c.min_items is not None:
                mins[c.name] = c.min_items
            elif isinstance(c.source, HistorySource):
                mins.setdefault(c.name, 1)  # the newest turn, always
        return Budget(base.total, caps, {k: v for k, v in mins.items() if v})

    @staticmethod
    def _policy(policy: Policy | str | None) -> Policy:
        if policy is None:
            return ScoredKnapsack()
        if isinstance(policy, str):
            if policy not in POLICIES or policy == "fixed_slots":
                known = "'scored_knapsack', 'everything' (fixed_slots needs shares: pass FixedSlots(...))"
                raise ConfigError(f"policy: unknown policy {policy!r}; by name: {known}")
            return POLICIES[policy]()  # type: ignore[no-any-return]
        if isinstance(policy, type):
            raise ConfigError(f"policy: pass an instance, e.g. {policy.__name__}(), not the class")
        if not callable(getattr(policy, "select", None)):
            raise ConfigError(f"policy: {policy!r} has no select(pool, budget) method")
        return policy

    # -- gathering -------------------------------------------------------------------------

    def _start(self, query: str) -> tuple[list[Any], list[Any]]:
        """Call every source: immediate results, and awaitables for the rest (or None)."""
        if not isinstance(query, str):
            raise TypeError(f"query: expected str, got {type(query).__name__}")
        results: list[Any] = [None] * len(self.configs)
        pending: list[Any] = [None] * len(self.configs)
        for k, c in enumerate(self.configs):
            fn = c.source.candidates
            if inspect.iscoroutinefunction(fn):
                pending[k] = fn(query)
            elif getattr(c.source, "blocking", True):
                if self._stuck.full(k):
                    results[k] = _SourceTimeout(f"busy: {STUCK_LIMIT} earlier calls timed out and are still running")
                else:
                    pending[k] = self._in_thread(k, fn, query)
            else:
                try:
                    out = fn(query)
                except Exception as exc:  # a failing source degrades the window, never the build
                    out = exc
                if inspect.isawaitable(out):
                    pending[k] = out
                else:
                    results[k] = out
        return results, pending

    async def _in_thread(self, k: int, fn: Callable[[str], Any], query: str) -> Any:
        """A blocking source's answer from a daemon thread of its own; a sync ``candidates``
        may still return an awaitable (the Source protocol allows it), which is awaited here."""
        future = start_thread(fn, query, name=f"ctxsieve-source-{self.names[k]}")
        try:
            out = await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if not future.done():
                self._stuck.abandon(k, future)  # timed out: the thread runs on, counted
            raise
        return await out if inspect.isawaitable(out) else out

    async def _wait(self, k: int, awaitable: Any) -> Any:
        timeout = self.configs[k].timeout or self.source_timeout
        # within, not asyncio.wait_for: wait_for waits for the cancelled source to finish,
        # which one that ignores cancellation never does; here the deadline holds regardless
        try:
            return await within(awaitable, timeout)
        except Late:
            return _SourceTimeout(f"timeout after {timeout:g}s")
        except Exception as exc:
            return exc

    def _check(self, results: list[Any], readers: Readers = None) -> Gathered:
        """Each source's valid items the ``readers`` may see. Eligibility comes first, before
        any stage: an item the readers may not see is never deduplicated against, budgeted,
        traced or rendered; only its count is kept (``audience_excluded:<source>:<n>``)."""
        events: list[str] = []
        lists: list[list[ContextItem]] = []
        for name, out in zip(self.names, results):
            items, why = _validate(name, out)
            if why is None:
                try:
                    items, hidden = visible(items, readers)
                except TypeError as exc:  # a label inside meta["messages"] that is not text
                    items, hidden, why = [], [], f"malformed item: {exc}"
                if hidden:
                    events.append(f"audience_excluded:{name}:{len(hidden)}")
            if why is not None:
                events.append(f"source_error:{name}:{why}")
            lists.append(items)
        return lists, events

    async def _settle(self, results: list[Any], pending: list[Any]) -> list[Any]:
        waits = [self._wait(k, p) for k, p in enumerate(pending) if p is not None]
        if not waits:
            return results
        done = iter(await asyncio.gather(*waits))
        return [next(done) if p is not None else r for r, p in zip(results, pending)]

    async def gather(self, query: str, *, reader: Any = None) -> Gathered:
        """Every source's proposal that ``reader`` may see (empty for a failed source), and the
        ``source_error`` and ``audience_excluded`` events."""
        readers = parse_readers(reader, "reader")
        results, pending = self._start(query)
        return self._check(await self._settle(results, pending), readers)

    # -- the stages ------------------------------------------------------------------------

    def _prepare(self, gathered: Gathered, readers: Readers = None) -> Candidates:
        lists = gathered[0]
        items: list[ContextItem] = []
        ranks: list[int] = []
        for k, lst in enumerate(lists):
            items += lst
            ranks += [k] * len(lst)
        cands = Candidates(items, ranks, self.names, readers)
        estimate(cands, self.estimator)
        calibrate(cands, self._weights, self._modes)
        return cands

    def _complete(
        self,
        query: str,
        cands: Candidates,
        events: list[str],
        budget: Budget,
        mark: Callable[[Candidates], None] | None = None,
    ) -> Window:
        dedupe(cands, self.dedupe_threshold)
        if mark is not None:
            # a ContextSession decides here, before the policy, what it has already shown
            mark(cands)
        included = select(cands, self.policy, budget)
        ordered = order(cands, included)
        for i in ordered:
            if cands.signals[i] is not cands.items[i].signals:
                # the kept copy of a duplicate carries the signals it inherited into the window
                cands.items[i] = dataclasses.replace(cands.items[i], signals=cands.signals[i])
        items = [cands.items[i] for i in ordered]
        scored = [cands.scored(i) for i in ordered]
        stable = stable_block(items)
        return Window(
            query=query,
            items=items,
            scored=scored,
            tokens_used=sum(s.tokens for s in scored),
            budget=budget.total,
            trace=Trace(events=events, columns=cands),
            layout=self.layout,  # type: ignore[arg-type]
            stable_prefix_hash=stable_prefix_hash(stable),
            stable_prefix_tokens=self.estimator.count([stable])[0] if stable else 0,
            readers=cands.readers,
        )

    def _budget_for(self, budget: int | None) -> Budget:
        return self.budget if budget is None else Budget(budget, self.budget.caps, self.budget.min_items)

    async def _build(
        self,
        query: str,
        results: list[Any],
        pending: list[Any],
        budget: Budget,
        offload: bool = True,
        finish: Callable[[str, Candidates, list[str], Budget], Any] | None = None,
        readers: Readers = None,
    ) -> Any:
        """Settle the sources, run the stages for ``readers`` and hand the candidates to
        ``finish`` (this engine's ``_complete``, or a ``ContextSession``'s own last step)."""
        done = self._complete if finish is None else finish
        lists, events = self._check(await self._settle(results, pending), readers)
        # a large build would hold the event loop for tens of milliseconds: run its stages on
        # a worker thread instead (the kernels release the GIL); small ones stay inline, where
        # the hop (about 0.1 ms) would cost more than it frees
        offload = offload and sum(map(len, lists)) >= OFFLOAD_AT
        if offload:
            cands = await asyncio.to_thread(self._prepare, (lists, events), readers)
        else:
            cands = self._prepare((lists, events), readers)
        if self.scorer is not None:
            event = await rescore(cands, self.scorer, query)
            if event is not None:
                events.append(event)
        if offload:
            return await asyncio.to_thread(done, query, cands, events, budget)
        return done(query, cands, events, budget)

    def _build_sync(
        self,
        query: str,
        budget: int | None,
        finish: Callable[[str, Candidates, list[str], Budget], Any] | None = None,
        *,
        offload: bool = False,
        caller: str = "engine",
        readers: Readers = None,
    ) -> Any:
        """The synchronous driver behind ``build_sync`` here and in ``ContextSession``. When
        every source answers from memory and there is no scorer, no event loop is started."""
        done = self._complete if finish is None else finish
        b = self._budget_for(budget)
        results, pending = self._start(query)
        if self.scorer is None and all(p is None for p in pending):
            lists, events = self._check(results, readers)
            return done(query, self._prepare((lists, events), readers), events, b)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return _run(self._build(query, results, pending, b, offload=offload, finish=done, readers=readers))
        for p in pending:
            if inspect.iscoroutine(p):
                p.close()  # never awaited: close it so it does not warn
        raise ContextError(f"build_sync() was called inside a running event loop: use `await {caller}.build(...)`")

    async def build(self, query: str, *, budget: int | None = None, reader: Any = None) -> Window:
        """The window for ``query``; ``budget`` overrides the total for this build. ``reader``
        (a label or a set of labels: who reads this call) decides which labelled items may go
        in; the default, None, is an anonymous call that gets public items only."""
        readers = parse_readers(reader, "reader")
        b = self._budget_for(budget)
        results, pending = self._start(query)
        window: Window = await self._build(query, results, pending, b, readers=readers)
        return window

    def build_sync(self, query: str, *, budget: int | None = None, reader: Any = None) -> Window:
        """``build`` without an event loop of your own. When every source answers from memory
        and there is no scorer, no event loop is started at all."""
        readers = parse_readers(reader, "reader")
        window: Window = self._build_sync(query, budget, readers=readers)
        return window

    def session(
        self,
        *,
        max_prompt_tokens: int = DEFAULT_MAX_PROMPT_TOKENS,
        cut_to: float = 0.5,
        gap_notice: str = DEFAULT_GAP_NOTICE,
        reader: Any = None,
    ) -> ContextSession:
        """A ``ContextSession`` over this engine: one append-only prompt for a conversation,
        so the provider's prefix cache serves every earlier turn (see ``ctxsieve.session``).
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
        workers = max_workers or min(len(qs), os.cpu_count() or 4, 32)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ctxsieve-build") as pool:
            return list(pool.map(one, qs))


def _check_scorer(scorer: Any) -> None:
    """What ``rescore`` reads from a scorer: ``score``, ``top_n`` and ``alpha`` (an LLMScorer
    has them all; a scorer of one's own must too), checked here rather than at the first build."""
    if not callable(getattr(scorer, "score", None)):
        raise ConfigError(f"scorer: needs an async score(query, texts) method, got {scorer!r}")
    top_n = getattr(scorer, "top_n", None)
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n <= 0:
        raise ConfigError(f"scorer: needs top_n, a positive int (how many candidates it rescores), got {top_n!r}")
    alpha = getattr(scorer, "alpha", None)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise ConfigError(f"scorer: needs alpha, a number in [0, 1] (the model's share of the score), got {alpha!r}")


def _run(coro: Any) -> Any:
    """``asyncio.run`` for ``build_sync``, except that a task left over by a timed-out source
    gets ``UNWIND_GRACE`` seconds to honour its cancellation, not forever, and the default
    executor is not joined (the build's own offload calls have all returned by then). Ctrl-C
    cancels the build, as ``asyncio.run`` does, and then raises ``KeyboardInterrupt``: raised
    inside a source's task instead, it would leave tasks that log "never retrieved"."""
    interrupted = False
    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task[Any] | None = None

    def on_sigint(signum: int, frame: Any) -> None:
        nonlocal interrupted
        interrupted = True
        if loop is not None and task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)

    previous: Any = None
    # installed before the loop exists: a Ctrl-C while it is made would leave it half-built
    if threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        loop = asyncio.new_event_loop()
        try:
            task = loop.create_task(coro)
            if interrupted:
                task.cancel()
            return loop.run_until_complete(task)
        except asyncio.CancelledError:
            if interrupted:
                raise KeyboardInterrupt from None
            raise
        finally:
            try:
                left = asyncio.all_tasks(loop)
                for t in left:
                    t.cancel()
                if left:
                    loop.run_until_complete(asyncio.wait(left, timeout=UNWIND_GRACE))
                for t in left:
                    if t.done() and not t.cancelled():
                        t.exception()  # retrieved: an error after the build ended is nobody's
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()
    finally:
        # restored only now, so that a Ctrl-C during the clean-up is not raised inside it
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
            if interrupted and (task is None or not task.cancelled()):
                raise KeyboardInterrupt  # it came as the build ended: still the user's Ctrl-C


class _SourceTimeout(TimeoutError):
    """The engine's own timeout, told apart from a TimeoutError a source raises itself."""


def _validate(name: str, out: Any) -> tuple[list[ContextItem], str | None]:
    """The items of one source's answer, or an empty list and why it was refused."""
    if isinstance(out, BaseException):
        if isinstance(out, _SourceTimeout):
            return [], str(out)
        text = " ".join(str(out).split())
        return [], f"{type(out).__name__}: {text[:200]}" if text else type(out).__name__
    if not isinstance(out, (list, tuple)):
        return [], f"malformed result: expected a list of ContextItem, got {type(out).__name__}"
    items = out if isinstance(out, list) else list(out)
    # list comprehensions, not a loop: this runs over every candidate of every build
    odd = [k for k, it in enumerate(items) if type(it) is not ContextItem]
    for k in odd:
        it = items[k]
        if isinstance(it, ContextItem):
            problem = item_problem(it)
        else:
            problem = f"expected ContextItem, got {type(it).__name__}"
        if problem is not None:
            return [], f"malformed item {k}: {problem}"
    if [k for k, it in enumerate(items) if it.source != name]:
        renamed = []
        for k, it in enumerate(items):
            try:
                renamed.append(it if it.source == name else dataclasses.replace(it, source=name))
            except ConfigError as exc:  # re-validated by the copy: mutated after construction
                return [], f"malformed item {k}: {exc}"
        items = renamed
    return items, None
