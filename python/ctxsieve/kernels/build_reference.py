"""The specification of the build path's own kernels (issue 15), in plain Python: the
``CTXSIEVE_BACKEND=python`` implementation and what ``rust/wrap.rs`` must agree with exactly.

The renderer (``stages/render.py``) writes its wrappers with ``attr`` and ``wrapper_pair``
from here, so the text the budget estimates and the text the window renders are made by one
definition.

>>> wrapper_pair("k1", "kb", "knowledge", 'see "terms"')
('<context id="k1" source="kb" kind="knowledge" citation="see &quot;terms&quot;">\\n', '\\n</context>')
>>> wrapper_texts(["i"], ["s"], ["instruction"], [None])
['\\n\\n']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ctxsieve.kernels.limits import check_beta, check_count
from ctxsieve.kernels.reference import (
    SELECTED,
    as_float,
    check_cap_list,
    check_count_list,
    check_float_list,
    check_lengths,
    check_positive,
    check_str_list,
    estimate_tokens,
    fill_budget,
    snapshot,
)

# What joins two blocks inside one message.
SEPARATOR = "\n\n"


def attr(value: str) -> str:
    """``value`` as an attribute value: ``&`` (first, so no escape is escaped twice), ``"``, ``<``."""
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def wrapper_pair(item_id: str, source: str, kind: str, citation: str | None) -> tuple[str, str]:
    """The text before and after a block's content; none for an instruction. ``kind`` is a
    ``Kind`` literal and is not escaped; an empty citation renders no attribute."""
    if kind == "instruction":
        return "", ""
    cite = f' citation="{attr(citation)}"' if citation else ""
    return f'<context id="{attr(item_id)}" source="{attr(source)}" kind="{kind}"{cite}>\n', "\n</context>"


def _check(name: str, values: list[Any], i: int, none_ok: bool = False) -> None:
    v = values[i]
    if not isinstance(v, str) and not (none_ok and v is None):
        want = "str or None" if none_ok else "str"
        raise TypeError(f"{name}[{i}]: expected {want}, got {type(v).__name__}")


def wrapper_texts(ids: list[Any], sources: list[Any], kinds: list[Any], citations: list[Any]) -> list[str]:
    """Per candidate: its wrapper and the separator after it (what ``rendered_costs`` estimates)."""
    n = len(ids)
    for name, values in (("sources", sources), ("kinds", kinds), ("citations", citations)):
        if len(values) != n:
            raise ValueError(f"{name}: expected {n} items (one per ids), got {len(values)}")
    out = []
    for i in range(n):
        _check("ids", ids, i)
        _check("sources", sources, i)
        _check("kinds", kinds, i)
        _check("citations", citations, i, none_ok=True)
        head, tail = wrapper_pair(ids[i], sources[i], kinds[i], citations[i])
        out.append(head + tail + SEPARATOR)
    return out


def block_costs(
    texts: list[Any],
    tokens: list[Any],
    ids: list[Any],
    sources: list[Any],
    kinds: list[Any],
    citations: list[Any],
    bytes_per_token: float,
) -> list[int]:
    """Per candidate, with the ``bytes/<n>`` estimator: its content's estimate (or its given
    ``tokens[i]``, None to estimate) plus the estimate of its wrapper and separator, what
    ``estimate`` and ``rendered_costs`` charge a block (``kernels.build.block_costs``)."""
    bpt = check_positive("bytes_per_token", bytes_per_token)
    names = ("texts", "tokens", "ids", "sources", "kinds", "citations")
    lists = [snapshot(n, v) for n, v in zip(names, (texts, tokens, ids, sources, kinds, citations))]
    check_lengths(names, lists)
    texts_l, tokens_l, ids_l, sources_l, kinds_l, cites_l = lists
    out = []
    for i, text in enumerate(texts_l):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}]: expected str, got {type(text).__name__}")
        given = tokens_l[i]
        content = estimate_tokens([text], bpt)[0] if given is None else check_count(f"tokens[{i}]", given)
        _check("ids", ids_l, i)
        _check("sources", sources_l, i)
        _check("kinds", kinds_l, i)
        _check("citations", cites_l, i, none_ok=True)
        head, tail = wrapper_pair(ids_l[i], sources_l[i], kinds_l[i], cites_l[i])
        out.append(content + estimate_tokens([head + tail + SEPARATOR], bpt)[0])
    return out


# -- calibration (``stages/calibrate.py``; ``rust/scores.rs`` agrees exactly) ---------------------

MODES = ("rank", "minmax", "zscore", "blend", "raw")
# The codes the kernels take for the modes computed natively (zscore never reaches them).
MODE_CODES = {"rank": 0, "minmax": 1, "blend": 2, "raw": 3}
STALE_FACTOR = 0.7
HUMAN_REVIEWED_FACTOR = 1.1
STALE, REVIEWED = 1, 2  # the signal bits of ``masks``


def rank_scores(raw: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(raw, dtype=np.float64)
    n = a.size
    if n == 0:
        return a
    order = np.argsort(-a, kind="stable")
    ranked = a[order]
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=starts[1:])
    # the rank of each sorted position is the position where its run of equal values starts
    first = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = first
    return 1.0 - ranks / n


