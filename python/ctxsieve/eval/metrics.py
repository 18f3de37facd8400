"""Level-1 metrics: pure functions of what each call's window held and what it rendered.

Definitions (docs/eval.md repeats them):

* **recall at budget**: the parts of the answer the window holds, over its parts; a part is
  one relevant document, or a group of alternatives any one of which answers it; a document
  is held with at least one chunk in the window. Undefined (None) for a question nothing
  answers.
* **precision per token**: window tokens from relevant documents, at most one document's own
  size per document (a duplicate copy is waste), over window tokens from any corpus document
  (the evidence); history and instructions are neither.
* **distractor rate**: share of calls, among questions with labelled distractors, whose window
  holds one of them.
* **superseded rate**: share of calls whose window holds a chunk of a superseded document.
* **noise rate**: evidence tokens from noise documents over all evidence tokens, per call.
* **prefix-cache share**: for each call after the first of its session, the tokens of the
  longest prefix its rendered prompt shares with the previous call's, over its prompt tokens;
  summed over calls before dividing (long prompts weigh more, as they do on the bill). Tokens
  are counted with the ``estimator=`` given (the same keyword and values as the engine and
  admission; default ``bytes/3``), so a run counts prompts the way its engine did.
* **uncached tokens**: a call's prompt tokens outside that shared prefix (all of them for a
  session's first call), averaged over calls: what a provider bills at the full rate.
* **stable-prefix reuse**: share of follow-up calls whose stable-prefix hash equals the
  previous call's.

>>> prefix_cache_share(["<sys>A<u>q1", "<sys>A<u>q1<a>x<u>q2"])
0.5714285714285714
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise

from ctxsieve.tokenizers import EstimatorLike, resolve_estimator

# (document id or None for history/instructions, tokens) for each item in a window
WindowItems = Sequence[tuple[str | None, int]]


def recall_at_budget(window_docs: Iterable[str], relevant: Iterable[str | Iterable[str]]) -> float | None:
    """Parts of the answer in the window over its parts: each entry of ``relevant`` is a
    document id, or a collection of alternative ids of which one is enough.

    >>> recall_at_budget({"a", "x"}, {"a", "b"})
    0.5
    >>> recall_at_budget({"x", "c"}, ["a", frozenset({"b", "c"})])
    0.5
    """
    parts = [frozenset([r]) if isinstance(r, str) else frozenset(r) for r in relevant]
    if not parts:
        return None
    held = set(window_docs)
    return sum(not part.isdisjoint(held) for part in parts) / len(parts)


def precision_per_token(items: WindowItems, relevant: Iterable[str], sizes: Mapping[str, int] | None = None) -> float:
    """Relevant evidence tokens over evidence tokens.

    ``sizes`` caps what one document can contribute at its own size (its chunks' tokens): a
    second copy of a relevant page (the same text as a RAG chunk and as an OKF concept) is
    waste, not precision. Without ``sizes`` every token of a relevant document counts.

    >>> precision_per_token([("a", 30), ("n", 10), (None, 50)], {"a"})
    0.75
    >>> precision_per_token([("a", 30), ("a", 30), ("n", 40)], {"a"}, sizes={"a": 30})
    0.3
    """
    rel = set(relevant)
    evidence = sum(t for d, t in items if d is not None)
    if evidence == 0:
        return 0.0
    per_doc: dict[str, int] = {}
    for d, t in items:
        if d is not None and d in rel:
            per_doc[d] = per_doc.get(d, 0) + t
    if sizes is not None:
        per_doc = {d: min(t, sizes.get(d, t)) for d, t in per_doc.items()}
    return sum(per_doc.values()) / evidence


def holds_any(window_docs: Iterable[str], labelled: Iterable[str]) -> bool:
    """Whether the window holds any of ``labelled`` (a distractor, a superseded page)."""
    return not set(labelled).isdisjoint(window_docs)


def noise_share(items: WindowItems, noise: Iterable[str]) -> float:
    """Noise evidence tokens over evidence tokens.

    >>> noise_share([("a", 30), ("n", 10), (None, 50)], {"n"})
    0.25
    """
    ns = set(noise)
    evidence = sum(t for d, t in items if d is not None)
    if evidence == 0:
        return 0.0
    return sum(t for d, t in items if d is not None and d in ns) / evidence


def common_prefix(a: str, b: str) -> str:
    """The longest common prefix of two strings.

    >>> common_prefix("system|history|q2", "system|history|q1")
    'system|history|q'
    """
    # character by character is exactly what is wanted here: these are prompts, not paths
    return os.path.commonprefix([a, b])  # noqa: RUF071


def shared_prefix_tokens(previous: str | None, current: str, estimator: EstimatorLike = None) -> tuple[int, int]:
    """``(tokens of the prefix current shares with previous, tokens of current)``, both with
    ``estimator``. The first call of a session shares nothing.

    >>> shared_prefix_tokens("abcdef", "abcxyz")
    (1, 2)
    >>> shared_prefix_tokens("abcdef", "abcxyz", estimator=lambda texts: [len(t) for t in texts])
    (3, 6)
    """
    est = resolve_estimator(estimator)
    if previous is None:
        return 0, est.one(current)
    shared, total = est.count([common_prefix(previous, current), current])
    return shared, total


def prefix_cache_share(prompts: Sequence[str], estimator: EstimatorLike = None) -> float | None:
    """Token-weighted prefix-cache share over the follow-up calls of one session; None when
    the session has a single call (there is no previous call to share with)."""
    if len(prompts) < 2:
        return None
    est = resolve_estimator(estimator)
    shared = total = 0
    for prev, cur in pairwise(prompts):
        s, t = shared_prefix_tokens(prev, cur, est)
        shared += s
        total += t
    return shared / total if total else 0.0


def stable_prefix_reuse(hashes: Sequence[str]) -> float | None:
    """Share of follow-up calls whose stable-prefix hash is unchanged.

    >>> stable_prefix_reuse(["h1", "h1", "h2", "h2"])
    0.6666666666666666
    """
    if len(hashes) < 2:
        return None
    return sum(a == b for a, b in pairwise(hashes)) / (len(hashes) - 1)


def mean(values: Iterable[float | None]) -> float | None:
    """The mean of the defined values; None when there are none.

    >>> mean([1.0, None, 0.0])
    0.5
    """
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def ratio(pairs: Iterable[tuple[int, int]]) -> float | None:
    """``sum(a) / sum(b)`` over ``(a, b)`` pairs; None when the denominators sum to 0.

    >>> ratio([(1, 4), (3, 4)])
    0.5
    """
    num = den = 0
    for a, b in pairs:
        num += a
        den += b
    return num / den if den else None
