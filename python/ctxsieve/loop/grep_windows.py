"""Where the matches are in a long line: ``ctx_grep`` shows windows around them, not the line's start.

The grep kernel (either backend) says which lines match; for a matching line longer than a
window this module finds the matches inside it, so the agent sees each one with the text around
it. A window is at most ``width`` characters, centred on a match (on its middle when the pattern
is a plain literal, whose start is known, else on where the match ends), and windows never
overlap: after a window the search resumes at its end, so a match that begins inside a window
and ends after it is shown by that window's tail.

Positions come from the same compiled program the reference backend matches with
(``Compiled.first_end``, a Pike VM: the earliest end of a match starting at or after a position,
with ``^ $ \\b \\B`` judged against the whole line), so both backends show the same windows. A
plain literal pattern (no class, repetition, anchor or ``(?i)``) is found with ``str.find``
instead, at C speed. The VM runs at about 4 MB/s in Python; ``scan`` bounds the characters it
may examine per ``ctx_grep`` call, and a search stopped by it says where, so the agent can read
on with ``ctx_read(..., unit="chars")``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxsieve.kernels.grep_dialect import parse
from ctxsieve.kernels.grep_program import compile_pattern
from ctxsieve.kernels.grep_tree import Chars, Concat, Node
from ctxsieve.kernels.reference import clean

SCAN_CHARS = 4 << 20  # characters the Pike VM may examine per ctx_grep call (about 1 s)


@dataclass
class Scan:
    """What is left of one call's budget of characters examined by the VM."""

    left: int = SCAN_CHARS


def _flat(node: Node) -> list[Node]:
    if isinstance(node, Concat):
        return [x for item in node.items for x in _flat(item)]
    return [node]


def literal(pattern: str) -> str | None:
    """The text a pattern matches when it is a plain case-sensitive literal, else None."""
    items = _flat(parse(clean(pattern)))
    if not items or not all(isinstance(x, Chars) and x.literal is not None for x in items):
        return None
    return "".join(x.literal for x in items if isinstance(x, Chars) and x.literal is not None)


def windows(
    line: str, pattern: str, width: int, max_windows: int, scan: Scan
) -> tuple[list[tuple[int, int]], int | None]:
    """Up to ``max_windows`` windows ``(start, end)`` of ``line`` around its matches, in order, and
    the position where the search stopped on ``scan``'s budget (None: the line was searched to its
    end or ``max_windows`` were found). ``pattern`` is already known to be valid."""
    lit = literal(pattern)
    compiled = compile_pattern(clean(pattern))
    out: list[tuple[int, int]] = []
    pos = 0
    half = width // 2
    while len(out) < max_windows and pos <= len(line):
        if lit:
            s = line.find(lit, pos)
            if s < 0:
                return out, None
            end = s + len(lit)
            centre = (s + end) // 2
        else:
            stop = min(len(line), pos + scan.left)
            found = compiled.first_end(line, pos, stop)
            scan.left -= (stop if found is None else found) - pos
            if found is None:
                return out, (stop if stop < len(line) else None)
            end = centre = found
        a = max(pos, min(centre - half, len(line) - width), 0)
        b = min(len(line), a + width)
        if end > b:  # a match longer than the window: its last ``width`` chars
            a, b = end - width, end
        out.append((a, b))
        pos = b if b > pos else pos + 1  # an empty match at the end of a window still moves on
    return out, None


__all__ = ["SCAN_CHARS", "Scan", "literal", "windows"]
