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

from collections.abc import Sequence
from typing import Any

from ctxsieve.kernels import BACKEND, _as_list, _positive_number
from ctxsieve.kernels import build_reference as reference
from ctxsieve.kernels.build_reference import HUMAN_REVIEWED_FACTOR, MODE_CODES, MODES, STALE_FACTOR

if BACKEND == "native":
    from ctxsieve import _native

    _wrapper_texts: Any = _native.wrapper_texts
    _block_costs: Any = _native.block_costs
    _calibrate_scores: Any = _native.calibrate_scores
else:
    _wrapper_texts = reference.wrapper_texts
    _block_costs = reference.block_costs
    _calibrate_scores = reference.calibrate_scores


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


__all__ = ["HUMAN_REVIEWED_FACTOR", "MODES", "STALE_FACTOR", "block_costs", "calibrate_scores", "wrapper_texts"]
