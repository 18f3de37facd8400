"""The summary message: the marker line that opens every summary a compaction writes.

It records how many original messages the summary replaces, so positions in the conversation
survive repeated compaction (session search reports original positions).

>>> parse_summary(summary_header(12) + "They chose plan B.")
(12, 'They chose plan B.')
"""

from __future__ import annotations

import re

_SUMMARY_RE = re.compile(r"\A\[Summary of the (\d+) earlier messages of this conversation\]\n")


def summary_header(covered: int) -> str:
    return f"[Summary of the {covered} earlier messages of this conversation]\n"


def parse_summary(text: str) -> tuple[int, str] | None:
    """``(covered, summary text)`` when ``text`` opens with a summary header, else None."""
    m = _SUMMARY_RE.match(text)
    return (int(m.group(1)), text[m.end() :]) if m else None


__all__ = ["parse_summary", "summary_header"]
