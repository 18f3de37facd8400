"""The kernel API: pure functions over plain data, native when the extension loads.

The backend is chosen once, at import: ``ctxsieve._native`` when it imports, else
``ctxsieve.kernels.reference``. ``CTXSIEVE_BACKEND=python`` forces the reference;
``CTXSIEVE_BACKEND=native`` forces the extension and raises ``ImportError`` if it cannot load.

This layer owns defaults and argument normalisation (sequences and numpy arrays become private
lists, option values are checked against ``limits``: counts in ``[0, MAX_COUNT]``, ``beta`` in
``[0, MAX_BETA]``); the element-wise checks happen inside each backend, with identical messages,
so that the native path never walks its input twice in Python.

>>> from ctxsieve import kernels
>>> kernels.estimate_tokens(["hello", "héllo wörld"])
[2, 5]
"""

from __future__ import annotations

import math
import numbers
import operator
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any

from ctxsieve.errors import BudgetExceededError
from ctxsieve.kernels import reference
from ctxsieve.kernels.gate import ungated
from ctxsieve.kernels.grep_native import native_grep_lines
from ctxsieve.kernels.limits import MAX_BETA, MAX_COUNT, check_beta, check_count

_choice = os.environ.get("CTXSIEVE_BACKEND", "").strip().lower()
if _choice not in ("", "native", "python"):
    raise ImportError(f"CTXSIEVE_BACKEND must be 'native' or 'python', got {_choice!r}")

_impl: Any
if _choice == "python":
    _impl = reference
    BACKEND = "python"
else:
    try:
        from ctxsieve import _native as _impl
    except ImportError as exc:
        if _choice == "native":
            raise ImportError(f"CTXSIEVE_BACKEND=native but ctxsieve._native cannot be loaded: {exc}") from exc
        _impl = reference
        BACKEND = "python"
    else:
        BACKEND = "native"

# Reason names of fill_budget, indexed by the kernels' reason codes.
FILL_REASONS = ("pinned", "min_items", "selected", "deprecated", "below_floor", "source_cap", "budget")
FILL_INCLUDED = frozenset(FILL_REASONS[:3])
_LAST_INCLUDED_CODE = 2  # codes 0-2 (pinned, min_items, selected) are the included reasons
STABILITY_CODES = {"stable": 0, "session": 1, "volatile": 2}


def backend() -> str:
    """``"native"`` or ``"python"``: which kernels are live."""
    return BACKEND


def _as_list(name: str, values: Any) -> list[Any]:
    # always a private copy: an element's __float__ or __bool__ may mutate the caller's lists
    if isinstance(values, list):
        return list.copy(values)
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name}: expected a sequence, got {type(values).__name__}")
    tolist = getattr(values, "tolist", None)
    if tolist is not None and hasattr(values, "dtype"):
        out = tolist()
        if not isinstance(out, list):
            raise TypeError(f"{name}: expected a one-dimensional array")
        return out
    try:
        return list(values)
    except TypeError:
        raise TypeError(f"{name}: expected a sequence, got {type(values).__name__}") from None


def _positive_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__}")
    f = float(value)
    if not math.isfinite(f) or f <= 0:
        raise ValueError(f"{name}: must be a positive finite number, got {value!r}")
    return f


def _non_negative_int(name: str, value: Any) -> int:
    return check_count(name, value)


def _count_or_zero(value: Any) -> int:
    """A token count the kernel will accept, else 0 (the kernel reports the bad one)."""
    try:
        n = operator.index(value)
    except TypeError:
        return 0
    return n if 0 <= n <= MAX_COUNT else 0


# ---------------------------------------------------------------------------------------------


def estimate_tokens(texts: Sequence[str], bytes_per_token: float = 3) -> list[int]:
    """``ceil(utf8_bytes / bytes_per_token)`` for each text; a lone surrogate counts 3 bytes.

    >>> estimate_tokens(["abc", "abcd", ""])
    [1, 2, 0]
    """
    return _impl.estimate_tokens(_as_list("texts", texts), _positive_number("bytes_per_token", bytes_per_token))


