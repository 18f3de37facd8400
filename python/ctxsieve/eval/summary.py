"""Aggregate call records into one row per configuration and budget, and check the targets.

>>> row = Row("scored_knapsack/cache", 750, 10, recall=1.0)
>>> row.as_dict()["recall"]
1.0
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import pairwise

from ctxsieve.eval import metrics
from ctxsieve.eval.configs import DEFAULT
from ctxsieve.eval.runner import CallRecord

LONG_SESSION = 10  # the target is stated over a 10-turn session


@dataclass
class Row:
    config: str
    budget: int
    calls: int
    recall: float | None = None
    precision: float | None = None
    distractor_rate: float | None = None
    superseded_rate: float | None = None
    noise_rate: float | None = None
    tokens_per_call: float | None = None  # rendered prompt, estimated
    uncached_tokens: float | None = None  # the part of each prompt outside the previous call's prefix
    window_tokens: float | None = None  # the items the policy admitted, as budgeted
    candidate_tokens: float | None = None
    stable_prefix_reuse: float | None = None
    cache_share: float | None = None  # every session's follow-up calls
    cache_share_10: float | None = None  # sessions of at least LONG_SESSION turns

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _session_reuse(records: Sequence[CallRecord]) -> float | None:
    by_session: dict[str, list[str]] = {}
    for r in records:
        by_session.setdefault(r.session, []).append(r.stable_hash)
    pairs = [(sum(a == b for a, b in pairwise(h)), len(h) - 1) for h in by_session.values()]
    return metrics.ratio(pairs)


def summarize(records: Iterable[CallRecord]) -> list[Row]:
    groups: dict[tuple[str, int], list[CallRecord]] = {}
    for r in records:
        groups.setdefault((r.config, r.budget), []).append(r)
    rows = []
    for (config, budget), rs in groups.items():
        follow = [r for r in rs if r.turn > 1]
        rows.append(
            Row(
                config,
                budget,
                len(rs),
                recall=metrics.mean(r.recall for r in rs),
                precision=metrics.mean(r.precision for r in rs),
                distractor_rate=metrics.mean(None if r.distractor is None else float(r.distractor) for r in rs),
                superseded_rate=metrics.mean(float(r.superseded) for r in rs),
                noise_rate=metrics.mean(r.noise for r in rs),
                tokens_per_call=metrics.mean(float(r.prompt_tokens) for r in rs),
                uncached_tokens=metrics.mean(float(r.prompt_tokens - r.shared_prefix_tokens) for r in rs),
                window_tokens=metrics.mean(float(r.tokens_used) for r in rs),
                candidate_tokens=metrics.mean(float(r.candidate_tokens) for r in rs),
                stable_prefix_reuse=_session_reuse(rs),
                cache_share=metrics.ratio((r.shared_prefix_tokens, r.prompt_tokens) for r in follow),
                cache_share_10=metrics.ratio(
                    (r.shared_prefix_tokens, r.prompt_tokens) for r in follow if r.session_turns >= LONG_SESSION
                ),
            )
        )
    return rows


def check_targets(rows: Sequence[Row], default: str = DEFAULT, baseline: str = "fixed_slots/cache") -> list[str]:
    """One line per target and budget: ``PASS``/``FAIL`` with the numbers (the issue's targets)."""
    by = {(r.config, r.budget): r for r in rows}
    lines = []
    for budget in sorted({r.budget for r in rows}):
        d, b = by.get((default, budget)), by.get((baseline, budget))
        if d is None:
            continue
        if b is not None and d.recall is not None and b.recall is not None:
            ok = d.recall >= b.recall - 1e-12
            lines.append(
                f"{'PASS' if ok else 'FAIL'} recall {default} {d.recall:.3f} >= {baseline} {b.recall:.3f} @ {budget}"
            )
        sup = d.superseded_rate or 0.0
        lines.append(f"{'PASS' if sup == 0 else 'FAIL'} superseded rate {default} {sup:.3f} == 0 @ {budget}")
        if d.cache_share_10 is not None:
            seed = by.get((default.replace("/cache", "/seed"), budget))
            seed_s = f" (seed layout {seed.cache_share_10:.3f})" if seed and seed.cache_share_10 is not None else ""
            ok = d.cache_share_10 >= 0.8
            lines.append(
                f"{'PASS' if ok else 'FAIL'} prefix-cache share over 10-turn sessions {d.cache_share_10:.3f} >= 0.8"
                f"{seed_s} @ {budget}"
            )
    return lines


def recall_by_slice(records: Iterable[CallRecord]) -> tuple[list[str], dict[tuple[str, int], dict[str, float | None]]]:
    """Recall per configuration and budget, split by question type and by language: where a
    policy wins or loses (``exact_id`` vs ``paraphrase``, English vs Spanish)."""
    groups: dict[tuple[str, int], dict[str, list[float | None]]] = {}
    slices: set[str] = set()
    for r in records:
        per = groups.setdefault((r.config, r.budget), {})
        if r.recall is None:
            continue  # unanswerable: recall is undefined, so it has no column
        for key in (r.qtype, f"lang:{r.lang}"):
            per.setdefault(key, []).append(r.recall)
            slices.add(key)
    names = sorted(slices, key=lambda k: (k.startswith("lang:"), k))
    table = {g: {k: metrics.mean(per.get(k, [])) for k in names} for g, per in groups.items()}
    return names, table
