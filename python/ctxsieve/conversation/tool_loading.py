"""The conversation's side of the tool roster (``tool_roster``): settling it at the first call,
and ``tool_search`` loading tools into it. ``conv`` is the ``Conversation`` (typed ``Any``: the
conversation and admission modules import this one)."""

from __future__ import annotations

from typing import Any

from ctxsieve.admission.limits import InputLimit
from ctxsieve.conversation.tool_roster import DEFAULT_RESULTS, schema_cost


def settle_tools(conv: Any, limit: InputLimit, text: str) -> str:
    """At the first call: the schemas that fit ``Limits.tools_fraction`` of the window (whole
    ones, in order) become the tools every call sends, with ``tool_search`` when any waits;
    returns the system prompt's head with the line naming the deferred tools."""
    roster = conv.roster
    fraction = conv.limits.tools_fraction
    cap = None if fraction is None else limit.skills_cap(fraction)
    # the Anthropic rendering uses the provider's own deferred loading (tool_roster's doc)
    roster.native = getattr(conv, "provider", None) == "anthropic"
    sent, line = roster.settle(cap, conv._count)
    conv.tools = sent
    conv._tools_tokens = sum(schema_cost(conv._count, sent))
    return text + line if text or not line else line.lstrip("\n")


def search_tools(conv: Any, query: Any, limit: Any = DEFAULT_RESULTS) -> str:
    """``tool_search``: the matching deferred tools' schemas as JSON; they are loaded, so every
    later call that allows tools sends them (see ``tool_roster``)."""
    text, schemas = conv.roster.search(query, limit)
    if schemas:
        conv.tools = (*conv.tools, *schemas)
        conv._tools_tokens += sum(schema_cost(conv._count, schemas))
    return text


__all__ = ["search_tools", "settle_tools"]
