"""Stage 7: render the ordered window as chat messages or text, in one of two layouts.

* ``seed``: every non-history item in the system message, then the history, then the query.
  Any change in retrieved content rewrites the system message, so the cached prefix ends at
  the stable block.
* ``cache``: the system message holds only stable items; history follows chronologically;
  session and volatile items go in one transient context message just before the query. A
  growing conversation keeps the system message and its whole history inside the cached
  prefix from one call to the next.

Instructions render as their text; every other item as
``<context id=".." source=".." kind="..">`` + content + ``</context>``, blocks separated by a
blank line. History items render as their raw messages (``meta["messages"]``: dicts, provider
SDK objects or ``Message``-like objects), else as one message with role ``meta.get("role",
"user")``; a message's ``audience`` label is an identity, never prompt text, and is left out.

``readers`` (default None: an anonymous call) leaves out every item the readers may not see,
by the rules of ``ctxsieve.audience``: the engine filters before budgeting, and rendering checks
again, so no render path defaults to showing private content.

>>> from ctxsieve.types import ContextItem
>>> items = [ContextItem("sys", "Be brief.", "sys", "instruction", "stable"),
...          ContextItem("k1", "Refunds: 30 days.", "kb")]
>>> [m["role"] for m in render(items, "refund?", "cache").messages("openai")]
['system', 'user', 'user']
>>> [m["role"] for m in render(items, "refund?", "seed").messages("openai")]
['system', 'user']
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import xxhash

from ctxsieve.audience import Readers, visible
from ctxsieve.kernels.build_reference import SEPARATOR as SEPARATOR  # what joins two blocks
from ctxsieve.kernels.build_reference import wrapper_pair
from ctxsieve.messages._common import allowed
from ctxsieve.messages.model import MessageError
from ctxsieve.messages.openai_chat import READ_ROLES
from ctxsieve.types import ContextItem


def wrapper(item: ContextItem) -> tuple[str, str]:
    """The text ``block`` puts before and after the item's content (none for an instruction):
    ``kernels.build_reference.wrapper_pair``, the one definition the budget's estimate
    (``kernels.build.wrapper_texts``) shares."""
    return wrapper_pair(item.id, item.source, item.kind, item.signals.citation)


def block(item: ContextItem) -> str:
    """The item as it is rendered inside a message: its wrapper around its content."""
    head, tail = wrapper(item)
    return f"{head}{item.content}{tail}" if head else item.content


def stable_block(items: Sequence[ContextItem]) -> str:
    """The text of the stable non-history items: the prefix both layouts open with."""
    return "\n\n".join(block(i) for i in items if i.stability == "stable" and i.kind != "history")


def stable_prefix_hash(text: str) -> str:
    return xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))


def _message_dict(m: Any) -> dict[str, Any]:
    """One raw history message as a provider dict, without its audience label."""
    if isinstance(m, Mapping):
        out = dict(m)
    elif callable(getattr(m, "model_dump", None)):
        dumped = m.model_dump(exclude_none=True)
        out = dict(dumped) if isinstance(dumped, Mapping) else {"role": "user", "content": str(dumped)}
    elif isinstance(m, str):
        out = {"role": "user", "content": m}
    else:
        # a Message-like object (role, text, tool calls): the OpenAI shape, read by attribute
        out = {"role": getattr(m, "role", "user"), "content": getattr(m, "text", None) or getattr(m, "content", "")}
        calls = getattr(m, "tool_calls", None) or ()
        if calls:
            out["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
            ]
        for key in ("tool_call_id", "name"):
            if getattr(m, key, None):
                out[key] = getattr(m, key)
    out.pop("audience", None)
    return out


def _checked(message: dict[str, Any], item: ContextItem, k: int) -> dict[str, Any]:
    # a history dict is sent as it is, never converted: a framework's role ("human", "ai")
    # would reach the provider, which refuses the request far from the mistake
    role = message.get("role")
    if role not in READ_ROLES:
        raise MessageError(
            f"history item {item.id!r}, message {k}: role {role!r} is not one of {allowed(READ_ROLES)}"
            " (a dict is sent as it is; LangChain messages convert through ctxsieve.integrations.langchain,"
            " PydanticAI messages through ctxsieve.integrations.pydantic_ai)"
        )
    return message


def item_messages(item: ContextItem) -> list[dict[str, Any]]:
    """One history item's messages as ``history_messages`` renders them (without its role
    check): what the engine's budget counts for the item."""
    raw = item.meta.get("messages")
    if raw:
        return [_message_dict(m) for m in raw]
    return [{"role": item.meta.get("role", "user"), "content": item.content}]


