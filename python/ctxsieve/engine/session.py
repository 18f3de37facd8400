"""ContextSession: one append-only prompt for a whole conversation, built for the prompt cache.

A ``Window`` is one call's prompt, rebuilt from scratch: in the cache layout its freshly
retrieved context sits in a transient message that the next call replaces, so only the system
block and the history can be a cached prefix. A session instead keeps every turn where the model
first saw it: system (the stable block, frozen at the first call) + for each earlier turn [the
context it added, the query, the reply] + this turn's new context + the query. Each call's
prompt then extends the previous one byte for byte, and a provider's prefix cache serves all of
it but the new turn.

* Candidates the session already shows (the same normalised text, or a near-duplicate by the
  engine's ``dedupe_threshold``: the dedupe kernel's own rules) are not sent again; their trace
  reason is ``already_shown:<turn>`` and ``SessionWindow.present`` lists what they matched. A
  shown id whose content changed beyond that is sent again (event ``shown_changed:<id>:<turn>``).
* The engine's ``budget`` applies to what a call adds. The transcript has its own ceiling,
  ``max_prompt_tokens``: when a call could exceed it, the oldest turns go in ONE cut, down to
  ``cut_to`` of the ceiling, so the cached prefix breaks rarely; the trace records
  ``session_cut:<turns>:<tokens omitted>:<tokens kept>`` and a gap notice opens the transcript.
* The session is the conversation: history candidates (a ``HistorySource``) are left out as
  ``in_transcript``. Record each answer with ``record_reply``.

>>> from ctxsieve import ContextEngine, StaticSource
>>> engine = ContextEngine([StaticSource("Answer briefly.", pinned=True)], budget=100)
>>> session = engine.session()
>>> first = session.build_sync("hello")
>>> session.record_reply("Hi!")
>>> second = session.build_sync("how are you?")
>>> second.to_text().startswith(first.to_text()), second.trace.entries[0].reason
(True, 'already_shown:1')
"""

from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING, Any, Protocol

from ctxsieve.audience import parse_readers
from ctxsieve.engine.gather import Gathered
from ctxsieve.engine.selection import Mark
from ctxsieve.engine.session_window import SessionCut, SessionWindow
from ctxsieve.engine.window import Window
from ctxsieve.errors import ConfigError, ContextError
from ctxsieve.stages.render import block, stable_block, stable_prefix_hash
from ctxsieve.stages.shown import mark_shown
from ctxsieve.stages.transcript import SessionTurn, transcript_text, turn_text
from ctxsieve.types import Budget, ContextItem

if TYPE_CHECKING:
    from ctxsieve.stages.candidates import Candidates

# Sized for today's model windows: a 128k-token window less an output reserve, tool schemas and
# the error of a bytes/3 estimate. Set it to your model's input limit.
DEFAULT_MAX_PROMPT_TOKENS = 100_000
DEFAULT_GAP_NOTICE = "({turns} earlier turns of this conversation were left out to keep the prompt within its limit.)"


class Engine(Protocol):
    """What a session uses of its ``ContextEngine``: the public two-step driver and the settings
    it shares (a protocol, so that this module does not import the engine that makes sessions)."""

    budget: Budget
    dedupe_threshold: float | None
    estimator: Any

    async def gather(self, query: str, *, reader: Any = None) -> Gathered: ...
    def gather_sync(self, query: str, *, reader: Any = None) -> Gathered: ...
    async def aselect(
        self, gathered: Gathered, *, budget: int | None = None, mark: Mark | None = None, layout: Any = None
    ) -> Window: ...
    def select(
        self, gathered: Gathered, *, budget: int | None = None, mark: Mark | None = None, layout: Any = None
    ) -> Window: ...


