"""Per-call admission for the agent loop: limits, reserves, model windows, required vs optional
content, the running history window, snapshots and reports (DESIGN.md section 3)."""

from __future__ import annotations

from ctxsieve.admission.accounting import MESSAGE_FRAMING_TOKENS, Accountant, Estimator, byte_estimator
from ctxsieve.admission.context import SESSION_SEARCH_TOOL, SystemPrompt
from ctxsieve.admission.errors import AudienceError, ContextBudgetError, RunLimitError, SnapshotError, TurnStateError
from ctxsieve.admission.events import CONTEXT_ASSEMBLY, CONTEXT_REFUSED, WINDOW_DROP, Events
from ctxsieve.admission.fallbacks import call_with_fallbacks, call_with_fallbacks_async
from ctxsieve.admission.limits import (
    DEFAULT_IMAGE_TOKENS,
    DEFAULT_INPUT_CEILING,
    DEFAULT_OUTPUT_RESERVE,
    DEFAULT_PROTOCOL_OVERHEAD,
    InputLimit,
    Limits,
    resolve_input_limit,
    resolve_input_limit_async,
)
from ctxsieve.admission.messages import Image, Message, ToolCall
from ctxsieve.admission.reports import ContextAssemblyReport, RequestUsage, UsageTotals
from ctxsieve.admission.request import Request
from ctxsieve.admission.runlimits import RunBudget, RunLimits
from ctxsieve.admission.select import Selection, select_optional
from ctxsieve.admission.session import Session
from ctxsieve.admission.turn import Admission, CallRecord, LineageEntry, Turn

__all__ = [
    "CONTEXT_ASSEMBLY",
    "CONTEXT_REFUSED",
    "DEFAULT_IMAGE_TOKENS",
    "DEFAULT_INPUT_CEILING",
    "DEFAULT_OUTPUT_RESERVE",
    "DEFAULT_PROTOCOL_OVERHEAD",
    "MESSAGE_FRAMING_TOKENS",
    "SESSION_SEARCH_TOOL",
    "WINDOW_DROP",
    "Accountant",
    "Admission",
    "AudienceError",
    "CallRecord",
    "ContextAssemblyReport",
    "ContextBudgetError",
    "Estimator",
    "Events",
    "Image",
    "InputLimit",
    "Limits",
    "LineageEntry",
    "Message",
    "Request",
    "RequestUsage",
    "RunBudget",
    "RunLimitError",
    "RunLimits",
    "Selection",
    "Session",
    "SnapshotError",
    "SystemPrompt",
    "ToolCall",
    "Turn",
    "TurnStateError",
    "UsageTotals",
    "byte_estimator",
    "call_with_fallbacks",
    "call_with_fallbacks_async",
    "resolve_input_limit",
    "resolve_input_limit_async",
    "select_optional",
]
