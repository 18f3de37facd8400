"""One model of a conversation (``ctxsieve.messages.model``), its units, and the codecs that
read and write each provider's shape: ``openai_chat`` (Chat Completions), ``responses``
(OpenAI Responses input items) and ``anthropic`` (Messages API). Nothing outside this package
reads or writes a provider's message shape."""

from __future__ import annotations

from ctxsieve.messages import anthropic, openai_chat, responses
from ctxsieve.messages.model import (
    ROLES,
    Image,
    Message,
    MessageError,
    Part,
    Reasoning,
    Role,
    Text,
    ToolCall,
    ToolResult,
    assistant,
    system,
    tool_result,
    user,
)
from ctxsieve.messages.providers import PROFILES, ProviderProfile, resolve_profile
from ctxsieve.messages.repair import Repair, Repaired, repair
from ctxsieve.messages.replies import is_response, response_message
from ctxsieve.messages.texts import read_any, sent_texts
from ctxsieve.messages.units import Unit, units

__all__ = [
    "PROFILES",
    "ROLES",
    "Image",
    "Message",
    "MessageError",
    "Part",
    "ProviderProfile",
    "Reasoning",
    "Repair",
    "Repaired",
    "Role",
    "Text",
    "ToolCall",
    "ToolResult",
    "Unit",
    "anthropic",
    "assistant",
    "is_response",
    "openai_chat",
    "read_any",
    "repair",
    "resolve_profile",
    "response_message",
    "responses",
    "sent_texts",
    "system",
    "tool_result",
    "units",
    "user",
]
