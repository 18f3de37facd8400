"""Where admission events go: a user callback, standard ``logging`` and, when
``opentelemetry-api`` is installed (extra ``otel``), span events on an admission span.

An event is a name and flat attributes (str, int, float, bool): never evidence bodies or actor
identities. A failing callback is logged and does not stop the model call: observers must not
change what the agent does.

>>> seen = []
>>> Events(lambda name, attrs: seen.append((name, attrs))).emit("lifecycle.window.drop", {"omitted_turns": 2})
>>> seen
[('lifecycle.window.drop', {'omitted_turns': 2})]
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

logger = logging.getLogger("ctxsieve.admission")

EventCallback = Callable[[str, dict[str, Any]], None]
WINDOW_DROP = "lifecycle.window.drop"
CONTEXT_ASSEMBLY = "context.assembly"
CONTEXT_REFUSED = "context.refused"
# the provider answered "context too long" to an admitted call (ctxsieve.conversation.overflow)
CONTEXT_OVERFLOW = "context.overflow"

_tracer: Any = None
_tracer_loaded = False


def _get_tracer() -> Any:
    """The OpenTelemetry tracer, or None without the extra (looked up once)."""
    global _tracer, _tracer_loaded
    if not _tracer_loaded:
        _tracer_loaded = True
        try:
            trace = importlib.import_module("opentelemetry.trace")
        except ImportError:
            _tracer = None
        else:
            _tracer = trace.get_tracer("ctxsieve.admission")
    return _tracer


def _flat(attrs: dict[str, Any]) -> dict[str, Any]:
    """OpenTelemetry attributes take primitives only."""
    return {k: v if isinstance(v, (str, bool, int, float)) else json.dumps(v, default=str) for k, v in attrs.items()}


class Events:
    """Emits events to the callback, the log and the current admission span."""

    def __init__(self, callback: EventCallback | None = None):
        self.callback = callback
        self._span: Any = None

    def emit(self, name: str, attrs: dict[str, Any]) -> None:
        if logger.isEnabledFor(logging.INFO):
            logger.info("%s %s", name, json.dumps(attrs, sort_keys=True, default=str))
        if self._span is not None:
            self._span.add_event(name, attributes=_flat(attrs))
        if self.callback is not None:
            try:
                self.callback(name, dict(attrs))
            except Exception:
                logger.exception("event callback failed on %s; the call goes on", name)

    @contextlib.contextmanager
    def span(self, name: str, attrs: dict[str, Any]) -> Iterator[Any]:
        """A span around one admission when OpenTelemetry is installed; yields it (or None)."""
        tracer = _get_tracer()
        if tracer is None:
            yield None
            return
        with tracer.start_as_current_span(name, attributes=_flat(attrs)) as span:
            previous, self._span = self._span, span
            try:
                yield span
            finally:
                self._span = previous
