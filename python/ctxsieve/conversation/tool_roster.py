"""The tool roster: which tool schemas every call sends, and deferred loading through ``tool_search``.

Tool schemas are required content of every call that allows tools. ``Limits.tools_fraction``
caps them at a share of the first call's window (of the ceiling when the window is unknown),
whole schemas only and in the given order, like the skill roster: the first schema that does
not fit and every one after it are deferred, as are the tools named in
``Conversation(deferred_tools=...)``. When any tool is deferred, every call that allows tools
also carries ``tool_search`` (its cost comes out of the cap first) and the system prompt ends
with one line naming the deferred tools. The roster is fixed by the first call, with the
system prompt.

When the model calls ``tool_search(query)``, the loop hands it to ``Conversation.tool_search``
(the tool's function: the same name, the same arguments), which answers with the matching
schemas as JSON and loads those tools for every later call. Where a loaded tool goes:

* by default it is appended at the end of the ``tools`` array: OpenAI and every other provider
  need a tool's schema there to let the model call it. The array then differs from the previous
  call's, so that call's cached prefix is lost once (Anthropic caches tools -> system ->
  messages; the prefix report says so), then the new array is the stable prefix again;
* with ``Conversation(provider="anthropic")`` the Anthropic rendering uses the provider's own
  deferred loading: every deferred tool is in ``tools`` from the first call on with
  ``"defer_loading": true`` (Anthropic leaves those out of the prompt), and the ``tool_search``
  result goes out as ``tool_reference`` blocks, which Anthropic expands into the definitions
  inline where the result stands. The ``tools`` array never changes, so loading a tool costs no
  cache miss (Anthropic, "Tool use with prompt caching: defer_loading and cache preservation";
  the client-side form of its tool search tool, "Custom tool search implementation").

The estimate counts a loaded tool in the tools section in both forms (in the Anthropic form its
definition is in the result instead, which the result's JSON already costs), so it is an upper
bound of either request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxsieve.admission.accounting import schema_json
from ctxsieve.errors import ConfigError
from ctxsieve.messages.tools import tool_parts
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

TOOL_SEARCH = "tool_search"
MAX_RESULTS = 20
DEFAULT_RESULTS = 5
DEFERRED_HEADING = "\n\nDeferred tools (call tool_search to load one before you use it): "

# The one definition of what the model reads about tool_search: the schema below and the
# docstring of Conversation.tool_search are both made from these words.
_DESCRIPTION = (
    "Load tools that are listed as deferred in the system prompt, so that you can call them. "
    "Returns the matching tools' schemas as JSON; once a tool is returned it can be called like "
    "any other tool."
)
_ARGS = {
    "query": "tool names, or words of what the tool should do (matched against names, descriptions and parameters).",
    "limit": f"how many tools to load at most (1-{MAX_RESULTS}, default {DEFAULT_RESULTS}).",
}
TOOL_SEARCH_DOC = (
    _DESCRIPTION.split(" Returns ")[0]
    + "\n\nArgs:\n"
    + "".join(f"    {k}: {v}\n" for k, v in _ARGS.items())
    + "\nReturns "
    + _DESCRIPTION.split(" Returns ")[1]
)
TOOL_SEARCH_SCHEMA: Mapping[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_SEARCH,
        "description": _DESCRIPTION,
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": _ARGS["query"]},
                "limit": {"type": "integer", "description": _ARGS["limit"]},
            },
            "required": ["query"],
        },
    },
}

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def schema_cost(count: Any, schemas: Sequence[Mapping[str, Any]]) -> list[int]:
    """Each schema's tokens as the tools section counts them (framing + its compact JSON)."""
    texts = [schema_json(t) for t in schemas]
    return [MESSAGE_FRAMING_TOKENS + n for n in (count(texts) if texts else [])]


