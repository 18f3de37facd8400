"""OpenAI Chat Completions messages: ``read`` into the model, ``write`` back.

Shapes (https://platform.openai.com/docs/api-reference/chat/create): a message is
``{"role", "content", ...}``; content is a str, None, or a list of ``text`` / ``image_url``
parts; an assistant's ``tool_calls`` are ``{"id", "type": "function", "function": {"name",
"arguments"}}``; a ``tool`` message answers one call by ``tool_call_id``. DeepSeek's
``reasoning_content`` (https://api-docs.deepseek.com/guides/reasoning_model) rides on the
assistant message.

>>> msgs = read([{"role": "user", "content": "hi"},
...              {"role": "assistant", "content": None, "tool_calls": [
...                  {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
...              {"role": "tool", "tool_call_id": "c1", "content": "a.py"}])
>>> [m.role for m in msgs], msgs[1].tool_calls[0].name, msgs[2].text
(['user', 'assistant', 'tool'], 'ls', 'a.py')
>>> write(msgs) == [{"role": "user", "content": "hi"},
...     {"role": "assistant", "content": None, "tool_calls": [
...         {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
...     {"role": "tool", "tool_call_id": "c1", "content": "a.py"}]
True
>>> read([{"role": "human", "content": "hi"}])
Traceback (most recent call last):
...
ctxsieve.messages.model.MessageError: messages[0].role: 'human' is not one of 'assistant', ... (LangChain messages ...
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ctxsieve.messages import _common as c
from ctxsieve.messages.model import Image, Message, MessageError, Part, Reasoning, Text, ToolCall, ToolResult
from ctxsieve.messages.units import units
from ctxsieve.messages.wire import WireCache

# "developer" is OpenAI's newer name for the system role (reasoning models); read as system.
READ_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
PART_TYPES = frozenset({"text", "image_url", "refusal"})
_FRAMEWORK_ROLES = {"human": "LangChain", "ai": "LangChain", "model": "PydanticAI"}


def _role(raw: Mapping[str, Any], where: str) -> str:
    role = raw.get("role")
    if role in READ_ROLES:
        return "system" if role == "developer" else str(role)
    hint = ""
    if role in _FRAMEWORK_ROLES:
        fw = _FRAMEWORK_ROLES[str(role)]
        hint = f" ({fw} messages convert through the {fw} integration, ctxsieve.integrations.{fw.lower()})"
    raise MessageError(f"{where}.role: {role!r} is not one of {c.allowed(READ_ROLES)}{hint}")


def _content(content: Any, where: str, *, images: bool) -> list[Text | Image]:
    if content is None:
        return []
    if isinstance(content, str):
        return [Text(content)] if content else []
    if not isinstance(content, list):
        raise MessageError(f"{where}: expected a str, None or a list of parts, got {type(content).__name__}")
    out: list[Text | Image] = []
    for k, raw_part in enumerate(content):
        at = f"{where}[{k}]"
        part = c.mapping(raw_part, at, "a content part")
        kind = part.get("type")
        if kind == "text":
            out.append(Text(c.string(part, "text", at) or ""))
        elif kind == "refusal":
            out.append(Text(c.string(part, "refusal", at) or ""))
        elif kind == "image_url" and images:
            inner = part.get("image_url")
            url = inner.get("url") if isinstance(inner, Mapping) else inner
            if not isinstance(url, str) or not url:
                raise MessageError(f"{at}.image_url: expected a url (str or {{'url': str}}), got {url!r:.60}")
            out.append(c.image_from_url(url))
        else:
            kinds = PART_TYPES if images else PART_TYPES - {"image_url"}
            raise MessageError(f"{at}.type: {kind!r} is not a content part type read here ({c.allowed(kinds)})")
    return out


def _tool_call(raw_call: Any, where: str) -> ToolCall:
    call = c.mapping(raw_call, where, "a tool call")
    kind = call.get("type", "function")
    if kind != "function":
        raise MessageError(f"{where}.type: {kind!r} tool calls are not read (only 'function')")
    fn = c.mapping(call.get("function"), f"{where}.function", "a function")
    args = fn.get("arguments", "{}")
    # verbatim: the exact text the model produced, valid JSON or not
    arguments = args if isinstance(args, str) else c.compact_json(args)
    return ToolCall(c.nonempty(call, "id", where), c.nonempty(fn, "name", f"{where}.function"), arguments)


def read_one(raw_message: Any, where: str) -> Message:
    """One Chat Completions message (a dict, an SDK object or a ``Message``) as a ``Message``."""
    if isinstance(raw_message, Message):
        return raw_message
    raw = c.mapping(raw_message, where)
    role = _role(raw, where)
    audience = c.audience(raw, where)
    name = c.string(raw, "name", where, required=False)
    if role == "tool":
        call_id = raw.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise MessageError(f"{where}.tool_call_id: a tool message must name the call it answers, got {call_id!r}")
        texts = _content(raw.get("content"), f"{where}.content", images=False)
        return Message("tool", (ToolResult(call_id, tuple(texts), name),), audience)
    parts: list[Part] = []
    if role == "assistant":
        thought = raw.get("reasoning_content")
        if thought is not None:
            if not isinstance(thought, str):
                raise MessageError(f"{where}.reasoning_content: expected a str, got {type(thought).__name__}")
            parts.append(Reasoning(thought, provider="deepseek"))
        if raw.get("function_call") is not None:
            raise MessageError(f"{where}.function_call: the legacy function_call shape is not read; use tool_calls")
    parts += _content(raw.get("content"), f"{where}.content", images=role == "user")
    if role == "assistant":
        refusal = raw.get("refusal")
        if isinstance(refusal, str) and refusal:
            parts.append(Text(refusal))
        calls = raw.get("tool_calls") or []
        if not isinstance(calls, list):
            raise MessageError(f"{where}.tool_calls: expected a list, got {type(calls).__name__}")
        parts += [_tool_call(tc, f"{where}.tool_calls[{k}]") for k, tc in enumerate(calls)]
    elif raw.get("tool_calls"):
        raise MessageError(f"{where}.tool_calls: only an assistant message makes tool calls, not a {role!r} one")
    return Message(role, tuple(parts), audience, name)  # type: ignore[arg-type]


def read(messages: Sequence[Any], *, where: str = "messages") -> list[Message]:
    """Chat Completions messages as ``Message`` objects, one each, strictly checked."""
    return [read_one(m, f"{where}[{i}]") for i, m in enumerate(c.items_list(messages, where))]


def _parts_out(parts: Sequence[Text | Image], where: str) -> str | list[dict[str, Any]]:
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    out: list[dict[str, Any]] = []
    for k, p in enumerate(parts):
        if isinstance(p, Text):
            out.append({"type": "text", "text": p.text})
        else:
            out.append({"type": "image_url", "image_url": {"url": c.image_url(p, f"{where}.parts[{k}]")}})
    return out if out else ""


def _tool_messages(m: Message, where: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    pictures: list[Image] = []
    for r in m.tool_results:
        texts = [p for p in r.parts if isinstance(p, Text)]
        pictures += [p for p in r.parts if isinstance(p, Image)]
        out.append({"role": "tool", "tool_call_id": r.call_id, "content": _parts_out(texts, where)})
    if pictures:
        # a tool message carries text only: its images follow in a user message, after all
        # the results, so the results still come right after the call
        ids = ", ".join(r.call_id for r in m.tool_results if any(isinstance(p, Image) for p in r.parts))
        body: list[Text | Image] = [Text(f"[images from tool call {ids}]"), *pictures]
        out.append({"role": "user", "content": _parts_out(body, where)})
    return out


def write_one(m: Message, where: str, *, reasoning: bool = False) -> list[dict[str, Any]]:
    """``m`` as Chat Completions messages: one, or one per result of a tool message."""
    if m.role == "tool":
        return _tool_messages(m, where)
    out: dict[str, Any] = {"role": m.role}
    if m.name is not None:
        out["name"] = m.name
    body = [p for p in m.parts if isinstance(p, (Text, Image))]
    if m.role != "user" and any(isinstance(p, Image) for p in body):
        raise MessageError(f"{where}: only a user message carries images in OpenAI Chat, not a {m.role!r} one")
    if m.role == "assistant" and not body and m.tool_calls:
        out["content"] = None
    else:
        out["content"] = _parts_out(body, where)
    if m.tool_calls:
        out["tool_calls"] = [
            {"id": t.id, "type": "function", "function": {"name": t.name, "arguments": t.arguments}}
            for t in m.tool_calls
        ]
    thoughts = [r.text for r in m.reasoning if r.provider == "deepseek"]
    if reasoning and thoughts:
        out["reasoning_content"] = "\n".join(thoughts)
    return [out]


def write(
    messages: Sequence[Message], *, reasoning: bool = False, cache: WireCache | None = None
) -> list[dict[str, Any]]:
    """Chat Completions message dicts. Reasoning goes out (as ``reasoning_content``) only with
    ``reasoning=True`` and only DeepSeek's: a block is sent back to the provider that made it.
    The audience is never written: it is a label for admission, not prompt text. ``cache``
    (a ``WireCache``) writes each message once across calls.

    The API wants an assistant's tool calls followed at once by their tool messages: results
    that come after an interjection (a user, a second assistant message) are written right
    after their call, before it; nothing else moves."""
    codec = "openai_chat+r" if reasoning else "openai_chat"
    order = results_first(messages) if _interjected(messages) else range(len(messages))
    out: list[dict[str, Any]] = []
    pictures: set[int] = set()  # the user messages carrying tool results' images
    for i in order:
        m = messages[i]
        if cache is None:
            written = write_one(m, f"messages[{i}]", reasoning=reasoning)
        else:
            written = cache.get(codec, m, lambda: write_one(m, f"messages[{i}]", reasoning=reasoning))  # noqa: B023
            written = [dict(d) for d in written]
        if len(written) > 1 and written[-1]["role"] == "user":
            pictures.add(id(written[-1]))
        out += written
    return _after_results(out, pictures) if pictures else out


def _after_results(out: list[dict[str, Any]], pictures: set[int]) -> list[dict[str, Any]]:
    """``out`` with each user message of result images moved after the tool messages that
    follow it (the results of the same calls, written from later tool messages)."""
    done: list[dict[str, Any]] = []
    held: list[dict[str, Any]] = []
    for d in out:
        if id(d) in pictures:
            held.append(d)
            continue
        if held and d["role"] != "tool":
            done += held
            held = []
        done.append(d)
    return done + held


def _interjected(messages: Sequence[Message]) -> bool:
    """Whether a message that is not one of its results comes between an assistant's calls and
    their results. A tight loop over parts: it runs on every call of a long conversation."""
    pending: set[str] = set()  # calls of the last assistant message not yet answered
    for m in messages:
        role = m.role
        if role == "tool":
            for r in m.parts:
                if r.call_id in pending:  # type: ignore[union-attr]
                    pending.discard(r.call_id)  # type: ignore[union-attr]
                elif pending:
                    return True  # another call's result between a call and its own
        elif pending:
            return True
        elif role == "assistant":
            for p in m.parts:
                if type(p) is ToolCall:
                    pending.add(p.id)
    return False


def results_first(messages: Sequence[Message]) -> list[int]:
    """The order OpenAI Chat takes ``messages`` in: within each exchange (a call with its
    results, ``ctxsieve.messages.units``), every tool message whose results all answer an
    assistant message's calls comes right after it; the rest keep their order."""
    order: list[int] = []
    for u in units(messages):
        placed = [False] * len(u)
        for k in range(len(u)):
            if placed[k]:
                continue
            order.append(u.start + k)
            calls = {c.id for c in u.messages[k].tool_calls}
            later: set[str] = set()  # ids called again after k: their results answer that call
            for j in range(k + 1, len(u)):
                if not calls:
                    break
                answers = {r.call_id for r in u.messages[j].tool_results}
                if not placed[j] and answers and answers <= calls and not answers & later:
                    order.append(u.start + j)
                    placed[j] = True
                    calls -= answers
                later.update(c.id for c in u.messages[j].tool_calls)
    return order


__all__ = ["PART_TYPES", "READ_ROLES", "read", "read_one", "results_first", "write", "write_one"]
