"""Helpers for inside the agent loop; none of them needs the engine.

* ``units`` and the adapters: provider messages and ``ctxsieve.messages.Message`` objects are
  read with the codecs of ``ctxsieve.messages`` (``MessagesAdapter``; ``OpenAIAdapter`` and
  ``AnthropicAdapter`` write new messages in their shape); a framework's own message type
  goes through a ``MessageAdapter``
* ``Compactor``: summarise aged history past a threshold, never splitting a tool call
* ``Offloader``: huge tool results into a store, read back with ``ctx_read`` / ``ctx_grep``
* ``SessionHistory``: ``session_search`` over the history that left the conversation
* ``MemoryToolkit``: ``memory_add`` / ``memory_search`` / ``memory_remove``, and a memory source
"""

from __future__ import annotations

from ctxsieve.loop.adapters import (
    MESSAGE_FRAMING_TOKENS,
    AnthropicAdapter,
    MessageAdapter,
    MessagesAdapter,
    OpenAIAdapter,
    adapter_for,
    message_tokens,
)
from ctxsieve.loop.compactor import CompactionReport, Compactor, Summarizer, SummaryRequest
from ctxsieve.loop.memory import Memory, MemoryToolkit
from ctxsieve.loop.memory_source import MemorySource
from ctxsieve.loop.offloader import Offloader
from ctxsieve.loop.session import HistoryHit, SessionHistory
from ctxsieve.loop.transcript import render
from ctxsieve.loop.units import Unit, units

__all__ = [
    "MESSAGE_FRAMING_TOKENS",
    "AnthropicAdapter",
    "CompactionReport",
    "Compactor",
    "HistoryHit",
    "Memory",
    "MemorySource",
    "MemoryToolkit",
    "MessageAdapter",
    "MessagesAdapter",
    "Offloader",
    "OpenAIAdapter",
    "SessionHistory",
    "Summarizer",
    "SummaryRequest",
    "Unit",
    "adapter_for",
    "message_tokens",
    "render",
    "units",
]