def words(text: str) -> list[str]:
    """The lower-cased words of ``text`` (see ``reference`` for the exact definition).

    >>> words("Refund-Policy, v2: 30 DAYS")
    ['refund', 'policy', 'v2', '30', 'days']
    """
    return _impl.words(text)


def shingle_hashes(text: str) -> list[int]:
    """Sorted distinct xxh3-64 hashes of the text's 5-word shingles (one shingle for 1-5 words).

    >>> len(shingle_hashes("one two three four five six"))
    2
    """
    return _impl.shingle_hashes(text)


def content_hash(text: str) -> int | None:
    """xxh3-64 of the lower-cased text with whitespace collapsed; None for blank text.

    >>> content_hash("Hello   World") == content_hash(" hello world\\n")
    True
    """
    return _impl.content_hash(text)


@dataclass(frozen=True)
class DedupeResult:
    """``duplicate_of[i]`` is the index of the kept item that item ``i`` duplicates, or -1.

    ``inheritance`` lists ``(kept, dropped)`` index pairs in visit order: the order in which the
    kept copy must take over the dropped copy's signals.
    """

    duplicate_of: list[int]
    visit_order: list[int]

    @property
    def inheritance(self) -> list[tuple[int, int]]:
        dup = self.duplicate_of
        return [(dup[i], i) for i in self.visit_order if dup[i] >= 0]

    def kept_ids(self, ids: Sequence[str]) -> list[str | None]:
        """For each item, the id of the kept item it duplicates, or None."""
        return [ids[k] if k >= 0 else None for k in self.duplicate_of]


def dedupe(
    texts: Sequence[str],
    ids: Sequence[str],
    scores: Sequence[float],
    *,
    pinned: Sequence[bool] | None = None,
    history: Sequence[bool] | None = None,
    threshold: float = 0.8,
) -> DedupeResult:
    """Exact and near-duplicate detection over 5-word shingles with an inverted index.

    >>> r = dedupe(["the refund window is thirty days", "The refund window is thirty days!"], ["a", "b"], [0.5, 0.9])
    >>> r.kept_ids(["a", "b"])
    ['b', None]
    """
    texts = _as_list("texts", texts)
    n = len(texts)
    pinned_l = [False] * n if pinned is None else _as_list("pinned", pinned)
    history_l = [False] * n if history is None else _as_list("history", history)
    t = _positive_number("threshold", threshold)
    if t > 1:
        raise ValueError(f"threshold: must be in (0, 1], got {threshold!r}")
    ids_l, scores_l = _as_list("ids", ids), _as_list("scores", scores)
    with ungated():  # the other builds of a build_many run their Python meanwhile (kernels/gate.py)
        dup, order = _impl.dedupe(texts, ids_l, scores_l, pinned_l, history_l, t)
    return DedupeResult(dup, order)


@dataclass(frozen=True)
class FillResult:
    """One reason per item: included as ``pinned``, ``min_items`` or ``selected``; excluded as
    ``deprecated``, ``below_floor``, ``source_cap`` or ``budget``."""

    reasons: list[str]
    tokens_used: int

    @property
    def included(self) -> list[int]:
        return [i for i, r in enumerate(self.reasons) if r in FILL_INCLUDED]


def fill_budget(
    tokens: Sequence[int],
    scores: Sequence[float],
    sources: Sequence[str],
    budget: int,
    *,
    ids: Sequence[str] | None = None,
    pinned: Sequence[bool] | None = None,
    deprecated: Sequence[bool] | None = None,
    beta: float = 0.0,
    min_score: float | None = None,
    caps: Mapping[str, int] | None = None,
    min_items: Mapping[str, int] | None = None,
    include_deprecated: bool = False,
) -> FillResult:
    """The ScoredKnapsack fill (DESIGN.md section 2). Raises ``BudgetExceededError`` when the
    pinned items alone exceed ``budget``.

    >>> fill_budget([5, 5, 5], [0.9, 0.8, 0.7], ["a", "a", "b"], 10, caps={"a": 5}).reasons
    ['selected', 'source_cap', 'selected']
    """
    tokens_l = _as_list("tokens", tokens)
    codes_out = _fill_codes(
        tokens_l, scores, sources, budget, ids, pinned, deprecated, beta, min_score, caps, min_items, include_deprecated
    )
    reasons = list(map(FILL_REASONS.__getitem__, codes_out))
    used = sum(map(operator.index, compress(tokens_l, [c <= _LAST_INCLUDED_CODE for c in codes_out])))
    return FillResult(reasons, used)


