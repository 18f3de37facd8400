"""Cuts: when a call would not fit, the oldest whole units leave the prompt, in one step.

A cut moves the transcript's retained start to a unit boundary (a tool call never leaves
without its results) so that what stays costs at most ``cut_to`` of the input limit: one cache
miss, then room for as many calls again. The prompt then opens with a gap notice saying how
much is not shown and how to fetch it (``session_search``, when the conversation archives what
it cuts), followed by any pinned item the cut removed, so pinned content is in every call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxsieve.admission.context import SESSION_SEARCH_TOOL
from ctxsieve.messages import Message, Text
from ctxsieve.stages.render import block
from ctxsieve.types import ContextItem


@dataclass(frozen=True, slots=True)
class Cut:
    """One cut: at call ``call_index``, messages up to ``end`` (exclusive) left the prompt;
    ``omitted_messages``/``omitted_turns``/``omitted_tokens`` in total since the start."""

    call_index: int
    end: int
    omitted_messages: int
    omitted_turns: int
    omitted_tokens: int
    retained_tokens: int
    summarized: bool = False

    @property
    def event(self) -> dict[str, int | bool]:
        return {
            "call_index": self.call_index,
            "omitted_turns": self.omitted_turns,
            "omitted_records": self.omitted_messages,
            "omitted_tokens": self.omitted_tokens,
            "retained_history_tokens": self.retained_tokens,
            "summarized": self.summarized,
        }


DEFAULT_GAP_NOTICE = (
    "[{turns} earlier turn(s) of this conversation are not shown here, in whole or in part "
    "({tokens} estimated tokens).{search}]"
)


def gap_notice(
    template: str, turns: int, tokens: int, searchable: bool, pinned: Sequence[ContextItem] = ()
) -> Message | None:
    """The user message that opens the prompt after a cut (None: no notice and nothing pinned)."""
    how = f" Call the {SESSION_SEARCH_TOOL} tool to fetch them if they matter." if searchable else ""
    parts = [template.format(turns=turns, tokens=tokens, search=how)] if template else []
    parts += [block(i) for i in pinned]
    return Message("user", (Text("\n\n".join(parts)),)) if parts else None
