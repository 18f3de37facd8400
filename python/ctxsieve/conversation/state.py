"""The state a ``Conversation`` keeps, and how it costs a message: the base the admission
functions (``admit``, ``compaction``) work on, apart from the loop methods, so that neither
imports the other."""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from ctxsieve.admission.accounting import schema_json
from ctxsieve.admission.calls import CallRecord, checked_snapshot_store
from ctxsieve.admission.context import SystemPrompt, coerce_skills
from ctxsieve.admission.events import EventCallback, Events
from ctxsieve.admission.limits import InputLimit, Limits, WindowLookup
from ctxsieve.admission.reports import UsageTotals
from ctxsieve.admission.runlimits import RunBudget, RunLimits
from ctxsieve.audience import parse_readers
from ctxsieve.conversation.caching import cache_settings
from ctxsieve.conversation.call import Call
from ctxsieve.conversation.compaction_gain import CompactionPolicy, Decision
from ctxsieve.conversation.context import Shown, TurnContext
from ctxsieve.conversation.cuts import DEFAULT_GAP_NOTICE, Cut
from ctxsieve.conversation.overflow_learned import Learned
from ctxsieve.conversation.reasoning import kept
from ctxsieve.conversation.tool_roster import Roster
from ctxsieve.conversation.transcript import Transcript
from ctxsieve.errors import ConfigError
from ctxsieve.messages import Message
from ctxsieve.messages.providers import ProviderProfile, resolve_profile
from ctxsieve.messages.repair import Repair
from ctxsieve.messages.texts import sent_texts
from ctxsieve.messages.tools import tool_parts
from ctxsieve.messages.wire import WireCache
from ctxsieve.tokenizers import Estimator, resolve_estimator
from ctxsieve.tokenizers.images import message_image_tokens
from ctxsieve.tokenizers.usage_calibrator import Calibration, Observation, checked_calibrator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

_CONVERSATION_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")


