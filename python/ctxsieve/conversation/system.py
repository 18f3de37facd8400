"""The conversation's system prompt: the caller's instructions, the conversation's labels and
the skill roster, fixed by the first call; the engine's stable items join it then too.

The roster is cut to whole entries that fit ``Limits.skills_fraction`` of the first call's
window (Acolyte's skill roster): a roster entry is never cut in half, and the system prompt
never changes afterwards, so every later call reuses it from the provider's cache.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ctxsieve.admission.context import SKILLS_HEADING

Count = Callable[[list[str]], list[int]]


def head(base: str, labels: Mapping[str, str], skills: Sequence[str], skills_cap: int, count: Count) -> tuple[str, int]:
    """The system prompt before the stable items, and how many roster entries it holds.

    >>> thirds = lambda texts: [len(x) // 3 for x in texts]
    >>> text, n = head("Be brief.", {"channel": "email"}, ["- search: find pages\\n"], 100, thirds)
    >>> print(text)
    Be brief.
    <BLANKLINE>
    [conversation channel: email]
    <BLANKLINE>
    Skills you can load:
    - search: find pages
    >>> n
    1
    """
    parts = [base] if base else []
    if labels:
        parts.append("".join(f"[conversation {k}: {v}]\n" for k, v in labels.items()).rstrip("\n"))
    text = "\n\n".join(parts)
    n = 0
    if skills:
        heading, *costs = count([SKILLS_HEADING, *skills])
        room = skills_cap - heading
        for c in costs:
            if c > room:
                break
            room -= c
            n += 1
    if n:
        text += SKILLS_HEADING + "".join(skills[:n]).rstrip("\n")
    return text, n