def fill_reasons(
    tokens: Sequence[int],
    scores: Sequence[float],
    sources: Sequence[str],
    budget: int,
    *,
    ids: Sequence[str] | None = None,
    pinned: Sequence[bool] | None = None,
    deprecated: Sequence[bool] | None = None,
    beta: float = 0.0,
    min_score: float | None = None,
    caps: Mapping[str, int] | None = None,
    min_items: Mapping[str, int] | None = None,
    include_deprecated: bool = False,
) -> list[str]:
    """``fill_budget(...).reasons`` without the total (what a policy returns), one pass less.

    >>> fill_reasons([5, 5, 5], [0.9, 0.8, 0.7], ["a", "a", "b"], 10, caps={"a": 5})
    ['selected', 'source_cap', 'selected']
    """
    codes_out = _fill_codes(
        _as_list("tokens", tokens),
        scores,
        sources,
        budget,
        ids,
        pinned,
        deprecated,
        beta,
        min_score,
        caps,
        min_items,
        include_deprecated,
    )
    return list(map(FILL_REASONS.__getitem__, codes_out))


def _fill_codes(
    tokens_l: list[Any],
    scores: Sequence[float],
    sources: Sequence[str],
    budget: int,
    ids: Sequence[str] | None,
    pinned: Sequence[bool] | None,
    deprecated: Sequence[bool] | None,
    beta: float,
    min_score: float | None,
    caps: Mapping[str, int] | None,
    min_items: Mapping[str, int] | None,
    include_deprecated: bool,
) -> list[int]:
    budget = _non_negative_int("budget", budget)
    # every list copied before any element is converted (conversions may run caller code)
    n = len(tokens_l)
    scores_l = _as_list("scores", scores)
    sources_l = _as_list("sources", sources)
    ids_l = [str(i) for i in range(n)] if ids is None else _as_list("ids", ids)
    pinned_l = [False] * n if pinned is None else _as_list("pinned", pinned)
    deprecated_l = [False] * n if deprecated is None else _as_list("deprecated", deprecated)
    # flags read once, here: a __bool__ that changes its answer cannot split front and kernel
    pinned_l = list(map(bool, pinned_l))
    beta_f = check_beta(beta)
    if min_score is not None and (
        isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not math.isfinite(min_score)
    ):
        raise ValueError(f"min_score: must be a finite number or None, got {min_score!r}")

    # sources become dense numbers in order of first appearance (one dict pass; the types of
    # the few distinct names are checked afterwards, the slow search for the index only on error)
    # dict.fromkeys and map run in C: a setdefault per element was 40 us of a 1k build
    try:
        codes: dict[Any, int] = {s: k for k, s in enumerate(dict.fromkeys(sources_l))}
        source_codes = list(map(codes.__getitem__, sources_l))
    except TypeError:
        codes, source_codes = {}, []
    if len(source_codes) != len(sources_l) or not all(isinstance(k, str) for k in codes):
        for i, s in enumerate(sources_l):
            if not isinstance(s, str):
                raise TypeError(f"sources[{i}]: expected str, got {type(s).__name__}")
    cap_list = [-1] * len(codes)
    for name, cap in (caps or {}).items():
        if name in codes:
            cap_list[codes[name]] = _non_negative_int(f"caps[{name!r}]", cap)
    min_list = [0] * len(codes)
    for name, m in (min_items or {}).items():
        if name in codes:
            min_list[codes[name]] = _non_negative_int(f"min_items[{name!r}]", m)

    reference.check_lengths(("tokens", "pinned", "ids"), (tokens_l, pinned_l, ids_l))
    pinned_items = [(str(ids_l[i]), tokens_l[i]) for i in compress(range(n), pinned_l)]
    # malformed token counts are reported by the kernel with their index; here they count 0
    pinned_total = sum(_count_or_zero(t) for _, t in pinned_items)
    if pinned_total > budget:
        listing = ", ".join(f"{i} ({t} tokens)" for i, t in pinned_items)
        raise BudgetExceededError(
            f"pinned items need {pinned_total} tokens but the budget is {budget}: {listing}", pinned_items, budget
        )

    return _impl.fill_budget(  # type: ignore[no-any-return]
        tokens_l,
        scores_l,
        source_codes,
        pinned_l,
        deprecated_l,
        ids_l,
        budget,
        beta_f,
        None if min_score is None else float(min_score),
        cap_list,
        min_list,
        bool(include_deprecated),
    )