class State:
    """Configuration, transcript and per-call bookkeeping of one conversation."""

    def __init__(
        self,
        engine: Any = None,
        *,
        system: str | SystemPrompt = "",
        tools: Sequence[Mapping[str, Any]] = (),
        limits: Limits | None = None,
        model: str | None = None,
        estimator: Any = None,
        reader: Any = None,
        offloader: Any = None,
        compactor: Any = None,
        history: Any = None,
        window_lookup: WindowLookup | None = None,
        snapshot_store: Any = None,
        calibrator: Any = None,
        on_event: EventCallback | None = None,
        run_limits: RunLimits | RunBudget | None = None,
        cut_to: float = 0.5,
        conversation_id: str | None = None,
        skills: Sequence[Any] = (),
        labels: Mapping[str, str] | None = None,
        gap_notice: str = DEFAULT_GAP_NOTICE,
        deferred_tools: Sequence[str] = (),
        provider: str | ProviderProfile | None = None,
        prompt_cache_key: str | None = None,
        cache_ttl: str | None = None,
        compaction: Any = None,
    ):
        self.engine = engine
        self.profile = resolve_profile(provider)  # caching and reasoning rules (None: none given)
        # whose image formula applies (None: Limits.image_tokens per image)
        self.provider = self.profile.image_formula if self.profile is not None else None
        self.limits = limits or Limits()
        self.model = model
        if estimator is None:
            estimator = engine.estimator if engine is not None else self.limits.tokenizer
        self.estimator: Estimator = resolve_estimator(estimator)
        self.readers = parse_readers(reader, "reader")
        self.offloader = offloader
        if compactor is not None and not callable(getattr(compactor, "summarize", None)):
            raise ConfigError(f"compactor: expected an object with an async summarize(request), got {compactor!r}")
        self.compactor = compactor
        if compaction is not None and not isinstance(compaction, CompactionPolicy):
            raise ConfigError(f"compaction: expected a CompactionPolicy or None, got {compaction!r}")
        self.compaction: CompactionPolicy | None = compaction  # when to compact early (None: when a call must)
        self.compactions: list[Decision] = []  # every compaction decision, with its arithmetic
        self._compaction_report: Decision | None = None  # the last decision, for the next call's report
        self._identifiers: dict[int, tuple[Message, tuple[str, ...]]] = {}  # per message, for compaction
        self._declined_at = 0  # what the older turns held when the rule last declined
        self.history = history
        self.window_lookup = window_lookup
        self.snapshot_store = checked_snapshot_store(snapshot_store)
        self.events = Events(on_event)
        self.calibrator = checked_calibrator(calibrator)  # learns from provider usage (opt-in)
        self._calibration: tuple[Calibration, int, int] | None = None  # what the last call applied
        self._learned = Learned()  # what provider overflows taught (conversation.overflow)
        self._observation: Observation | None = None  # what its usage taught
        # a RunBudget shared by several conversations makes its allowances span them
        self.run = run_limits if isinstance(run_limits, RunBudget) else RunBudget(run_limits or RunLimits())
        if isinstance(cut_to, bool) or not isinstance(cut_to, (int, float)) or not 0 < cut_to < 1:
            raise ConfigError(f"cut_to: must be in (0, 1), got {cut_to!r}")
        self.cut_to = float(cut_to)
        if conversation_id is not None and (
            not isinstance(conversation_id, str) or not _CONVERSATION_ID.fullmatch(conversation_id)
        ):
            # it names the conversation's snapshots in a store: refused, never altered to fit
            raise ConfigError(f"conversation_id {conversation_id!r}: expected 1-100 characters of A-Z a-z 0-9 _ -")
        self.id = conversation_id or uuid.uuid4().hex
        self.caching = cache_settings(self.profile, prompt_cache_key, cache_ttl, self.id)
        self._reasoning_floor = 0  # turns before it send no droppable reasoning (conversation.reasoning)
        for i, t in enumerate(tools):
            if not isinstance(t, Mapping):
                raise ConfigError(f"tools[{i}]: expected a tool schema mapping, got {type(t).__name__}")
            tool_parts(t, f"tools[{i}]")  # a schema every provider can take, checked now
        self.tools = tuple(tools)
        # which tools every call sends and which wait for tool_search (fixed by the first call)
        self.roster = Roster.build(self.tools, deferred_tools)
        self.roster.check_name(self.limits.tools_fraction)
        self._tools_tokens = sum(MESSAGE_FRAMING_TOKENS + n for n in self._count([schema_json(t) for t in self.tools]))
        self._instructions = system.render() if isinstance(system, SystemPrompt) else str(system)
        self._skills = coerce_skills(skills)
        self.labels = dict(labels or {})
        for k, v in self.labels.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise ConfigError(f"labels: expected str keys and values, got {k!r}: {v!r}")
        if not isinstance(gap_notice, str):
            raise ConfigError(f"gap_notice: must be a str, got {type(gap_notice).__name__}")
        try:  # here, not at the first cut, where it could not be undone
            gap_notice.format(turns=0, tokens=0, search="")
        except (KeyError, IndexError, ValueError) as exc:
            raise ConfigError(
                f"gap_notice: only {{turns}}, {{tokens}} and {{search}} may be filled in, got {gap_notice!r} ({exc!r})"
            ) from None
        self.gap_notice = gap_notice
        self.skills_included = 0  # roster entries the system prompt holds (fixed by the first call)
        self._base_system = self._instructions  # the system prompt's head; the first call adds labels and skills
        self._base_system_tokens = self._text_cost(self._base_system)
        self._attribution: str | None = None  # who sent the current turn's message
        self.system: str | None = None  # frozen by the first call: the stable prefix
        self._system_tokens = 0
        self.transcript = Transcript()
        self._wire = WireCache()  # each message written once across calls
        self._seen: list[Message] = []  # the loop's messages as given (before any capping), for sync
        self._open: set[str] = set()  # tool calls still without a result
        self._call_ids: set[str] = set()
        self._suspect = False  # a result without its call, or an empty or repeated call id
        self.shown = Shown()
        self.turn = 0  # user turns so far
        self._turn_start = 0  # transcript index where the current user turn begins
        self._query: str | None = None  # the current turn's text, while its context is pending
        self.context: TurnContext | None = None  # the current turn's engine contribution
        self.cuts: list[Cut] = []
        self.repairs: list[Repair] = []  # what the conversation repaired before its calls
        self.overflows: list[Any] = []  # each "context too long" answer (conversation.overflow.OverflowEvent)
        self._notice: tuple[Message, int] | None = None
        self._last: tuple[int, str, int, bool, int] | None = None  # (start, system, notice id, tools, end) sent last
        self._windows: dict[str, InputLimit] = {}
        self._limit_tokens = self.limits.input_ceiling  # the limit of the call being admitted
        self._call_index = -1
        self._attempt = 0
        self._pending: Call | None = None
        self._last_snapshot: tuple[str, str] | None = None
        self.calls: list[CallRecord] = []
        self.usage = UsageTotals()
        self._busy = threading.Lock()

    def _count(self, texts: list[str]) -> list[int]:
        return self.estimator.count(texts) if texts else []

    def _render_rules(self, older: int, notice: bool) -> dict[str, Any]:
        """What a ``Call`` of this conversation renders by (its calls' and the summariser's
        alike): the written forms, the tool roster, the cache key and retention, and the
        reasoning floor (``older`` retained messages before it, after the gap notice if any)."""
        return {
            "wire": self._wire,
            "roster": self.roster if self.roster.deferred else None,
            "caching": self.caching,
            "reasoning_floor": older + (1 if notice and older else 0),
        }

    def _text_cost(self, text: str) -> int:
        """A text sent as one message of its own (the system prompt): framing + its estimate."""
        return MESSAGE_FRAMING_TOKENS + self._count([text])[0] if text else 0

    def _cost(self, m: Message) -> int:
        if self.profile is not None and m.role == "assistant" and m.reasoning:
            m = self._reasoning_sent(m)  # count the reasoning the provider's rule sends back, no more
        # a tool message goes out as one provider message per result (OpenAI Chat): framing each
        framed = max(1, len(m.parts)) if m.role == "tool" else 1
        return framed * MESSAGE_FRAMING_TOKENS + sum(self._count(sent_texts(m))) + self._images(m)

    def _reasoning_sent(self, m: Message) -> Message:
        # "tool_turns": does the current turn make a tool call at or before m (the scan is
        # bounded by the turn, and only runs for a reasoning message)?
        profile = self.profile
        calls = bool(m.tool_calls) or (
            profile is not None
            and profile.reasoning == "tool_turns"
            and any(x.tool_calls for x in self.transcript.messages(self._turn_start))
        )
        return kept(profile, m, turn_calls=calls)

    def _images(self, m: Message) -> int:
        if not m.images:
            return 0
        if self.provider is None:
            return len(m.images) * self.limits.image_tokens
        # the provider's formula where the size is known, the configured rate where it is not
        return message_image_tokens(m, self.provider, self.limits.image_tokens, model=self.model)
