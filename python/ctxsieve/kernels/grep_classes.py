"""Character sets of the grep dialect: sorted, disjoint, inclusive code-point ranges.

Every set the dialect can name is built here from the project's frozen Unicode tables, so a
pattern means the same on every interpreter and on both backends:

* ``\\w`` is the word character of ``words()`` (categories L*, M*, N*, Pc in Unicode 14.0), so
  ``²`` and ``Ⅻ`` are word characters; ``\\s`` is ``str.isspace`` in Unicode 14.0; ``\\d`` is
  the ASCII digits ``0-9`` only (a log's numbers, not every script's digits).
* Sets never contain surrogates: the text is cleaned (each surrogate becomes U+FFFD) before it
  is searched, so a surrogate could never be matched anyway.
* Case-insensitive matching (``(?i)``) closes a set under the frozen simple lower-case map:
  a character matches when some member of the set has the same lower case. ``İ`` (whose lower
  case is two characters) only matches itself.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from functools import cache

from ctxsieve.kernels._unicode_tables import LOWER, SPACE_RANGES, WORD_RANGES

Ranges = tuple[tuple[int, int], ...]

SURROGATES = (0xD800, 0xDFFF)
ANY: Ranges = ((0, 0xD7FF), (0xE000, 0x10FFFF))
WORD: Ranges = tuple(WORD_RANGES)
SPACE: Ranges = tuple(SPACE_RANGES)
DIGIT: Ranges = ((0x30, 0x39),)

# The simple lower case of every character that has one (a single code point); no lower-case
# target is itself a key, which _fold relies on.
_SIMPLE_LOWER = {cp: ord(low) for cp, low in LOWER.items() if len(low) == 1}
_CASED: Ranges = tuple((cp, cp) for cp in sorted(_SIMPLE_LOWER))


def normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sorted, merged (touching ranges joined), surrogates removed."""
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return _difference(tuple((a, b) for a, b in out), (SURROGATES,))


def _difference(a: Ranges, b: Ranges) -> Ranges:
    """``a`` minus ``b``, both normalized (``b`` may hold surrogates)."""
    out: list[tuple[int, int]] = []
    j = 0
    for lo, hi in a:
        while j < len(b) and b[j][1] < lo:
            j += 1
        k = j
        while k < len(b) and b[k][0] <= hi:
            if b[k][0] > lo:
                out.append((lo, b[k][0] - 1))
            lo = max(lo, b[k][1] + 1)
            k += 1
        if lo <= hi:
            out.append((lo, hi))
    return tuple(out)


def complement(ranges: Ranges) -> Ranges:
    return _difference(ANY, ranges)


def contains(ranges: Ranges, cp: int) -> bool:
    i = bisect_right(ranges, (cp, 0x110000)) - 1
    return i >= 0 and ranges[i][0] <= cp <= ranges[i][1]


@cache
def fold(ranges: Ranges) -> Ranges:
    """Every character whose simple lower case is the lower case of a member of ``ranges``."""
    lowered = set()  # lower cases of the members that have one
    for cp in _SIMPLE_LOWER:
        if contains(ranges, cp):
            lowered.add(_SIMPLE_LOWER[cp])
    uncased = _difference(ranges, _CASED)  # members that are their own lower case
    targets = normalize([*uncased, *((c, c) for c in lowered)])
    uppers = [(cp, cp) for cp, low in _SIMPLE_LOWER.items() if contains(targets, low)]
    return normalize([*targets, *uppers])


def is_word(ch: str) -> bool:
    return contains(WORD, ord(ch))
