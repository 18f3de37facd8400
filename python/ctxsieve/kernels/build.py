"""The build path's own kernels (issue 15): native when ``kernels`` is, else
``kernels.build_reference``, with the same results and the same errors.

>>> wrapper_texts(["k1"], ["kb"], ["knowledge"], [None])
['<context id="k1" source="kb" kind="knowledge">\\n\\n</context>\\n\\n']
>>> block_costs(["abcdef"], [None], ["k1"], ["kb"], ["knowledge"], [None], 3)  # 2 + 20
[22]
>>> calibrate_scores([3.0, 9.0, 0.5], [0, 0, 1], ["rank", "raw"], [1.0, 2.0], [0], [1])
[0.35, 1.0, 1.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import compress
from typing import Any

from ctxsieve.errors import BudgetExceededError
from ctxsieve.kernels import BACKEND, FILL_REASONS, _as_list, _count_or_zero, _non_negative_int, _positive_number
from ctxsieve.kernels import build_reference as reference
from ctxsieve.kernels.build_reference import HUMAN_REVIEWED_FACTOR, MODE_CODES, MODES, STALE_FACTOR

if BACKEND == "native":
    from ctxsieve import _native

    _wrapper_texts: Any = _native.wrapper_texts
    _block_costs: Any = _native.block_costs
    _calibrate_scores: Any = _native.calibrate_scores
    _fill_open: Any = _native.fill_open
else:
    _wrapper_texts = reference.wrapper_texts
    _block_costs = reference.block_costs
    _calibrate_scores = reference.calibrate_scores
    _fill_open = reference.fill_open

_REASON_NAMES = list(FILL_REASONS)


def wrapper_texts(
    ids: Sequence[str], sources: Sequence[str], kinds: Sequence[str], citations: Sequence[str | None]
) -> list[str]:
    """For each candidate, the wrapper its block renders with and the separator after it
    (``build_reference.wrapper_pair``; an instruction: the separator alone)."""
    named = (("ids", ids), ("sources", sources), ("kinds", kinds), ("citations", citations))
    lists = [_as_list(n, v) for n, v in named]
    out: list[Any] = _wrapper_texts(*lists)
    if None in out:
        # a str with lone surrogates has no UTF-8 form for the native side: made here instead
        ids_l, sources_l, kinds_l, cites_l = lists
        for i in [i for i, t in enumerate(out) if t is None]:
            head, tail = reference.wrapper_pair(ids_l[i], sources_l[i], kinds_l[i], cites_l[i])
            out[i] = head + tail + reference.SEPARATOR
    return out


def block_costs(
    texts: Sequence[str],
    tokens: Sequence[int | None],
    ids: Sequence[str],
    sources: Sequence[str],
    kinds: Sequence[str],
    citations: Sequence[str | None],
    bytes_per_token: float,
) -> list[int]:
    """For each candidate rendered as a block, with the ``bytes/<n>`` estimator: its content's
    estimate (``tokens[i]`` when the source gave one, None to estimate) plus the estimate of its
    wrapper and separator: ``estimate`` and ``rendered_costs`` in one pass, with no wrapper
    text made (``build_reference.block_costs``)."""
    bpt = _positive_number("bytes_per_token", bytes_per_token)
    named = (("texts", texts), ("tokens", tokens), ("ids", ids), ("sources", sources), ("kinds", kinds))
    lists = [_as_list(n, v) for n, v in named] + [_as_list("citations", citations)]
    out: list[Any] = _block_costs(*lists, bpt)
    if None in out:
        # an attribute with lone surrogates has no UTF-8 form for the native side: made here
        rows = [i for i, t in enumerate(out) if t is None]
        t, k, i_, s_, kd, c_ = ([col[i] for i in rows] for col in lists)
        fixed = reference.block_costs(t, k, i_, s_, kd, c_, bpt)
        for i, c in zip(rows, fixed):
            out[i] = c
    return out


def calibrate_scores(
    raw: Sequence[float],
    source_rank: Sequence[int],
    modes: Sequence[str],
    weights: Sequence[float],
    marked: Sequence[int] = (),
    masks: Sequence[int] = (),
) -> list[float]:
    """Every candidate's calibrated score: its source's ``modes[r]`` (``MODES``) within the
    source, times ``weights[r]``, then the signals of each ``marked[k]`` item, ``masks[k]``
    bits 1 (stale, x``STALE_FACTOR``) and 2 (human-reviewed, x``HUMAN_REVIEWED_FACTOR``).
    ``zscore`` sources are computed here with numpy (``rust/scores.rs`` says why) and reach
    the kernel as ``raw``; an unknown mode raises ``ValueError`` for a source with candidates."""
    raw_l, ranks_l = _as_list("raw", raw), _as_list("source_rank", source_rank)
    modes_l = _as_list("modes", modes)
    codes = [MODE_CODES.get(m, -1) if isinstance(m, str) else -1 for m in modes_l]
    odd = [r for r, c in enumerate(codes) if c < 0]
    if odd and len(raw_l) == len(ranks_l):
        present = set(ranks_l)
        for r in odd:
            if r not in present:
                codes[r] = MODE_CODES["raw"]  # no candidate: the mode is never applied
            elif modes_l[r] == "zscore":
                raw_l = reference.check_float_list("raw", raw_l)  # indices named as the kernel would
                members = [i for i, s in enumerate(ranks_l) if s == r]
                values = reference.zscore_scores([raw_l[i] for i in members])
                for i, v in zip(members, values.tolist()):
                    raw_l[i] = v
                codes[r] = MODE_CODES["raw"]
            else:
                raise ValueError(f"unknown calibration mode {modes_l[r]!r}; expected one of {', '.join(MODES)}")
    return _calibrate_scores(  # type: ignore[no-any-return]
        raw_l,
        ranks_l,
        codes,
        _as_list("weights", weights),
        _as_list("marked", marked),
        _as_list("masks", masks),
        STALE_FACTOR,
        HUMAN_REVIEWED_FACTOR,
    )


def fill_open(
    tokens: list[int],
    scores: list[float],
    ranks: list[int],
    pinned: list[bool],
    deprecated: list[bool],
    ids: list[str],
    reasons: list[str | None],
    budget: int,
    *,
    caps: Sequence[int],
    min_items: Sequence[int],
    beta: float = 0.0,
    min_score: float | None = None,
    include_deprecated: bool = False,
) -> list[int]:
    """The ScoredKnapsack fill (``kernels.fill_budget``) of the rows of a build's columns whose
    ``reasons[i]`` is None, each such row's reason (a ``FILL_REASONS`` name) written into
    ``reasons`` itself; returns the included rows, ascending. ``ranks[i]`` is the row's source
    number, ``caps[r]`` (-1: none) and ``min_items[r]`` that source's; the sources' numbers
    order their minimums as ``fill_budget``'s first-appearance codes would when the rows come
    source by source (a build's do). Pinned open rows over ``budget``: ``BudgetExceededError``.

    >>> reasons = [None, "duplicate_of:a", None]
    >>> fill_open([5, 5, 5], [0.9, 0.8, 0.7], [0, 0, 1], [False] * 3, [False] * 3, ["a", "b", "c"], reasons, 5,
    ...           caps=[-1, -1], min_items=[0, 0])
    [0]
    >>> reasons
    ['selected', 'duplicate_of:a', 'budget']
    """
    budget = _non_negative_int("budget", budget)
    if min_score is not None and (
        isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not math.isfinite(min_score)
    ):
        raise ValueError(f"min_score: must be a finite number or None, got {min_score!r}")
    if not isinstance(reasons, list):
        raise TypeError(f"reasons: expected a list, got {type(reasons).__name__}")  # written into
    tokens_l, ids_l, reasons_l = _as_list("tokens", tokens), _as_list("ids", ids), reasons
    # flags read once, here: a __bool__ that changes its answer cannot split this check and the kernel
    pinned_l = list(map(bool, _as_list("pinned", pinned)))
    if len(pinned_l) == len(reasons_l) == len(tokens_l) == len(ids_l):
        held = [(str(ids_l[i]), tokens_l[i]) for i in compress(range(len(pinned_l)), pinned_l) if reasons_l[i] is None]
        total = sum(_count_or_zero(t) for _, t in held)  # a malformed count: the kernel names it
        if total > budget:
            listing = ", ".join(f"{i} ({t} tokens)" for i, t in held)
            message = f"pinned items need {total} tokens but the budget is {budget}: {listing}"
            raise BudgetExceededError(message, held, budget)
    open_ = _fill_open(
        tokens_l,
        _as_list("scores", scores),
        _as_list("ranks", ranks),
        pinned_l,
        _as_list("deprecated", deprecated),
        ids_l,
        reasons_l,
        _REASON_NAMES,
        budget,
        beta,
        None if min_score is None else float(min_score),
        _as_list("caps", caps),
        _as_list("min_items", min_items),
        include_deprecated,
    )
    return open_  # type: ignore[no-any-return]


__all__ = [
    "HUMAN_REVIEWED_FACTOR",
    "MODES",
    "STALE_FACTOR",
    "block_costs",
    "calibrate_scores",
    "fill_open",
    "wrapper_texts",
]
