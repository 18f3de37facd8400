"""The agent loop object: ``Conversation`` and the ``Call`` it admits (DESIGN.md section 7)."""

from __future__ import annotations

from ctxsieve.conversation.call import Call
from ctxsieve.conversation.conversation import Conversation
from ctxsieve.conversation.cuts import Cut

__all__ = ["Call", "Conversation", "Cut"]