def minmax_scores(raw: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(raw, dtype=np.float64)
    if a.size == 0:
        return a
    lo, hi = a.min(), a.max()
    if hi == lo:
        return np.ones_like(a)
    return (a - lo) / (hi - lo)


def zscore_scores(raw: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(raw, dtype=np.float64)
    if a.size == 0:
        return a
    std = a.std()
    if std == 0:
        return np.full_like(a, 0.5)
    return 1.0 / (1.0 + np.exp(-(a - a.mean()) / std))


def normalise(raw: Sequence[float] | np.ndarray, mode: str) -> np.ndarray:
    if mode == "rank":
        return rank_scores(raw)
    if mode == "minmax":
        return minmax_scores(raw)
    if mode == "zscore":
        return zscore_scores(raw)
    if mode == "blend":
        return (rank_scores(raw) + minmax_scores(raw)) / 2.0
    if mode == "raw":
        return np.asarray(raw, dtype=np.float64)
    raise ValueError(f"unknown calibration mode {mode!r}; expected one of {', '.join(MODES)}")


def _codes(name: str, values: list[Any], limit: int) -> list[int]:
    codes = check_count_list(name, values)
    for i, c in enumerate(codes):
        if c >= limit:
            raise ValueError(f"{name}[{i}]: must be below {limit}, got {c}")
    return codes


def calibrate_scores(
    raw: list[Any],
    source_rank: list[Any],
    modes: list[Any],
    weights: list[Any],
    marked: list[Any],
    masks: list[Any],
    stale_factor: float,
    reviewed_factor: float,
) -> list[float]:
    """Every candidate's calibrated score: ``normalise`` within each source (``modes[r]``, a
    ``MODE_CODES`` code), times ``weights[r]`` (a zero as +0.0), then for each ``marked[k]``
    item the factors of its signal bits ``masks[k]``: stale first, then human-reviewed."""
    names = ("raw", "source_rank", "modes", "weights", "marked", "masks")
    lists = [snapshot(n, v) for n, v in zip(names, (raw, source_rank, modes, weights, marked, masks))]
    check_lengths(names[:2], lists[:2])
    check_lengths(names[2:4], lists[2:4])
    check_lengths(names[4:], lists[4:])
    a = np.asarray(check_float_list("raw", lists[0]), dtype=np.float64)
    ranks = np.asarray(_codes("source_rank", lists[1], len(lists[2])), dtype=np.intp)
    mode_codes = _codes("modes", lists[2], len(MODE_CODES))
    w = check_float_list("weights", lists[3])
    marks = _codes("marked", lists[4], len(lists[0]))
    bits = _codes("masks", lists[5], 4)
    names_by_code = {c: m for m, c in MODE_CODES.items()}
    out = np.empty(a.size, dtype=np.float64)
    for r in np.unique(ranks).tolist():
        members = np.flatnonzero(ranks == r)
        out[members] = normalise(a[members], names_by_code[mode_codes[r]]) * w[r]
    # + 0.0: every zero is +0.0 (numpy's min and max pick either zero by SIMD lane, so the
    # sign of a minmax zero is not reproducible; no comparison tells the two apart)
    scores: list[float] = (out + 0.0).tolist()
    for i, m in zip(marks, bits):
        if m & STALE:
            scores[i] *= stale_factor
        if m & REVIEWED:
            scores[i] *= reviewed_factor
    return scores


def fill_open(
    tokens: list[Any],
    scores: list[Any],
    ranks: list[Any],
    pinned: list[Any],
    deprecated: list[Any],
    ids: list[Any],
    reasons: list[Any],
    names: list[Any],
    budget: Any,
    beta: Any,
    min_score: Any,
    caps: list[Any],
    min_items: list[Any],
    include_deprecated: Any,
) -> list[int]:
    """``reference.fill_budget`` over the rows of a build's columns whose ``reasons[i]`` is
    None, with ``ranks[i]`` as the row's source number (``caps[r]``, ``min_items[r]``): each
    such row gets ``names[code]`` written into ``reasons`` (the caller's list); returns the
    included rows, ascending. Every row's elements are checked, as ``fill_budget`` checks its
    own, in the same order with the same messages (``rust/py_fill.rs`` is this)."""
    cols = ("tokens", "scores", "ranks", "pinned", "deprecated", "ids", "reasons")
    lists = [snapshot(n, v) for n, v in zip(cols, (tokens, scores, ranks, pinned, deprecated, ids, reasons))]
    check_lengths(cols, lists)
    names_l = snapshot("names", names)
    cap_objs, min_objs = snapshot("caps", caps), snapshot("min_items", min_items)
    toks = check_count_list("tokens", lists[0])
    fscores = check_float_list("scores", lists[1])
    srcs = check_count_list("ranks", lists[2])
    pin = [bool(p) for p in lists[3]]
    dep = [bool(d) for d in lists[4]]
    ids_l = check_str_list("ids", lists[5])
    budget = check_count("budget", budget)
    beta = check_beta(as_float("beta", beta))
    min_score = None if min_score is None else as_float("min_score", min_score)
    include_deprecated = bool(include_deprecated)
    cap_l = check_cap_list("caps", cap_objs)
    check_lengths(("caps", "min_items"), (cap_l, min_objs))
    min_l = check_count_list("min_items", min_objs)
    for i, s in enumerate(srcs):
        if s >= len(cap_l):
            raise ValueError(f"ranks[{i}]: no source {s} (caps has {len(cap_l)})")
    if len(names_l) != 7:
        raise ValueError(f"names: expected 7 reason names, got {len(names_l)}")
    open_ = [i for i, r in enumerate(lists[6]) if r is None]
    t, f, r, p, d, k = ([col[i] for i in open_] for col in (toks, fscores, srcs, pin, dep, ids_l))
    codes = fill_budget(
        t,
        f,
        r,
        p,
        d,
        k,
        budget,
        beta,
        min_score,
        cap_l,
        min_l,
        include_deprecated,
    )
    for i, c in zip(open_, codes):
        reasons[i] = names_l[c]
    return [i for i, c in zip(open_, codes) if c <= SELECTED]
