"""The usage calibrator in the loop: each call's limit, each reply's usage, the report.

Where the factor applies, and why there: a calibrated conversation admits a call when

    protocol overhead + ceil(prompt estimate x factor) <= input limit

which is the same as admitting the uncalibrated estimate against a smaller limit,
``overhead + admitted_prompt(limit - overhead, factor)``. So the factor lives in the call's
input limit, not in the ``Estimator``: every component (the engine, admission, the offloader,
the compactor, the transcript's running costs) keeps counting a text the same, once, and the
one-count property holds with or without a calibrator. A factor inside the estimator would be
wrong three ways: it is per model while one estimator serves every model a conversation falls
back to (and every conversation sharing an engine); the estimator and the transcript cache
counts, so a factor that moved would leave old and new counts of one text disagreeing; and
rounding it up per text would inflate a call of many small messages far beyond the factor.

The calibrator is opt-in (``Conversation(calibrator=UsageCalibrator(store))``): with one, the
limit of a call depends on what other workers' calls reported, and a careful user asks for that.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ctxsieve.admission.limits import InputLimit
from ctxsieve.admission.reports import provider_numbers
from ctxsieve.tokenizers.usage_calibrator import admitted_prompt

if TYPE_CHECKING:
    from ctxsieve.conversation.call import Call
    from ctxsieve.conversation.state import State

# the provider fields an input count may come in, read only to say what was wrong with one
_INPUT_FIELDS = ("prompt_tokens", "input_tokens", "prompt_token_count", "promptTokenCount")


def calibrated_limit(conv: State, model: str | None, limit: InputLimit) -> InputLimit:
    """``limit`` with the model's usage factor applied (unchanged without a calibrator, without
    a model name, or at a factor of 1.0); records what was applied for the usage report."""
    cal = conv.calibrator
    conv._calibration = None
    if cal is None or model is None:
        return limit
    c = cal.calibration(str(conv.estimator.name), model)
    overhead = conv.limits.protocol_overhead
    tokens = limit.tokens
    if c.factor > 1.0:
        tokens = min(limit.tokens, overhead + admitted_prompt(limit.tokens - overhead, c.factor))
    conv._calibration = (c, limit.tokens, tokens)
    if tokens == limit.tokens:
        return limit
    note = (
        f"usage calibration: the provider counts up to {c.factor:.3f}x the prompt estimate of {model!r} "
        f"({c.samples} samples), so the input limit of {limit.tokens} admits {tokens} estimated tokens"
    )
    return replace(limit, tokens=tokens, note=note if not limit.note else f"{limit.note}; {note}")


def _raw_input(usage: Any) -> Any:
    for name in _INPUT_FIELDS:
        v = usage.get(name) if isinstance(usage, Mapping) else getattr(usage, name, None)
        if v is not None:
            return v
    return None


def learn(conv: State, call: Call, usage: Any) -> None:
    """Give the calibrator the call's prompt estimate (without the overhead reserve) and the
    input tokens the provider reported for it (the whole prompt, cached part included)."""
    cal = conv.calibrator
    if cal is None:
        return
    where = f"call {call.call_index} (attempt {call.attempt})"
    if call.model is None:
        cal._skip("missing", f"{where}: no model named, so no model to learn for")
        return
    reported = provider_numbers(usage)[0]
    if reported is None and usage is not None:
        reported = _raw_input(usage)  # what was there, for the note; refused by observe
    conv._observation = cal.observe(str(conv.estimator.name), call.model, call.prompt_tokens, reported, where=where)


def calibration_report(conv: State) -> dict[str, Any] | None:
    """The usage report's ``calibration``: the factor the last call got and its effect (the
    estimate before and after the factor, the limit before and after), what its usage taught,
    the state now, and what the calibrator skipped."""
    cal = conv.calibrator
    if cal is None:
        return None
    out: dict[str, Any] = {"applied": None, **cal.report()}
    if conv._calibration is not None:
        c, limit, admitted = conv._calibration
        estimate = conv.calls[-1].estimated_input_tokens if conv.calls else None
        after = None
        if estimate is not None:
            overhead = conv.limits.protocol_overhead
            after = overhead + math.ceil(max(0, estimate - overhead) * c.factor)
        out["applied"] = {
            **c.to_dict(),
            "estimate": estimate,
            "calibrated_estimate": after,
            "input_limit": limit,
            "admitted_limit": admitted,
        }
        out["now"] = cal.calibration(c.estimator, c.model).to_dict()
    obs = conv._observation
    out["last_observation"] = None if obs is None else vars(obs).copy()
    return out


__all__ = ["calibrated_limit", "calibration_report", "learn"]
