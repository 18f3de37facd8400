"""Turning a selection into the context message, the assembly report and event attributes."""

from __future__ import annotations

from typing import Any

from ctxsieve.admission.context import (
    CONTEXT_HEADER,
    HISTORY_HEADING,
    MEMORY_HEADING,
    gap_notice,
)
from ctxsieve.admission.limits import InputLimit
from ctxsieve.admission.prepared import Prepared
from ctxsieve.admission.reports import ContextAssemblyReport
from ctxsieve.admission.select import Selection
from ctxsieve.admission.state import TurnState


def render_context(p: Prepared, sel: Selection) -> str | None:
    """The attributed-context user message for a selection, or None when it would be empty."""
    k, s, n = sel.memory_kept, sel.history_start, len(p.records)
    if k == 0 and n == 0 and not p.pinned and p.preamble == CONTEXT_HEADER:
        return None
    parts = [p.preamble]
    if k or p.pinned:
        parts.append(MEMORY_HEADING)
        parts += p.pinned_text
        parts += p.memory_text[:k]
    if n:
        parts.append(HISTORY_HEADING)
        if s > 0:
            parts.append(gap_notice(p.omitted_turns(s), p.history_prefix[s]))
        parts += p.record_text[s:]
    return "".join(parts)


def _reasons(sel: Selection, section: str) -> dict[str, int]:
    return {
        f"omitted_{reason}": sel.omitted.get((section, reason), 0)
        for reason in ("earlier_call", "section_ceiling", "budget")
    }


def assembly_report(
    turn: TurnState,
    model: str | None,
    limit: InputLimit,
    sel: Selection,
    breakdown: dict[str, int],
    snapshot_id: str | None,
    n_skills: int,
    with_tools: bool,
) -> ContextAssemblyReport:
    p, lim = turn.prepared, turn.session.limits
    estimate = sum(breakdown.values())
    n_mem, n_rec = len(p.memories), len(p.records)
    counts = {
        "memory": {
            "candidates": n_mem + len(p.pinned) + p.memory_ineligible,
            "ineligible": p.memory_ineligible,
            "pinned": len(p.pinned),
            "included": len(p.pinned) + sel.memory_kept,
            "omitted": n_mem - sel.memory_kept,
            **_reasons(sel, "memory"),
        },
        "history": {
            "records": n_rec + p.history_ineligible,
            "ineligible": p.history_ineligible,
            "included": n_rec - sel.history_start,
            "omitted": sel.history_start,
            "omitted_turns": p.omitted_turns(sel.history_start),
            **_reasons(sel, "history"),
        },
        "skills": {"roster": len(p.skill_lines), "included": n_skills, "omitted": len(p.skill_lines) - n_skills},
        "tools": {"schemas": len(p.tools), "included": len(p.tools) if with_tools else 0},
        "images": {"count": breakdown["images"] // lim.image_tokens},
        "messages": {"turn_messages": len(turn.messages)},
    }
    limit_info = {
        "input_limit": limit.tokens,
        "origin": limit.origin,
        "ceiling": limit.ceiling,
        "window": limit.window,
        "output_reserve": lim.output_reserve,
        "protocol_overhead": lim.protocol_overhead,
        "lookup": limit.lookup,
    }
    notes = ([limit.note] if limit.note else []) + list(turn.notes)
    return ContextAssemblyReport(
        turn_id=turn.turn_id,
        call_index=turn.call_index,
        attempt=turn.attempt,
        model=model,
        estimator=turn.session.accountant.name,
        estimated_input_tokens=estimate,
        headroom=limit.tokens - estimate,
        limit=limit_info,
        sections=dict(breakdown),
        counts=counts,
        notes=tuple(notes),
        snapshot_id=snapshot_id,
    )


def assembly_event(r: ContextAssemblyReport) -> dict[str, Any]:
    return {
        "turn_id": r.turn_id,
        "call_index": r.call_index,
        "attempt": r.attempt,
        "estimated_input_tokens": r.estimated_input_tokens,
        "input_limit": r.limit["input_limit"],
        "limit_origin": r.limit["origin"],
        "memory_included": r.counts["memory"]["included"],
        "history_included": r.counts["history"]["included"],
    }


def drop_event(turn: TurnState, sel: Selection) -> dict[str, Any]:
    """``lifecycle.window.drop``: omitted turns, their estimated tokens, the retained history size."""
    p = turn.prepared
    return {
        "turn_id": turn.turn_id,
        "call_index": turn.call_index,
        "omitted_turns": p.omitted_turns(sel.history_start),
        "omitted_records": sel.history_start,
        "omitted_tokens": p.history_prefix[sel.history_start],
        "retained_records": len(p.records) - sel.history_start,
        "retained_history_tokens": sel.history_tokens - sel.gap_tokens,
    }
