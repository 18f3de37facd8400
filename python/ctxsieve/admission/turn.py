"""``Turn``: admits every model call of one user turn, including the final call without tools.

>>> from ctxsieve.admission import Session
>>> turn = Session().turn("What is our refund window?", system="You answer from policy.",
...     memories=[{"id": "m1", "content": "Refunds: 30 days.", "score": 0.9}])
>>> adm = turn.admit()
>>> [m["role"] for m in adm.request.to_openai()["messages"]], adm.report.counts["memory"]["included"]
(['system', 'user', 'user'], 1)
>>> reply = {"role": "assistant", "content": "30 days."}
>>> usage = turn.record_response(reply, usage={"prompt_tokens": 70, "completion_tokens": 3})
>>> (usage.input_tokens, usage.source)
(70, 'provider')
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ctxsieve.admission.accounting import MESSAGE_FRAMING_TOKENS
from ctxsieve.admission.assembly import assembly_event, assembly_report, drop_event, render_context
from ctxsieve.admission.calls import Admission, CallRecord, LineageEntry, persist_snapshot
from ctxsieve.admission.context import SKILLS_HEADING, SystemPrompt
from ctxsieve.admission.errors import AudienceError, ContextBudgetError, TurnStateError
from ctxsieve.admission.events import CONTEXT_ASSEMBLY, CONTEXT_REFUSED, WINDOW_DROP
from ctxsieve.admission.limits import InputLimit
from ctxsieve.admission.prepared import prepare
from ctxsieve.admission.reports import RequestUsage, UsageTotals
from ctxsieve.admission.request import Request
from ctxsieve.admission.runlimits import RunBudget, RunLimits
from ctxsieve.admission.select import Selection, select_optional
from ctxsieve.admission.state import SessionState
from ctxsieve.audience import eligible, parse_readers
from ctxsieve.errors import ConfigError
from ctxsieve.messages import Message, tool_result

_TURN_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")

__all__ = ["Admission", "CallRecord", "LineageEntry", "RunLimits", "Turn"]


class Turn:
    """Admits each call of one user turn; create it with ``Session.turn``."""

    def __init__(
        self,
        session: SessionState,
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
    ):
        self.turn_id = turn_id or uuid.uuid4().hex
        if not isinstance(self.turn_id, str) or not _TURN_ID.fullmatch(self.turn_id):
            raise ConfigError(f"turn_id {turn_id!r}: expected 1-128 characters of A-Z a-z 0-9 _ -")
        self.session = session
        self.model = model
        self.audience = parse_readers(audience, "audience (the call's readers)")
        self.run = run if isinstance(run, RunBudget) else RunBudget(run or session.run_limits)
        self.prepared = prepare(
            session.accountant,
            system=system,
            user=user,
            history=history or (),
            memories=memories or (),
            tools=tools or (),
            skills=skills or (),
            labels=dict(labels or {}),
            attribution=attribution,
            audience=self.audience,
        )
        self._ongoing: list[Message] = []
        self._ongoing_text = 0
        self._ongoing_images = 0
        self._memory_max: int | None = None  # omissions are monotonic within the turn
        self._skills_max: int | None = None
        self._history_min = 0
        self._dropped_reported = 0
        self._context_cache: tuple[tuple[int, int], str | None] | None = None
        self._last_snapshot: tuple[str, str] | None = None
        self._lineage: dict[str, LineageEntry] = {}
        self._limits: dict[str, InputLimit] = {}
        self.calls: list[CallRecord] = []
        self.usage = UsageTotals()
        self.finished = False
        self._call_index = -1
        self._attempt = 0
        self._pending: Admission | None = None
        self._notes: list[str] = list(self.prepared.notes)

    # -- the loop adds messages ---------------------------------------------------------------

    def add(self, message: Any) -> None:
        """Add an assistant or tool message produced by this turn's loop (costed once): a
        ``Message``, an OpenAI Chat / Responses or Anthropic dict, an SDK object, or a provider
        response (its assistant message). A malformed one raises ``MessageError`` naming it
        (``turn.messages[3].role``); one whose audience does not include every reader of the
        turn raises ``AudienceError``. Either way nothing is added."""
        n = len(self._ongoing)
        costs = self.session.accountant.messages([message], [f"turn.messages[{n}]"])
        for cost in costs:
            if not eligible(cost.message.audience, self.audience):
                raise AudienceError(f"turn message {n}: its audience does not include every reader of this call")
        for cost in costs:
            self._ongoing.append(cost.message)
            self._ongoing_text += MESSAGE_FRAMING_TOKENS + cost.text_tokens
            self._ongoing_images += cost.images

    def add_tool_result(self, call_id: str, content: str, name: str | None = None) -> None:
        self.add(tool_result(call_id, content, name=name))

    @property
    def lineage(self) -> tuple[LineageEntry, ...]:
        return tuple(self._lineage.values())

    @property
    def messages(self) -> tuple[Message, ...]:
        """The assistant and tool messages this turn's loop added, as read."""
        return tuple(self._ongoing)

    @property
    def call_index(self) -> int:
        """The index of the latest admitted call of the turn (-1 before the first)."""
        return self._call_index

    @property
    def attempt(self) -> int:
        """The latest admitted call's attempt (0, then 1, 2, ... for its fallbacks)."""
        return self._attempt

    @property
    def notes(self) -> tuple[str, ...]:
        """Notes of the turn the reports repeat (e.g. a current message that is not a user's)."""
        return tuple(self._notes)

    # -- admission ----------------------------------------------------------------------------

    def admit(self, model: str | None = None, *, tools: bool = True) -> Admission:
        """Admit the next model call; ``tools=False`` for the final call without tools."""
        with self._rollback():
            self._begin_call()
            m = model or self.model
            return self._admit(m, tools, self.session.input_limit(m, self._limits))

    async def admit_async(self, model: str | None = None, *, tools: bool = True) -> Admission:
        with self._rollback():
            self._begin_call()
            m = model or self.model
            return self._admit(m, tools, await self.session.input_limit_async(m, self._limits))

    def fallback(self, model: str) -> Admission:
        """Re-admit the pending call for a fallback model: a smaller window shrinks optional context."""
        with self._rollback():
            tools = self._begin_fallback()
            return self._admit(model, tools, self.session.input_limit(model, self._limits))

    async def fallback_async(self, model: str) -> Admission:
        with self._rollback():
            tools = self._begin_fallback()
            return self._admit(model, tools, await self.session.input_limit_async(model, self._limits))

    @contextlib.contextmanager
    def _rollback(self) -> Iterator[None]:
        """A refused admission (budget, snapshot, config) leaves the turn as it was: no call happened."""
        saved = (self._call_index, self._attempt, self._pending)
        try:
            yield
        except BaseException:
            self._call_index, self._attempt, self._pending = saved
            raise

    def _begin_call(self) -> None:
        if self.finished:
            raise TurnStateError(f"turn {self.turn_id} is finished; start a new turn with Session.turn")
        self.run.check()
        self._call_index += 1
        self._attempt = 0
        self._pending = None

    def _begin_fallback(self) -> bool:
        if self._pending is None:
            raise TurnStateError("fallback() needs a call admitted with admit() and not yet answered")
        self.run.check()
        self._attempt += 1
        return bool(self._pending.request.tools)

    def _roster(self, budget: int) -> tuple[int, int]:
        return self.prepared.roster(budget, self._skills_max)

    def _required(self, limit: InputLimit, with_tools: bool) -> tuple[dict[str, int], int]:
        lim = self.session.limits
        n_skills, skills = self._roster(limit.skills_cap(lim.skills_fraction))
        required = self.prepared.required(lim, with_tools, self._ongoing_text, self._ongoing_images)
        required["skills"] = skills
        return required, n_skills

    def _select(
        self, limit: InputLimit, required: dict[str, int], n_skills: int, model: str | None
    ) -> tuple[Selection, int]:
        """Select optional context; the skill roster is the last thing to give way (after all
        memory and history), before the call is refused."""
        p, lim = self.prepared, self.session.limits

        def run() -> Selection:
            return select_optional(
                limit.tokens,
                required,
                p.memory_prefix,
                p.history_prefix,
                gap_tokens=p.gap_tokens,
                memory_ceiling=lim.memory_ceiling,
                history_ceiling=lim.history_ceiling,
                memory_max=self._memory_max,
                history_min_start=self._history_min,
                limit_origin=limit.origin,
                model=model,
            )

        try:
            return run(), n_skills
        except ContextBudgetError:
            if not n_skills:
                raise
        # everything optional is gone (only the gap notice stays when there is history)
        others = sum(v for k, v in required.items() if k != "skills")
        floor = p.gap_tokens if p.records else 0
        n_skills, required["skills"] = self._roster(min(required["skills"], limit.tokens - others - floor))
        return run(), n_skills

    def _admit(self, model: str | None, with_tools: bool, limit: InputLimit) -> Admission:
        attrs = {"turn_id": self.turn_id, "call_index": self._call_index, "attempt": self._attempt}
        with self.session.events.span("ctxsieve.admit", {**attrs, "model": model or ""}) as span:
            try:
                adm = self._admit_in_span(model, with_tools, limit)
            except ContextBudgetError as e:
                refused = {**attrs, "model": model or "", "input_limit": e.limit, "limit_origin": e.limit_origin}
                self.session.events.emit(CONTEXT_REFUSED, {**refused, "required": e.required, **e.breakdown})
                raise
            if span is not None:
                span.set_attribute("ctxsieve.estimated_input_tokens", adm.report.estimated_input_tokens)
                span.set_attribute("ctxsieve.input_limit", adm.limit.tokens)
            return adm

    def _admit_in_span(self, model: str | None, with_tools: bool, limit: InputLimit) -> Admission:
        p, s = self.prepared, self.session
        required, n_skills = self._required(limit, with_tools)
        sel, n_skills = self._select(limit, required, n_skills, model)
        request = Request(
            model=model,
            system=p.system_text + (SKILLS_HEADING + "".join(p.skill_lines[:n_skills]) if n_skills else ""),
            context=self._context(sel),
            current=p.current.message,
            messages=tuple(self._ongoing),
            tools=p.tools if with_tools else (),
        )
        # raises SnapshotError when the write fails: nothing below happens, the call does not
        snapshot_id, self._last_snapshot = persist_snapshot(
            self.session.snapshot_store, self.turn_id, self._call_index, request, self._last_snapshot
        )
        # commit: the call will happen with exactly this content
        self._memory_max, self._history_min = sel.memory_kept, sel.history_start
        self._skills_max = n_skills
        for e in [*p.pinned, *p.memories[: sel.memory_kept]]:
            self._lineage.setdefault(e.id, LineageEntry(e.id, e.source, self._call_index))
        self.run.model_calls += 1
        memory = required["memory"] + sel.memory_tokens  # pinned + retained
        breakdown = {**required, "memory": memory, "history": sel.history_tokens}
        estimate = sum(breakdown.values())
        if sel.history_start > self._dropped_reported:
            self._dropped_reported = sel.history_start
            s.events.emit(WINDOW_DROP, drop_event(self, sel))
        report = assembly_report(self, model, limit, sel, breakdown, snapshot_id, n_skills, with_tools)
        s.events.emit(CONTEXT_ASSEMBLY, assembly_event(report))
        adm = Admission(request, report, self._call_index, self._attempt, snapshot_id, limit, breakdown)
        self.calls.append(CallRecord(self._call_index, self._attempt, model, snapshot_id, estimate))
        self._pending = adm
        return adm

    def _context(self, sel: Selection) -> str | None:
        """The attributed-context message, regenerated only when what it retains changed."""
        key = (sel.memory_kept, sel.history_start)
        if self._context_cache is None or self._context_cache[0] != key:
            self._context_cache = (key, render_context(self.prepared, sel))
        return self._context_cache[1]

    # -- after the call -----------------------------------------------------------------------

    def record_response(self, message: Any = None, *, usage: Any = None) -> RequestUsage:
        """Record the pending call's reply (added to the loop's messages) and its usage.

        Provider-reported ``usage`` (OpenAI or Anthropic shape) is the source of truth; the
        estimate only stands in for what the provider did not report.
        """
        adm = self._pending
        if adm is None:
            raise TurnStateError("record_response() needs an admitted call that has not been answered")
        b = adm.breakdown
        breakdown = {
            "system": b["system"],
            "tools": b["tools"],
            "skills": b["skills"],
            "memory": b["memory"],
            "messages": b["messages"] + b["history"] + b["images"],
        }
        est = adm.report.estimated_input_tokens
        req = RequestUsage.build(
            estimated_input=est, input_budget=adm.limit.tokens, breakdown=breakdown, provider=usage
        )
        self.calls[-1].usage = req
        self.usage.add(req)
        self.session.usage.add(req)
        self.run.tokens += req.total_tokens
        if message is not None:
            self.add(message)
            self.run.tool_calls += len(self._ongoing[-1].tool_calls)
        self._pending = None
        return req

    def finish(self) -> dict[str, Any]:
        """Close the turn; returns its usage, calls and lineage, and updates the session totals."""
        if self.finished:
            raise TurnStateError(f"turn {self.turn_id} is already finished")
        self.finished = True
        summary = {
            "turn_id": self.turn_id,
            "usage": vars(self.usage).copy(),
            "calls": [
                {
                    "call_index": c.call_index,
                    "attempt": c.attempt,
                    "model": c.model,
                    "snapshot_id": c.snapshot_id,
                    "estimated_input_tokens": c.estimated_input_tokens,
                    "usage": dataclasses.asdict(c.usage) if c.usage else None,
                }
                for c in self.calls
            ],
            "lineage": [vars(e).copy() for e in self._lineage.values()],
            "run": self.run.snapshot(),
        }
        self.session.finish_turn(self.usage)
        return summary
