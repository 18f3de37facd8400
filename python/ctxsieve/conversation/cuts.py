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


def gap_notice(turns: int, tokens: int, searchable: bool, pinned: Sequence[ContextItem] = ()) -> Message:
    """The user message that opens the prompt after a cut."""
    how = f" Call the {SESSION_SEARCH_TOOL} tool to fetch them if they matter." if searchable else ""
    text = (
        f"[{turns} earlier turn(s) of this conversation are not shown here, in whole or in part "
        f"({tokens} estimated tokens).{how}]"
    )
    if pinned:
        text += "\n\n" + "\n\n".join(block(i) for i in pinned)
    return Message("user", (Text(text),))
