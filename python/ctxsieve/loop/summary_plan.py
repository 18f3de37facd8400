"""What a framework-side compaction keeps verbatim, and its minimum-gain decision.

The same summary as the conversation's (``ctxsieve.messages.summary_sections``): the first user
message verbatim, each earlier summary verbatim (folded into the new one past half of
``threshold_tokens``), the new summary, and the identifiers the summarised messages mention
(``ctxsieve.messages.identifiers``). The decision is ``ctxsieve.conversation.compaction_gain``'s
arithmetic over the framework's own list: the framework sends the whole list on its next call,
so the kept messages after the summary (``R``) and the list itself (``P``, what the
summariser's request reads from the cache when it is ``prefix`` plus the instruction) are
counted from it; the system prompt and tools the framework adds are not known here and not
counted (the same in both branches of the rule, except for the summariser's cached read).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ctxsieve.conversation.compaction_gain import CompactionPolicy, Decision, GainInputs, decide
from ctxsieve.loop.adapters import MessageAdapter
from ctxsieve.messages.identifiers import identifiers, message_texts
from ctxsieve.messages.summary_sections import SummaryParts, read_parts, render_parts

MAX_IDENTIFIERS = 300

INSTRUCTION = (
    "[Compaction] The start of this conversation is about to be replaced by a summary for the "
    "assistant that continues it: every message above except the last {kept}. Write that summary "
    "now. Keep every fact, decision, file name, identifier, number and open question still needed; "
    "drop pleasantries and tool output that was only read once. {verbatim}Do not call a tool: "
    "answer with the summary text only."
)
_VERBATIM = "The first user message and any earlier summaries are kept word for word (do not repeat them). "
_FOLD = "Fold the earlier summary at the top into yours (it is replaced too). "


@dataclass(frozen=True)
class Plan:
    """The verbatim parts of the next summary and what the summariser is told."""

    first_task: str | None
    kept: tuple[tuple[str, str], ...]  # earlier summaries kept verbatim
    span: str
    identifiers: tuple[str, ...]
    previous_summary: str | None  # the earlier summaries to fold in (None: kept verbatim)
    instruction: str

    def text(self, new: str) -> str:
        """The summary's body (after the marker line the adapter writes)."""
        return render_parts(SummaryParts(self.first_task, (*self.kept, (self.span, new)), self.identifiers))


def instruction(kept_units: int, fold: bool) -> str:
    """The summariser's instruction; ``fold``: the earlier summary is replaced too."""
    units = f"{kept_units} exchange(s)" if kept_units else "message"
    return INSTRUCTION.format(kept=units, verbatim=_FOLD if fold else _VERBATIM)


def _texts(adapter: MessageAdapter, messages: Sequence[Any]) -> list[str]:
    read = getattr(adapter, "messages", None)
    if callable(read):
        return message_texts([m for raw in messages for m in read(raw)])
    out = []
    for m in messages:
        out.append(adapter.text(m))
        out += [text for _, text in adapter.tool_results(m)]
    return out


def plan(
    adapter: MessageAdapter,
    aged: Sequence[Any],
    kept_units: int,
    previous: str | None,
    covered: int,
    fold_tokens: int,
    count: Callable[[list[str]], list[int]],
) -> Plan:
    """The plan for summarising ``aged`` (``messages[body:...]``; ``previous``: the old summary's
    body, None when there is none)."""
    parts = read_parts(previous) if previous is not None else SummaryParts(None, ())
    task = parts.first_task
    if previous is None:  # the first compaction: the first user message is among the aged ones
        first = next((m for m in aged if adapter.role(m) == "user"), None)
        task = adapter.text(first) if first is not None else None
    ids = list(dict.fromkeys((*parts.identifiers, *identifiers(_texts(adapter, aged)))))[-MAX_IDENTIFIERS:]
    earlier = parts.summaries
    fold = bool(earlier) and sum(count([s for _, s in earlier])) > fold_tokens
    span = f"messages {1 if fold else covered + 1}-{covered + len(aged)}"
    ask = instruction(kept_units, fold)
    return Plan(
        task,
        () if fold else earlier,
        span,
        tuple(ids),
        "\n\n".join(s for _, s in earlier) if fold else None,
        ask,
    )


def gain(
    policy: CompactionPolicy,
    *,
    dropped: int,
    verbatim: int,
    summarised: int,
    retained: int,
    prefix: int,
    instruction: int,
    calls: int,
) -> Decision:
    """The rule over a framework's list (module doc)."""
    inputs = GainInputs(
        dropped=dropped,
        summary=verbatim + math.ceil(policy.summary_ratio * summarised),
        verbatim=verbatim,
        retained=retained,
        prefix=prefix,
        uncached=instruction,
        remaining_calls=calls,
    )
    return decide(inputs, policy.pricing)


def remaining_calls(policy: CompactionPolicy, messages: Sequence[Any], adapter: MessageAdapter) -> int:
    """``policy.remaining_calls`` for a framework's list (a callable gets the list); None: as
    many calls as the list shows assistant messages."""
    n = policy.remaining_calls
    if callable(n):
        got = n(messages)
        if isinstance(got, bool) or not isinstance(got, int) or got < 0:
            raise ValueError(f"CompactionPolicy.remaining_calls returned {got!r}, expected an int >= 0")
        return got
    if n is not None:
        return n
    return max(1, sum(1 for m in messages if adapter.role(m) == "assistant"))


__all__ = ["INSTRUCTION", "MAX_IDENTIFIERS", "Plan", "gain", "instruction", "plan", "remaining_calls"]
