"""The agent loop object: ``Conversation`` and the ``Call`` it admits (DESIGN.md section 7)."""

from __future__ import annotations

from ctxsieve.conversation.call import Call
from ctxsieve.conversation.compaction_gain import CachePricing, CompactionPolicy
from ctxsieve.conversation.conversation import Conversation
from ctxsieve.conversation.cuts import Cut
from ctxsieve.conversation.overflow import ContextOverflowError, OverflowEvent
from ctxsieve.conversation.overflow_errors import Overflow, context_overflow, is_context_overflow

__all__ = [
    "CachePricing",
    "Call",
    "CompactionPolicy",
    "ContextOverflowError",
    "Conversation",
    "Cut",
    "Overflow",
    "OverflowEvent",
    "context_overflow",
    "is_context_overflow",
]
