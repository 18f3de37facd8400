"""What a turn fixes once, at its start: the costed parts of every call it will admit.

Memories are filtered by audience, ranked and costed as context fragments; history is grouped
into whole records, filtered by audience and costed per message (cached across turns by the
session's ``Accountant``). The prefix sums built here let each later call select in O(log n).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from ctxsieve.admission.accounting import MESSAGE_FRAMING_TOKENS, Accountant, MessageCost
from ctxsieve.admission.context import (
    GAP_NOTICE_WIDEST,
    HISTORY_HEADING,
    MEMORY_HEADING,
    SKILLS_HEADING,
    Evidence,
    SystemPrompt,
    coerce_evidence,
    coerce_skills,
    context_preamble,
    memory_fragment,
    message_fragment,
    rank_evidence,
)
from ctxsieve.admission.errors import AudienceError
from ctxsieve.admission.limits import Limits
from ctxsieve.admission.messages import Message, Record, expand_history, group_records, read_history_message, read_user
from ctxsieve.audience import Readers, eligible
from ctxsieve.errors import ConfigError
from ctxsieve.messages import MessageError


def _prefix(costs: Sequence[int]) -> list[int]:
    return [0, *accumulate(costs)]


@dataclass
class Prepared:
    system_text: str
    system_tokens: int
    skill_lines: list[str]
    skill_prefix: list[int]
    skills_heading_tokens: int
    tools: tuple[Mapping[str, Any], ...]
    tools_tokens: int
    current: MessageCost
    preamble: str
    preamble_tokens: int
    pinned: list[Evidence]
    pinned_text: list[str]
    pinned_tokens: int
    memories: list[Evidence]
    memory_prefix: list[int]
    memory_ineligible: int
    records: list[Record]
    history_prefix: list[int]
    turns_before: list[int]
    history_ineligible: int
    gap_tokens: int
    notes: list[str] = field(default_factory=list)
    record_text: list[str] = field(default_factory=list)
    memory_text: list[str] = field(default_factory=list)

    def roster(self, budget: int, at_most: int | None) -> tuple[int, int]:
        """How many whole roster entries fit ``budget`` (heading included), never more than
        ``at_most`` (what an earlier call of the turn kept); returns (entries, tokens)."""
        n = 0
        if self.skill_lines and budget - self.skills_heading_tokens > 0:
            n = bisect_right(self.skill_prefix, budget - self.skills_heading_tokens) - 1
        if at_most is not None:
            n = min(n, at_most)
        return n, (self.skill_prefix[n] + self.skills_heading_tokens if n else 0)

    def required(self, limits: Limits, with_tools: bool, loop_text: int, loop_images: int) -> dict[str, int]:
        """Required sections but the roster: ``loop_*`` are the turn's own messages' costs."""
        cur = self.current
        return {
            "system": self.system_tokens,
            "skills": 0,
            "tools": self.tools_tokens if with_tools else 0,
            "messages": MESSAGE_FRAMING_TOKENS + cur.text_tokens + loop_text + self.preamble_tokens,
            "images": (cur.images + loop_images) * limits.image_tokens,
            "overhead": limits.protocol_overhead,
            "memory": self.pinned_tokens,  # pinned memories are required
        }

    def omitted_turns(self, start: int) -> int:
        """How many distinct user turns have records before ``start`` (all omitted or part)."""
        return self.turns_before[start]


def prepare(
    acc: Accountant,
    *,
    system: str | SystemPrompt,
    user: Any,
    history: Sequence[Any],
    memories: Sequence[Any],
    tools: Sequence[Mapping[str, Any]],
    skills: Sequence[Any],
    labels: Mapping[str, str],
    attribution: str | None,
    audience: Readers,
) -> Prepared:
    notes: list[str] = []
    for i, t in enumerate(tools):
        if not isinstance(t, Mapping):
            raise ConfigError(
                f"tools[{i}]: expected a tool schema mapping (OpenAI or Anthropic), got {type(t).__name__}"
            )
    system_text = system.render() if isinstance(system, SystemPrompt) else str(system)
    preamble = context_preamble(labels, attribution)
    lines = coerce_skills(skills)
    fixed = acc.texts([system_text, SKILLS_HEADING, preamble + MEMORY_HEADING + HISTORY_HEADING, GAP_NOTICE_WIDEST])
    skill_costs = acc.texts(lines)
    read_in = acc.messages([user], ["user"], read_user)
    if len(read_in) != 1:
        raise MessageError(f"user: the current message reads as {len(read_in)} messages, expected one")
    (current,) = read_in
    if not eligible(current.message.audience, audience):
        raise AudienceError("current message: its audience does not include every reader of this call")
    if current.message.role != "user":
        notes.append(f"current message has role {current.message.role!r}; sent as given")

    # memories: audience first, then relevance order, then cost as rendered
    all_mem = coerce_evidence(memories)
    allowed = [e for e in all_mem if eligible(e.audience, audience)]
    pinned = [e for e in allowed if e.pinned]
    mem = rank_evidence([e for e in allowed if not e.pinned])
    pin_costs, pin_texts = acc.fragments(
        [e.owner for e in pinned], [e.id for e in pinned], lambda i: memory_fragment(pinned[i])
    )
    mem_costs, mem_texts = acc.fragments([e.owner for e in mem], [e.id for e in mem], lambda i: memory_fragment(mem[i]))

    # history: whole records, audience per record, cost per message fragment
    entries = expand_history(history)
    hist_costs = acc.messages([e[0] for e in entries], [e[1] for e in entries], read_history_message)
    msgs: list[Message] = [c.message for c in hist_costs]
    records = group_records(msgs)
    if any(m.audience is not None for m in msgs):
        kept = [r for r in records if all(eligible(m.audience, audience) for m in r.messages)]
    else:
        kept = records
    # one fragment per message, keyed by the object it was read from, which of its messages it
    # is, and its turn number (cached across turns)
    positions = [r.start + j for r in kept for j in range(len(r.messages))]
    owners = [hist_costs[i].owner for i in positions]
    turns = [r.turn for r in kept for _ in r.messages]
    keys = [(hist_costs[i].part, t) for i, t in zip(positions, turns)]
    frag_msgs = [msgs[i] for i in positions]
    frag_costs, frag_texts = acc.fragments(owners, keys, lambda i: message_fragment(frag_msgs[i], turns[i]))
    rec_costs: list[int] = []
    rec_texts: list[str] = []
    pos = 0
    for r in kept:
        end = pos + len(r.messages)
        rec_costs.append(sum(frag_costs[pos:end]))
        rec_texts.append(frag_texts[pos] if end == pos + 1 else "".join(frag_texts[pos:end]))
        pos = end
    turns_before = [0]
    for i, r in enumerate(kept):
        new_turn = i == 0 or r.turn != kept[i - 1].turn
        turns_before.append(turns_before[-1] + (1 if new_turn else 0))

    return Prepared(
        system_text=system_text,
        system_tokens=MESSAGE_FRAMING_TOKENS + fixed[0],
        skill_lines=lines,
        skill_prefix=_prefix(skill_costs),
        skills_heading_tokens=fixed[1],
        tools=tuple(tools),
        tools_tokens=sum(acc.tool_schemas(list(tools))),
        current=current,
        preamble=preamble,
        preamble_tokens=MESSAGE_FRAMING_TOKENS + fixed[2],
        pinned=pinned,
        pinned_text=pin_texts,
        pinned_tokens=sum(pin_costs),
        memories=mem,
        memory_prefix=_prefix(mem_costs),
        memory_ineligible=len(all_mem) - len(allowed),
        records=kept,
        history_prefix=_prefix(rec_costs),
        turns_before=turns_before,
        history_ineligible=len(records) - len(kept),
        gap_tokens=fixed[3],
        notes=notes,
        record_text=rec_texts,
        memory_text=mem_texts,
    )