@dataclass
class Roster:
    """The conversation's tools: all of them (``schemas``, in order), which are deferred and
    which of those are loaded. ``marked``: the names the caller deferred."""

    schemas: tuple[Mapping[str, Any], ...]
    marked: frozenset[str]
    native: bool = False
    settled: bool = False
    deferred: tuple[str, ...] = ()
    loaded: list[str] = field(default_factory=list)
    _answers: set[str] = field(default_factory=set)  # the texts search() returned
    _by_name: dict[str, Mapping[str, Any]] = field(default_factory=dict)

    @classmethod
    def build(cls, tools: Sequence[Mapping[str, Any]], deferred_tools: Sequence[str]) -> Roster:
        if isinstance(deferred_tools, str) or not isinstance(deferred_tools, Sequence):
            raise ConfigError(f"deferred_tools: expected a sequence of tool names, got {deferred_tools!r}")
        names = [tool_parts(t, f"tools[{i}]")[0] for i, t in enumerate(tools)]
        for i, d in enumerate(deferred_tools):
            if not isinstance(d, str) or d not in names:
                raise ConfigError(f"deferred_tools[{i}]: {d!r} is not the name of one of the tools")
        return cls(tuple(tools), frozenset(deferred_tools), _by_name=dict(zip(names, tools)))

    def check_name(self, fraction: float | None) -> None:
        if (self.marked or fraction is not None) and TOOL_SEARCH in self._by_name:
            raise ConfigError(
                f"tools: a tool named {TOOL_SEARCH!r} clashes with the roster's own, which loads deferred ones"
            )

    def settle(self, cap: int | None, count: Any) -> tuple[tuple[Mapping[str, Any], ...], str]:
        """Decide the roster (once, at the first call): the schemas every call sends and the
        system prompt's line naming the deferred tools ("" when none is deferred)."""
        self.settled = True
        costs = schema_cost(count, self.schemas)
        keep = self._fit(costs, cap)
        if len(keep) == len(self.schemas):
            return self.schemas, ""
        search_cost = schema_cost(count, [TOOL_SEARCH_SCHEMA])[0]
        keep = self._fit(costs, None if cap is None else cap - search_cost)
        self.deferred = tuple(n for n in self._by_name if n not in keep)
        sent = tuple(t for n, t in self._by_name.items() if n in keep)
        return (*sent, TOOL_SEARCH_SCHEMA), DEFERRED_HEADING + ", ".join(self.deferred) + "."

    def _fit(self, costs: list[int], cap: int | None) -> set[str]:
        keep: set[str] = set()
        room = cap
        for name, c in zip(self._by_name, costs):
            if name in self.marked:
                continue
            if room is not None:
                if c > room:
                    break  # whole entries, in order: this one and every later one wait
                room -= c
            keep.add(name)
        return keep

    def search(self, query: Any, limit: Any = DEFAULT_RESULTS) -> tuple[str, list[Mapping[str, Any]]]:
        """The result text of ``tool_search(query, limit)`` and the schemas it loads."""
        if not self.deferred:
            return "error: no tool is deferred in this conversation; every tool is already available", []
        if not isinstance(query, str) or not query.strip():
            return "error: query must be a non-empty string", []
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RESULTS:
            return f"error: limit must be an integer from 1 to {MAX_RESULTS}, got {limit!r}", []
        ranked = self._ranked(query)
        new = [n for n in ranked if n not in self.loaded][:limit]
        again = [n for n in ranked if n in self.loaded]
        schemas = [self._by_name[n] for n in new]
        self.loaded += new
        out: dict[str, Any] = {"loaded": [_plain(t) for t in schemas]}
        if again:
            out["already_loaded"] = again
        if not ranked:
            out["note"] = f"no deferred tool matches {query!r}; the deferred tools are: {', '.join(self.deferred)}"
        text = json.dumps(out, ensure_ascii=False, separators=(",", ":"))
        self._answers.add(text)
        return text, schemas

    def answered(self, text: str) -> bool:
        """Whether ``text`` is an answer of ``search`` (kept whole: never offloaded)."""
        return text in self._answers

    def _ranked(self, query: str) -> list[str]:
        asked = _words(query)
        named = {n for n in self.deferred if n.lower() in query.lower().replace(",", " ").replace(":", " ").split()}
        scored = []
        for i, n in enumerate(self.deferred):
            _, desc, params = tool_parts(self._by_name[n])
            score = 10 * (n in named) + 3 * len(asked & _words(n))
            score += len(asked & (_words(desc) | _words(json.dumps(params.get("properties", {})))))
            if score:
                scored.append((-score, i, n))
        return [n for *_, n in sorted(scored)]


def _plain(t: Mapping[str, Any]) -> dict[str, Any]:
    name, desc, params = tool_parts(t)
    return {"name": name, "description": desc, "parameters": params}


def prefix_key(roster: Roster | None, with_tools: bool) -> Any:
    """What identifies the tools a call sends, for the prefix it shares with the previous call:
    loading a tool changes it, except in the Anthropic form (its ``tools`` array is fixed)."""
    if roster is None or not roster.deferred or not with_tools:
        return with_tools
    return (True, 0 if roster.native else len(roster.loaded))


def counts(roster: Roster | None, sent: int, with_tools: bool) -> dict[str, int]:
    """The report's ``counts["tools"]``."""
    deferred = len(roster.deferred) if roster is not None else 0
    loaded = len(roster.loaded) if roster is not None else 0
    return {"schemas": sent, "included": sent if with_tools else 0, "deferred": deferred, "loaded": loaded}


def anthropic_native(body: dict[str, Any], roster: Roster | None) -> dict[str, Any]:
    """An Anthropic body in the provider's deferred-loading form (see the module doc): the
    deferred tools with ``defer_loading`` after the sent ones, ``tool_search`` results as
    ``tool_reference`` blocks. Unchanged when nothing is deferred."""
    if roster is None or not roster.native or not roster.deferred or "tools" not in body:
        return body
    deferred = set(roster.deferred)
    tools = [t for t in body["tools"] if t.get("name") not in deferred]
    tools += [{**_anthropic(roster._by_name[n]), "defer_loading": True} for n in roster.deferred]
    calls = {
        b.get("id")
        for m in body["messages"]
        if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "tool_use" and b.get("name") == TOOL_SEARCH
    }
    msgs = [_references(m, calls, deferred) if calls and m.get("role") == "user" else m for m in body["messages"]]
    return {**body, "tools": tools, "messages": msgs}


def _anthropic(t: Mapping[str, Any]) -> dict[str, Any]:
    name, desc, params = tool_parts(t)
    return {"name": name, "description": desc, "input_schema": params}


def _references(m: dict[str, Any], calls: set[Any], deferred: set[str]) -> dict[str, Any]:
    content = m.get("content")
    if not isinstance(content, list):
        return m
    out, changed = [], False
    for b in content:
        if b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
            names = _loaded_names(b.get("content"), deferred)
            if names:
                b = {**b, "content": [{"type": "tool_reference", "tool_name": n} for n in names]}
                changed = True
        out.append(b)
    return {**m, "content": out} if changed else m  # the written forms are shared: never edited


def _loaded_names(content: Any, deferred: set[str]) -> list[str]:
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    try:
        got = json.loads(content) if isinstance(content, str) else None
    except ValueError:
        return []
    if not isinstance(got, Mapping) or not isinstance(got.get("loaded"), list):
        return []
    return [t["name"] for t in got["loaded"] if isinstance(t, Mapping) and t.get("name") in deferred]


__all__ = ["TOOL_SEARCH", "TOOL_SEARCH_DOC", "TOOL_SEARCH_SCHEMA", "Roster", "anthropic_native"]
