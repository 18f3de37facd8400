"""Input limits for one model call, and where the model's context window comes from.

The effective input limit is ``min(input_ceiling, window - output_reserve)`` when the model's
window is known, else ``input_ceiling``. A window lookup that is missing, fails, runs past its
deadline or returns something that is not a positive integer never invents a capacity: the
ceiling stays, and the returned ``InputLimit`` carries a note saying why.

>>> lim = Limits(input_ceiling=100_000, output_reserve=4_000)
>>> resolve_input_limit(lim, "small-model", lambda model: 32_000)
InputLimit(tokens=28000, origin='model_window', ceiling=100000, window=32000, lookup='ok', note=None)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import math
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Union

from ctxsieve.errors import ConfigError

DEFAULT_INPUT_CEILING = 131_072
DEFAULT_OUTPUT_RESERVE = 8_192
# Tokens kept free per request for what the provider adds around messages (request envelope,
# tool-use scaffolding, reply priming); the Mesh default.
DEFAULT_PROTOCOL_OVERHEAD = 1_024
# A flat charge per image: providers bill images by tiles/pixels, which we do not inspect here;
# 8,192 bounds a high-detail image on current providers from above (the Mesh default).
DEFAULT_IMAGE_TOKENS = 8_192
# The skill roster is a convenience; it may take at most this share of the window.
DEFAULT_SKILLS_FRACTION = 0.05
WINDOW_LOOKUP_DEADLINE_S = 2.0

WindowLookup = Callable[[str], Union[int, Awaitable[Any], None]]  # noqa: UP007 (a runtime alias on 3.10)


def _positive_int(name: str, value: Any, *, allow_zero: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"Limits.{name}: expected an int, got {type(value).__name__} ({value!r})")
    if value < 0 or (value == 0 and not allow_zero):
        raise ConfigError(f"Limits.{name}: must be {'>= 0' if allow_zero else '> 0'}, got {value}")
    return value


@dataclass(frozen=True)
class Limits:
    """Ceilings and reserves for every model call (estimated tokens).

    ``memory_ceiling`` / ``history_ceiling`` cap those optional sections (None: no section cap);
    ``skills_fraction`` caps the skill roster at a share of the window (of the ceiling when the
    window is unknown); ``tools_fraction`` caps the tool schemas a conversation sends the same
    way, whole schemas only (None, the default: every tool is sent; see
    ``ctxsieve.conversation.tool_roster`` for what is deferred and how it is loaded).
    ``tokenizer`` names the estimator (``bytes/3``, ``calibrated:o200k``, ...).

    >>> Limits(output_reserve=0)
    Traceback (most recent call last):
    ...
    ctxsieve.errors.ConfigError: Limits.output_reserve: must be > 0, got 0
    """

    input_ceiling: int = DEFAULT_INPUT_CEILING
    output_reserve: int = DEFAULT_OUTPUT_RESERVE
    protocol_overhead: int = DEFAULT_PROTOCOL_OVERHEAD
    image_tokens: int = DEFAULT_IMAGE_TOKENS
    memory_ceiling: int | None = None
    history_ceiling: int | None = None
    skills_fraction: float = DEFAULT_SKILLS_FRACTION
    tools_fraction: float | None = None
    lookup_deadline: float = WINDOW_LOOKUP_DEADLINE_S
    tokenizer: str = "bytes/3"  # the estimator's name; Session(estimator=...) overrides it

    def __post_init__(self) -> None:
        _positive_int("input_ceiling", self.input_ceiling)
        _positive_int("output_reserve", self.output_reserve)
        _positive_int("protocol_overhead", self.protocol_overhead, allow_zero=True)
        _positive_int("image_tokens", self.image_tokens)
        for name in ("memory_ceiling", "history_ceiling"):
            if getattr(self, name) is not None:
                _positive_int(name, getattr(self, name), allow_zero=True)
        f = self.skills_fraction
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not math.isfinite(f) or not 0 <= f <= 1:
            raise ConfigError(f"Limits.skills_fraction: must be a number in [0, 1], got {f!r}")
        tf = self.tools_fraction
        if tf is not None and (
            isinstance(tf, bool) or not isinstance(tf, (int, float)) or not math.isfinite(tf) or not 0 <= tf <= 1
        ):
            raise ConfigError(f"Limits.tools_fraction: must be None or a number in [0, 1], got {tf!r}")
        d = self.lookup_deadline
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or d <= 0:
            raise ConfigError(f"Limits.lookup_deadline: must be a positive number of seconds, got {d!r}")
        if not isinstance(self.tokenizer, str) or not self.tokenizer:
            raise ConfigError(f"Limits.tokenizer: expected an estimator name such as 'bytes/3', got {self.tokenizer!r}")
        if self.protocol_overhead >= self.input_ceiling:
            raise ConfigError(
                f"Limits.protocol_overhead ({self.protocol_overhead}) must be below "
                f"input_ceiling ({self.input_ceiling})"
            )


@dataclass(frozen=True)
class InputLimit:
    """The input limit of one call and its origin (``ceiling`` or ``model_window``).

    ``lookup`` is ``ok``, ``cached``, ``none`` (no lookup configured), ``missing`` (the lookup
    knows no window), ``failed``, ``timeout`` or ``invalid``; ``note`` explains anything but ok.
    """

    tokens: int
    origin: str
    ceiling: int
    window: int | None
    lookup: str
    note: str | None = None

    def skills_cap(self, fraction: float) -> int:
        return int((self.window if self.window is not None else self.ceiling) * fraction)


def limit_from_window(limits: Limits, model: str | None, window: Any, lookup: str) -> InputLimit:
    """The input limit for a lookup outcome; raises ConfigError when the window cannot hold the reserve."""
    ceiling = limits.input_ceiling
    if window is None:
        note = None if lookup == "none" else f"no context window known for model {model!r}; kept the ceiling"
        return InputLimit(ceiling, "ceiling", ceiling, None, "missing" if lookup != "none" else "none", note)
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        note = f"window lookup for model {model!r} returned {type(window).__name__} {window!r}, not a positive int"
        return InputLimit(ceiling, "ceiling", ceiling, None, "invalid", note + "; kept the ceiling")
    if window <= limits.output_reserve + limits.protocol_overhead:
        raise ConfigError(
            f"model {model!r} has a context window of {window} tokens, which cannot hold the output reserve "
            f"({limits.output_reserve}) plus protocol overhead ({limits.protocol_overhead}); lower "
            "Limits.output_reserve or do not route this call to that model"
        )
    usable = window - limits.output_reserve
    if usable < ceiling:
        return InputLimit(usable, "model_window", ceiling, window, lookup)
    return InputLimit(ceiling, "ceiling", ceiling, window, lookup)


def _failed(limits: Limits, model: str | None, kind: str, detail: str) -> InputLimit:
    c = limits.input_ceiling
    return InputLimit(c, "ceiling", c, None, kind, f"window lookup for model {model!r} {detail}; kept the ceiling")


def _no_lookup(limits: Limits, model: str | None, lookup: WindowLookup | None) -> InputLimit:
    if lookup is None:
        return limit_from_window(limits, model, None, "none")
    c = limits.input_ceiling
    return InputLimit(
        c, "ceiling", c, None, "missing", "no model named for this call, so no window lookup; kept the ceiling"
    )


def _in_daemon_thread(lookup: WindowLookup, model: str) -> concurrent.futures.Future[Any]:
    """Run the lookup in a daemon thread: a hung lookup must not hold up the call or the exit.

    (A ThreadPoolExecutor, or asyncio's default executor, joins its threads at shutdown, so a
    lookup that never returns would hang the interpreter or ``asyncio.run`` teardown.)
    """
    fut: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def run() -> None:
        try:
            out = lookup(model)
            if inspect.isawaitable(out):
                awaitable = out

                async def wrap() -> Any:
                    return await awaitable

                out = asyncio.run(wrap())
        except BaseException as exc:
            if fut.set_running_or_notify_cancel():
                fut.set_exception(exc)
            return
        if fut.set_running_or_notify_cancel():
            fut.set_result(out)

    threading.Thread(target=run, name="ctxsieve-window-lookup", daemon=True).start()
    return fut


def resolve_input_limit(limits: Limits, model: str | None, lookup: WindowLookup | None) -> InputLimit:
    """Resolve the limit with a sync or async lookup, bounded by ``limits.lookup_deadline``."""
    if lookup is None or model is None:
        return _no_lookup(limits, model, lookup)
    try:
        window = _in_daemon_thread(lookup, model).result(timeout=limits.lookup_deadline)
    except concurrent.futures.TimeoutError:
        return _failed(limits, model, "timeout", f"took longer than {limits.lookup_deadline:g}s")
    except Exception as exc:  # the lookup is user code: any failure keeps the ceiling
        return _failed(limits, model, "failed", f"raised {type(exc).__name__}: {exc}")
    return limit_from_window(limits, model, window, "ok")


async def resolve_input_limit_async(limits: Limits, model: str | None, lookup: WindowLookup | None) -> InputLimit:
    """The async twin of ``resolve_input_limit``: coroutine lookups run on the caller's loop."""
    if lookup is None or model is None:
        return _no_lookup(limits, model, lookup)
    try:
        if inspect.iscoroutinefunction(lookup):
            window = await asyncio.wait_for(lookup(model), timeout=limits.lookup_deadline)
        else:
            fut = asyncio.wrap_future(_in_daemon_thread(lookup, model))
            window = await asyncio.wait_for(fut, timeout=limits.lookup_deadline)
    except asyncio.TimeoutError:
        return _failed(limits, model, "timeout", f"took longer than {limits.lookup_deadline:g}s")
    except Exception as exc:
        return _failed(limits, model, "failed", f"raised {type(exc).__name__}: {exc}")
    return limit_from_window(limits, model, window, "ok")
