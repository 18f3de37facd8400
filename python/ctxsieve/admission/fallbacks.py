"""Calling a provider fallback chain, each model admitted before it is called.

A smaller fallback cannot bypass admission: every model in the chain gets its own admission
(its own window, so possibly less optional context) before ``call`` sees it. A model whose
admission is refused (``ContextBudgetError``, an impossible window) is skipped; a provider
error moves on to the next model. When the chain is exhausted the last error is raised.

>>> from ctxsieve.admission import Session
>>> turn = Session(window_lookup=lambda m: {"big": 200_000, "small": 16_000}[m]).turn("hi")
>>> def call(adm):
...     if adm.request.model == "big":
...         raise TimeoutError("provider overloaded")
...     return "ok from " + adm.request.model
>>> adm, reply = call_with_fallbacks(turn, ["big", "small"], call)
>>> reply, adm.attempt, adm.limit.tokens
('ok from small', 1, 7808)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from ctxsieve.admission.calls import Admission
from ctxsieve.admission.errors import ContextBudgetError, SnapshotError
from ctxsieve.admission.turn import Turn
from ctxsieve.errors import ConfigError

# refusals that concern one model only: try the next one
_MODEL_REFUSALS = (ContextBudgetError, ConfigError)


def _admit(turn: Turn, model: str, first: bool, tools: bool) -> Admission:
    return turn.admit(model, tools=tools) if first else turn.fallback(model)


def call_with_fallbacks(
    turn: Turn, models: Sequence[str], call: Callable[[Admission], Any], *, tools: bool = True
) -> tuple[Admission, Any]:
    """Admit and call each model in turn until one answers; returns (admission, reply)."""
    if not models:
        raise ConfigError("call_with_fallbacks: models must name at least one model")
    last: BaseException | None = None
    admitted = False
    for model in models:
        try:
            adm = _admit(turn, model, not admitted, tools)
        except SnapshotError:
            raise  # a failed snapshot stops the call whatever the model
        except _MODEL_REFUSALS as exc:
            last = exc
            continue
        admitted = True
        try:
            return adm, call(adm)
        except Exception as exc:  # the provider failed: the next model is admitted afresh
            last = exc
    assert last is not None
    raise last


async def call_with_fallbacks_async(
    turn: Turn, models: Sequence[str], call: Callable[[Admission], Any], *, tools: bool = True
) -> tuple[Admission, Any]:
    """The async twin: ``call`` may return an awaitable; window lookups run on the loop."""
    if not models:
        raise ConfigError("call_with_fallbacks_async: models must name at least one model")
    last: BaseException | None = None
    admitted = False
    for model in models:
        try:
            if admitted:
                adm = await turn.fallback_async(model)
            else:
                adm = await turn.admit_async(model, tools=tools)
        except SnapshotError:
            raise
        except _MODEL_REFUSALS as exc:
            last = exc
            continue
        admitted = True
        try:
            out = call(adm)
            return adm, (await out if inspect.isawaitable(out) else out)
        except Exception as exc:
            last = exc
    assert last is not None
    raise last