def history_messages(items: Sequence[ContextItem]) -> list[dict[str, Any]]:
    """The history items' messages as provider dicts; ``MessageError`` names the item and the
    message whose role no provider accepts."""
    out: list[dict[str, Any]] = []
    for item in items:
        if item.kind != "history":
            continue
        raw = item.meta.get("messages")
        if raw:
            out.extend(_checked(_message_dict(m), item, k) for k, m in enumerate(raw))
        else:
            out.append({"role": item.meta.get("role", "user"), "content": item.content})
    return out


def message_body(m: Mapping[str, Any]) -> str:
    """What one rendered message carries as text: its content (JSON when it is not a str), then
    every other field but the role (tool calls, tool call ids, names) as JSON. The engine's
    budget counts this, plus ``MESSAGE_FRAMING_TOKENS`` for the role and separators."""
    content = m.get("content")
    if not isinstance(content, str):
        content = json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
    extras = {k: v for k, v in m.items() if k not in ("role", "content")}
    tail = "\n" + json.dumps(extras, sort_keys=True, ensure_ascii=False, default=str) if extras else ""
    return f"{content}{tail}"


def message_text(m: Mapping[str, Any]) -> str:
    """One message as ``to_text`` writes it: a role marker, then its body."""
    return f"<|{m.get('role')}|>\n{message_body(m)}"


@dataclass(frozen=True)
class Rendered:
    """A window rendered in one layout; ``messages`` and ``text`` serialise it."""

    layout: str
    query: str
    system: str
    history: list[dict[str, Any]]
    context: str  # the transient context message (cache layout), "" when there is none

    def messages(self, style: str = "openai", include_query: bool = True) -> Any:
        if style not in ("openai", "anthropic"):
            raise ValueError(f"style: must be 'openai' or 'anthropic', got {style!r}")
        tail_parts = [p for p in (self.context, self.query if include_query else "") if p]
        history = [dict(m) for m in self.history]
        if style == "openai":
            head = [{"role": "system", "content": self.system}] if self.system else []
            return head + history + [{"role": "user", "content": p} for p in tail_parts]
        # Anthropic takes the system prompt apart and wants one user message per user turn
        if len(tail_parts) == 2:
            history.append({"role": "user", "content": [{"type": "text", "text": p} for p in tail_parts]})
        elif tail_parts:
            history.append({"role": "user", "content": tail_parts[0]})
        return {"system": self.system, "messages": history}

    def text(self, include_query: bool = True) -> str:
        return "\n".join(message_text(m) for m in self.messages("openai", include_query))


def render(items: Sequence[ContextItem], query: str, layout: str = "cache", *, readers: Readers = None) -> Rendered:
    """Render ``items`` (already in prompt order) for ``query`` in ``layout``, for ``readers``."""
    items = visible(items, readers)[0]
    if layout == "seed":
        system = "\n\n".join(block(i) for i in items if i.kind != "history")
        return Rendered(layout, query, system, history_messages(items), "")
    if layout == "cache":
        context = "\n\n".join(block(i) for i in items if i.kind != "history" and i.stability != "stable")
        return Rendered(layout, query, stable_block(items), history_messages(items), context)
    raise ValueError(f"layout: must be 'seed' or 'cache', got {layout!r}")
