"""Token limits for the offloader, under whatever estimator the application counts with.

The offloader promises that what it leaves in the conversation (a preview with its notice, a
``ctx_read`` or ``ctx_grep`` answer) is within its limit as the application's estimator counts
it, so admission never sees a capped result over the cap. These are the three questions it asks,
each answered with a bounded number of estimator calls on bounded texts: a 100 MB result is
never handed to the estimator whole when its beginning already decides.

>>> from ctxsieve.tokenizers import get_estimator
>>> est = get_estimator("bytes/3")
>>> over(est, "x" * 30, 10), over(est, "x" * 31, 10), longest_prefix(est, "abcdefgh", 2)
(False, True, 'abcdef')
>>> lines_within(est, ["aaa", "bbb", "ccc"], 3)  # "aaa\\nbbb" is 7 bytes, 3 tokens
2
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxsieve.tokenizers import Estimator

# A text this many chars per allowed token longer than the limit is first judged by its
# beginning. No tokenizer the estimators model packs more than a few chars into a token on
# average over thousands of them, so the beginning alone is over in practice.
PROBE_CHARS_PER_TOKEN = 16
# Estimates are not exactly additive (a word or a run of newlines cut at the probe's end may
# cost a token more as two pieces); a probe must be over the limit by this much to decide.
PROBE_SLACK = 8


def over(est: Estimator, text: str, limit: int) -> bool:
    """Whether ``est`` counts ``text`` over ``limit`` tokens."""
    probe = max(4096, PROBE_CHARS_PER_TOKEN * (limit + PROBE_SLACK))
    if len(text) > 2 * probe:
        head = text[:probe]
        cut = max(head.rfind("\n"), head.rfind(" "))
        if cut > probe // 2:  # end the probe between words, where estimates add up
            head = head[: cut + 1]
        if est.one(head, cache=False) > limit + PROBE_SLACK:
            return True
    return est.one(text) > limit


def longest_prefix(est: Estimator, text: str, room: int) -> str:
    """The longest prefix of ``text`` that ``est`` counts within ``room`` tokens (binary search
    over a candidate of at most ``PROBE_CHARS_PER_TOKEN`` chars per token of room)."""
    if room <= 0 or not text:
        return ""
    candidate = text[: PROBE_CHARS_PER_TOKEN * room + 1]
    if est.one(candidate, cache=False) <= room:
        return candidate
    lo, hi = 0, len(candidate) - 1  # lo fits; every length above hi is known not to
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if est.one(candidate[:mid], cache=False) <= room:
            lo = mid
        else:
            hi = mid - 1
    return candidate[:lo]


def lines_within(est: Estimator, lines: Sequence[str], room: int) -> int:
    """How many leading ``lines``, joined by newlines, ``est`` counts within ``room`` tokens."""
    if not lines or est.one("\n".join(lines), cache=False) <= room:
        return len(lines)
    lo, hi = 0, len(lines) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if est.one("\n".join(lines[:mid]), cache=False) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo


__all__ = ["lines_within", "longest_prefix", "over"]
