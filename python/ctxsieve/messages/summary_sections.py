"""The structured summary a compaction writes: sections that later compactions read back exactly.

After the marker line (``messages.summary``) the summary holds, each under a header that states
its length in characters:

* the conversation's first user message, verbatim (the task: a summary of a summary must not
  paraphrase it away);
* one section per compaction so far, ``Summary of messages a-b``, each kept verbatim by the
  compactions after it (unless folded, see ``ctxsieve.conversation.compaction``);
* the identifiers the summarised messages mention (``messages.identifiers``), one per line:
  always present (empty when there are none), it ends the sections.

A header states its body's length, so reading a section back never depends on what the
summariser wrote (a model's text may contain anything, header-like lines included). Whatever
follows the identifiers section (pinned items the conversation carries, whose text may imitate
a header: a retrieved page can say anything) is not part of the summary, and the first task is
only ever the first section.
A summary without sections (written before this format, or by another tool) reads back as one
earlier summary.

>>> parts = SummaryParts("Fix the refund bug.", (("messages 1-4", "They found it."),), ("src/refund.py",))
>>> read_parts(render_parts(parts)) == parts
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FIRST_TASK = "The conversation's first user message, verbatim"
IDENTIFIERS = "Identifiers the summarised messages mention"
_SUMMARY = "Summary of "
_HEADER = re.compile(r"\[([^\]\n]{1,200}) \(([0-9]{1,9}) characters\)\]\n")


@dataclass(frozen=True)
class SummaryParts:
    """``first_task``: the first user message's text (None: the summary does not hold it);
    ``summaries``: ``(span, text)`` per compaction, oldest first (``span`` like ``messages 1-12``);
    ``identifiers``: in order of first mention."""

    first_task: str | None
    summaries: tuple[tuple[str, str], ...]
    identifiers: tuple[str, ...] = ()


def _section(title: str, body: str) -> str:
    return f"[{title} ({len(body)} characters)]\n{body}"


def render_parts(parts: SummaryParts) -> str:
    """The summary's body (after the marker line), sections separated by a blank line."""
    out = []
    if parts.first_task is not None:
        out.append(_section(FIRST_TASK, parts.first_task))
    out += [_section(_SUMMARY + span, text) for span, text in parts.summaries]
    out.append(_section(IDENTIFIERS, "\n".join(parts.identifiers)))  # the end of the sections
    return "\n\n".join(out)


def read_parts(body: str) -> SummaryParts:
    """The sections of a summary's body; a body without sections is one earlier summary."""
    first: str | None = None
    summaries: list[tuple[str, str]] = []
    ids: tuple[str, ...] = ()
    pos, found = 0, False
    while True:
        m = _HEADER.match(body, pos)
        if m is None:
            break
        title, n = m.group(1), int(m.group(2))
        end = m.end() + n
        if end > len(body):
            break  # a header whose body is cut short: not one of ours
        text = body[m.end() : end]
        if title == FIRST_TASK and found:
            break  # the task opens the sections: a later one is something else's text
        found = True
        if title == FIRST_TASK:
            first = text
        elif title == IDENTIFIERS:
            ids = tuple(line for line in text.split("\n") if line)
            break  # the last section: what follows is not the summary's
        elif title.startswith(_SUMMARY):
            summaries.append((title[len(_SUMMARY) :], text))
        pos = end + 2 if body.startswith("\n\n", end) else len(body) + 1
    if not found:
        text = body.strip()
        return SummaryParts(None, (("earlier messages", text),) if text else ())
    return SummaryParts(first, tuple(summaries), ids)


__all__ = ["FIRST_TASK", "IDENTIFIERS", "SummaryParts", "read_parts", "render_parts"]