class ContextSession:
    """The append-only prompt of one conversation over ``engine``; see the module docstring.
    The session renders its own layout (the cache layout, turn after turn), whatever the
    engine's ``layout``; the engine's sources, policy, budget, scorer and dedupe apply.

    ``reader``: who reads this conversation (a label or a set of labels; default None, an
    anonymous conversation that gets public items only), fixed for the session's life.
    ``max_prompt_tokens``: the transcript's ceiling (estimated tokens). ``cut_to``: the share of
    the ceiling a cut leaves (0.5: one cut, then room for as many turns again). ``gap_notice``:
    the text shown after a cut (``{turns}`` is the number of turns left out), or ``""``.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        max_prompt_tokens: int = DEFAULT_MAX_PROMPT_TOKENS,
        cut_to: float = 0.5,
        gap_notice: str = DEFAULT_GAP_NOTICE,
        reader: Any = None,
    ):
        # one reader set for the whole conversation: every turn stays in the transcript, so a
        # reader changed midway would read what earlier turns showed someone else
        self.readers = parse_readers(reader, "reader")
        if isinstance(max_prompt_tokens, bool) or not isinstance(max_prompt_tokens, int):
            raise ConfigError(f"max_prompt_tokens: must be an int, got {max_prompt_tokens!r}")
        if max_prompt_tokens <= engine.budget.total:
            raise ConfigError(
                f"max_prompt_tokens: must exceed the engine's per-call budget ({engine.budget.total}),"
                f" got {max_prompt_tokens}"
            )
        if isinstance(cut_to, bool) or not isinstance(cut_to, (int, float)) or not 0 < cut_to < 1:
            raise ConfigError(f"cut_to: must be in (0, 1), got {cut_to!r}")
        if not isinstance(gap_notice, str):
            raise ConfigError(f"gap_notice: must be a str, got {type(gap_notice).__name__}")
        try:
            gap_notice.format(turns=0)  # here, not at the first cut, where it could not be undone
        except (KeyError, IndexError, ValueError) as exc:
            raise ConfigError(f"gap_notice: only {{turns}} may be filled in, got {gap_notice!r} ({exc!r})") from None
        self.engine = engine
        self.max_prompt_tokens = max_prompt_tokens
        self.cut_to = float(cut_to)
        self.gap_notice = gap_notice
        self.system: str | None = None  # the stable block, frozen by the first call
        self.system_tokens = 0
        self.notice = ""
        self.cuts: list[SessionCut] = []
        self._stable: list[ContextItem] = []
        self._turns: list[SessionTurn] = []  # the retained turns, oldest first
        self._added: dict[int, list[ContextItem]] = {}  # turn number -> the items it added
        self._count = 0
        self._omitted = 0
        self._busy = threading.Lock()

    @property
    def turns(self) -> tuple[SessionTurn, ...]:
        """The turns the transcript holds now, oldest first."""
        return tuple(self._turns)

    def record_reply(self, reply: str) -> None:
        """The assistant's answer to the last call; it joins the transcript after that call's query."""
        if not isinstance(reply, str):
            raise TypeError(f"reply: expected str, got {type(reply).__name__}")
        if not self._turns:
            raise ContextError("record_reply: no call has been built in this session yet")
        last = self._turns[-1]
        if last.reply is not None:
            raise ContextError(f"record_reply: turn {last.number} already has a reply")
        last = dataclasses.replace(last, reply=reply)
        self._turns[-1] = dataclasses.replace(last, tokens=self._count_text(turn_text(last)))

    # -- building ----------------------------------------------------------------------------

    async def build(self, query: str, *, budget: int | None = None) -> SessionWindow:
        """The next call's prompt for ``query``; ``budget`` overrides what this call may add."""
        self._enter()
        try:
            gathered = await self.engine.gather(query, reader=self.readers)
            # a large build runs its stages on a worker thread (the session is busy meanwhile,
            # so nothing else touches it)
            plan = self._plan(query, budget)
            window = await self.engine.aselect(gathered, budget=budget, mark=plan.mark, layout="cache")
            return self._commit(plan, window)
        finally:
            self._busy.release()

    def build_sync(self, query: str, *, budget: int | None = None) -> SessionWindow:
        """``build`` without an event loop of your own (none is started when every source
        answers from memory and there is no scorer)."""
        self._enter()
        try:
            try:
                gathered = self.engine.gather_sync(query, reader=self.readers)
                plan = self._plan(query, budget)
                window = self.engine.select(gathered, budget=budget, mark=plan.mark, layout="cache")
            except ContextError as exc:
                if "running event loop" in str(exc):
                    raise ContextError(
                        "session.build_sync() was called inside a running event loop: use `await session.build(...)`"
                    ) from None
                raise
            return self._commit(plan, window)
        finally:
            self._busy.release()

    def _enter(self) -> None:
        # turns are appended in order: two builds at once would interleave one transcript;
        # a lock, not a flag: two threads calling build_sync at once must not both get through
        if not self._busy.acquire(blocking=False):
            raise ContextError("a ContextSession builds one call at a time: await the previous build first")

    def _plan(self, query: str, budget: int | None) -> _Plan:
        """What this call keeps of the transcript (and the cut, if any) and the hook that marks
        the candidates the kept transcript already shows; nothing is changed yet."""
        number = self._count + 1
        total = self.engine.budget.total if budget is None else Budget(budget).total
        keep, cut = self._plan_cut(number, query, total)
        return _Plan(number, keep, cut, self._shown(keep), self.engine.dedupe_threshold)

    def _commit(self, plan: _Plan, window: Window) -> SessionWindow:
        number, keep, cut, shown, found = plan.number, plan.keep, plan.cut, plan.shown, plan.found
        query = window.query
        # from here on nothing can fail: the cut and the turn are committed together
        if cut is not None:
            for t in self._turns[: len(self._turns) - keep]:
                self._added.pop(t.number, None)
            self._turns = self._turns[len(self._turns) - keep :]
            self._omitted += cut.omitted_turns
            self.notice = self.gap_notice.format(turns=self._omitted) if self.gap_notice else ""
            self.cuts.append(cut)
            window.trace.events.append(cut.event)
        fresh = list(window.items)  # history never gets here: it is in_transcript
        if self.system is None:
            self._stable = [i for i in fresh if i.stability == "stable"]
            self.system = stable_block(self._stable)
            self.system_tokens = self._count_text(self.system) if self.system else 0
            fresh = [i for i in fresh if i.stability != "stable"]
        else:
            # the system block's bytes never change: a stable item that was not in it joins
            # this turn's context instead, and the trace says so
            window.trace.events.extend(f"stable_changed:{i.id}" for i in fresh if i.stability == "stable")
        turn = SessionTurn(number, query, "\n\n".join(block(i) for i in fresh), tuple(i.id for i in fresh))
        turn = dataclasses.replace(turn, tokens=self._count_text(turn_text(turn)))
        self._turns.append(turn)
        self._added[number] = fresh
        self._count = number
        matched = tuple(dict.fromkeys(found))  # several candidates may match one shown item
        text = transcript_text(self.system, self.notice, self._turns)
        return SessionWindow(
            window=window,
            turn=number,
            system=self.system,
            notice=self.notice,
            turns=tuple(self._turns),
            shown=tuple(shown[k] for k in matched),
            prompt_tokens=self._count_text(text),
            stable_prefix_hash=stable_prefix_hash(self.system),
            stable_prefix_tokens=self.system_tokens,
            cut=cut,
        )

    # -- what is already shown ---------------------------------------------------------------

    def _shown(self, keep: int) -> list[tuple[ContextItem, int]]:
        """``(item, turn that showed it)`` for the system block and the ``keep`` newest turns."""
        out = [(i, 1) for i in self._stable]
        for t in self._turns[len(self._turns) - keep :]:
            out += [(i, t.number) for i in self._added.get(t.number, ())]
        return out

    # -- the ceiling -------------------------------------------------------------------------

    def _plan_cut(self, number: int, query: str, budget: int) -> tuple[int, SessionCut | None]:
        """How many of the newest turns stay, and the cut if there is one.

        The cut is decided before the candidates are marked, so that what it removes may be
        shown again in the same call; the new turn is therefore counted at its likely most: the
        whole budget (which bounds the context message the turn renders, wrappers and framing
        included) plus the query, or the largest turn so far if that is more (a turn also holds
        its reply)."""
        turns = self._turns
        new = max(budget + self._count_text(query), max((t.tokens for t in turns), default=0))
        held = sum(t.tokens for t in turns)
        notice = self._count_text(self.notice) if self.notice else 0
        if self.system_tokens + notice + held + new <= self.max_prompt_tokens:
            return len(turns), None
        target = self.cut_to * self.max_prompt_tokens
        base = self.system_tokens + new + (self._count_text(self.gap_notice) if self.gap_notice else 0)
        if base > self.max_prompt_tokens:
            raise ContextError(
                f"the session's system block ({self.system_tokens} tokens) and one call's budget and query"
                f" ({new}) alone exceed max_prompt_tokens ({self.max_prompt_tokens})"
            )
        keep, kept = 0, 0
        for t in reversed(turns):
            if base + kept + t.tokens > target:
                break
            keep += 1
            kept += t.tokens
        if keep == len(turns):
            return keep, None
        return keep, SessionCut(number, len(turns) - keep, held - kept, self.system_tokens + kept)

    def _count_text(self, text: str) -> int:
        # uncached: a transcript is a new string on every call, and the estimator's cache would
        # keep every one of them alive
        return int(self.engine.estimator.count_batch([text])[0])


class _Plan:
    """One call's plan: its number, the turns kept, the cut, what the kept transcript shows, and
    (filled by ``mark`` during the selection) the index in ``shown`` each match hit."""

    __slots__ = ("cut", "found", "keep", "number", "shown", "threshold")

    def __init__(
        self, number: int, keep: int, cut: SessionCut | None, shown: list[tuple[ContextItem, int]], threshold: Any
    ):
        self.number, self.keep, self.cut, self.shown, self.threshold = number, keep, cut, shown, threshold
        self.found: list[int] = []

    def mark(self, cands: Candidates, events: list[str]) -> None:
        self.found.extend(mark_shown(cands, self.shown, self.threshold, events))