def cache_order(
    stability: Sequence[str],
    scores: Sequence[float],
    *,
    history: Sequence[bool] | None = None,
    source_rank: Sequence[int] | None = None,
    order_keys: Sequence[str] | None = None,
    ids: Sequence[str] | None = None,
) -> list[int]:
    """The prompt order as a permutation: stable, session, volatile (best at the edges), history.

    >>> cache_order(["volatile", "stable", "volatile", "volatile"], [0.9, 0.1, 0.5, 0.7])
    [1, 0, 2, 3]
    """
    stab = _as_list("stability", stability)
    n = len(stab)
    lists = (
        [False] * n if history is None else _as_list("history", history),
        _as_list("scores", scores),
        [0] * n if source_rank is None else _as_list("source_rank", source_rank),
        [""] * n if order_keys is None else _as_list("order_keys", order_keys),
        [str(i) for i in range(n)] if ids is None else _as_list("ids", ids),
    )
    stab_codes = []
    for i, s in enumerate(stab):
        # a str subclass (a StrEnum member) by value: its own __hash__ or __eq__ never runs
        code = STABILITY_CODES.get(str.__str__(s)) if isinstance(s, str) else None
        if code is None:
            raise ValueError(f"stability[{i}]: must be 'stable', 'session' or 'volatile', got {s!r}")
        stab_codes.append(code)
    return _impl.cache_order(stab_codes, *lists)


def grep_lines(text: str, pattern: str, max_matches: int = 100) -> list[int]:
    """Indices of the lines of ``text`` in which ``pattern`` finds a match.

    ``pattern`` is in the grep dialect (docs/grep.md), parsed by one parser for both backends;
    anything outside it or its size limits raises ValueError. Both backends run in time linear
    in the text (times the bounded program size) for every pattern, with the same answers.

    >>> grep_lines("alpha\\nbeta\\ngamma", "a$")
    [0, 1, 2]
    """
    limit = _non_negative_int("max_matches", max_matches)
    if _impl is reference:
        return reference.grep_lines(text, pattern, limit)
    return native_grep_lines(_impl, text, pattern, limit)


def bm25_index(docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> Any:
    """A BM25 index over ``docs``; ``.search(query, limit)`` returns ``[(doc index, score)]``.

    >>> bm25_index(["refund policy", "shipping times", "refund refund"]).search("refund", 5)[0][0]
    2
    """
    k1f = _positive_number("k1", k1)
    if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0 <= b <= 1:
        raise ValueError(f"b: must be a number in [0, 1], got {b!r}")
    return _impl.Bm25Index(_as_list("docs", docs), k1f, float(b))


__all__ = [
    "BACKEND",
    "FILL_REASONS",
    "MAX_BETA",
    "MAX_COUNT",
    "DedupeResult",
    "FillResult",
    "backend",
    "bm25_index",
    "cache_order",
    "content_hash",
    "dedupe",
    "estimate_tokens",
    "fill_budget",
    "fill_reasons",
    "grep_lines",
    "shingle_hashes",
    "words",
]
