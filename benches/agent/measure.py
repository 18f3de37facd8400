"""Per-call checks on rendered requests, independent of what the conversation says about them.

A path hands over, per model call, the request bodies it rendered (``Rendered``): the OpenAI
Chat body always, the Anthropic body when it renders one, and the admitted limit. Everything
here is computed from those bodies alone, with the one estimator:

* the prefix shared with the previous request: the longest common run of leading OpenAI
  messages (tools first, as providers order the prefix), token-weighted; and for Anthropic
  the prefix up to the last ``cache_control`` breakpoint of the previous request that this
  request reads back (same blocks up to it, and one of this request's breakpoints at most 20
  blocks after it: Anthropic's look-back);
* a recount of the request (framing + estimated text of every message and tool schema, plus
  the protocol overhead) against the admitted limit;
* orphans: tool calls without their results right after them, results without their call;
* whether the system prompt and the pinned instruction are in the request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxsieve.tokenizers import Estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

LOOK_BACK = 20  # blocks Anthropic looks back from a breakpoint for an earlier cache entry
MAX_BREAKPOINTS = 4


@dataclass(frozen=True)
class Rendered:
    """One model call as a path rendered it. ``estimate``/``shared`` are the path's own
    figures (None when it has none); ``label`` says what the call was (model, attempt)."""

    openai: Mapping[str, Any]
    limit: int
    turn: int
    label: str = ""
    anthropic: Mapping[str, Any] | None = None
    estimate: int | None = None
    shared: int | None = None


@dataclass(frozen=True)
class CallCheck:
    """What the checks found for one call."""

    turn: int
    label: str
    messages: int
    prompt_tokens: int  # recount of the OpenAI body, without the protocol overhead
    shared_tokens: int  # OpenAI body: tokens of the prefix shared with the previous request
    anthropic_tokens: int
    anthropic_shared: int
    breakpoints: int
    recount: int  # prompt_tokens + overhead: what the limit is checked against
    estimate: int | None
    limit: int
    orphans: tuple[str, ...]
    system_ok: bool
    pinned_ok: bool
    own_shared: int | None

    @property
    def over_limit(self) -> bool:
        return self.recount > self.limit or (self.estimate is not None and self.estimate > self.limit)


@dataclass
class Summary:
    """The aggregate over one path's calls (``share``: token-weighted over follow-up calls)."""

    path: str
    calls: list[CallCheck] = field(default_factory=list)

    def _followups(self) -> list[CallCheck]:
        return self.calls[1:]

    @staticmethod
    def _ratio(num: int, den: int) -> float:
        return num / den if den else 0.0

    @property
    def share(self) -> float:
        f = self._followups()
        return self._ratio(sum(c.shared_tokens for c in f), sum(c.prompt_tokens for c in f))

    @property
    def anthropic_share(self) -> float:
        f = [c for c in self._followups() if c.anthropic_tokens]
        return self._ratio(sum(c.anthropic_shared for c in f), sum(c.anthropic_tokens for c in f))

    @property
    def own_share(self) -> float | None:
        f = self._followups()
        if any(c.own_shared is None for c in f):
            return None
        return self._ratio(sum(c.own_shared or 0 for c in f), sum(c.prompt_tokens for c in f))

    @property
    def over_limit(self) -> int:
        return sum(c.over_limit for c in self.calls)

    @property
    def orphans(self) -> int:
        return sum(len(c.orphans) for c in self.calls)

    @property
    def present(self) -> float:
        return self._ratio(sum(c.system_ok and c.pinned_ok for c in self.calls), len(self.calls))

    @property
    def max_fill(self) -> float:
        return max((c.recount / c.limit for c in self.calls), default=0.0)

    @property
    def estimate_mismatches(self) -> int:
        """Calls whose own estimate differs from the recount (the request counted differently)."""
        return sum(c.estimate is not None and c.estimate != c.recount for c in self.calls)


class Checker:
    """Checks each call against the previous one. ``system``/``pinned``: texts every request
    must hold; ``overhead``: the protocol overhead the limit reserves (``Limits``)."""

    def __init__(self, path: str, estimator: Estimator, *, system: str, pinned: str, overhead: int):
        self.estimator = estimator
        self.system = system
        self.pinned = pinned
        self.overhead = overhead
        self.summary = Summary(path)
        self._prev: Rendered | None = None

    def _tokens(self, texts: list[str]) -> int:
        return sum(self.estimator.count(texts)) if texts else 0

    def message_tokens(self, m: Mapping[str, Any]) -> int:
        return MESSAGE_FRAMING_TOKENS + self._tokens(openai_texts(m))

    def tool_tokens(self, tools: Sequence[Any]) -> int:
        return sum(MESSAGE_FRAMING_TOKENS + self._tokens([_compact(t)]) for t in tools)

    def add(self, r: Rendered) -> CallCheck:
        msgs = list(r.openai.get("messages", ()))
        tools = list(r.openai.get("tools") or ())
        weights = [self.message_tokens(m) for m in msgs]
        prompt = self.tool_tokens(tools) + sum(weights)
        shared = 0
        if self._prev is not None:
            shared = self._openai_shared(self._prev.openai, msgs, tools, weights)
        a_tokens = a_shared = marks = 0
        if r.anthropic is not None:
            blocks = anthropic_blocks(r.anthropic)
            a_weights = [self._block_tokens(b) for _, b in blocks]
            a_tokens = sum(a_weights)
            marks = sum(1 for _, b in blocks if "cache_control" in b)
            if self._prev is not None and self._prev.anthropic is not None:
                a_shared = self._anthropic_shared(anthropic_blocks(self._prev.anthropic), blocks, a_weights)
        system_text = msgs[0]["content"] if msgs and msgs[0].get("role") == "system" else ""
        anth_system = _anthropic_system(r.anthropic) if r.anthropic is not None else system_text
        check = CallCheck(
            turn=r.turn,
            label=r.label,
            messages=len(msgs),
            prompt_tokens=prompt,
            shared_tokens=shared,
            anthropic_tokens=a_tokens,
            anthropic_shared=a_shared,
            breakpoints=marks,
            recount=prompt + self.overhead,
            estimate=r.estimate,
            limit=r.limit,
            orphans=tuple(openai_orphans(msgs))
            + (tuple(anthropic_orphans(r.anthropic["messages"])) if r.anthropic is not None else ()),
            system_ok=self.system in system_text and self.system in anth_system,
            pinned_ok=self.pinned in system_text and self.pinned in anth_system,
            own_shared=r.shared,
        )
        self.summary.calls.append(check)
        self._prev = r
        return check

    def _openai_shared(self, prev: Mapping[str, Any], msgs: list[Any], tools: list[Any], weights: list[int]) -> int:
        if list(prev.get("tools") or ()) != tools:
            return 0  # the tools open the prefix: different tools, nothing is shared
        shared = self.tool_tokens(tools)
        for a, b, w in zip(prev.get("messages", ()), msgs, weights):
            if a != b:
                break
            shared += w
        return shared

    def _block_tokens(self, block: Mapping[str, Any]) -> int:
        return MESSAGE_FRAMING_TOKENS + self._tokens(anthropic_texts(block))

    @staticmethod
    def _anthropic_shared(prev: list[Any], cur: list[Any], weights: list[int]) -> int:
        """Tokens up to the last breakpoint of ``prev`` that ``cur`` reads back."""
        cur_marks = [i for i, (_, b) in enumerate(cur) if "cache_control" in b]
        best = -1
        for i, (a, b) in enumerate(zip(prev, cur)):
            if _strip(a) != _strip(b):
                break
            if "cache_control" in a[1] and any(i <= c < i + LOOK_BACK for c in cur_marks):
                best = i
        return sum(weights[: best + 1])


def openai_texts(m: Mapping[str, Any]) -> list[str]:
    """Every text an OpenAI Chat message sends (what the estimator counts)."""
    out: list[str] = []
    content = m.get("content")
    if isinstance(content, str):
        out.append(content)
    elif isinstance(content, list):
        out += [p["text"] for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str)]
    for c in m.get("tool_calls") or ():
        out += [c["id"], c["function"]["name"], c["function"]["arguments"]]
    if m.get("role") == "tool":
        out.insert(0, m["tool_call_id"])
    return out


def anthropic_blocks(body: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The request in Anthropic's prefix order (tools, system, messages) as ``(where, block)``."""
    out: list[tuple[str, Mapping[str, Any]]] = [("tools", t) for t in body.get("tools") or ()]
    system = body.get("system")
    if isinstance(system, str):
        out.append(("system", {"type": "text", "text": system}))
    elif system:
        out += [("system", b) for b in system]
    for m in body["messages"]:
        content = m["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out += [(m["role"], b) for b in blocks]
    return out


def anthropic_texts(block: Mapping[str, Any]) -> list[str]:
    kind = block.get("type")
    if kind == "text":
        return [block["text"]]
    if kind == "tool_use":
        return [block["id"], block["name"], json.dumps(block["input"], separators=(",", ":"))]
    if kind == "tool_result":
        content = block.get("content")
        texts = [content] if isinstance(content, str) else [p["text"] for p in content or () if "text" in p]
        return [block["tool_use_id"], *texts]
    return [_compact({k: v for k, v in block.items() if k != "cache_control"})]  # a tool schema


def _anthropic_system(body: Mapping[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, str):
        return system
    return "\n".join(b.get("text", "") for b in system or ())


def _strip(item: tuple[str, Mapping[str, Any]]) -> tuple[str, dict[str, Any]]:
    where, block = item
    return where, {k: v for k, v in block.items() if k != "cache_control"}


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, default=str)


def openai_orphans(msgs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Tool calls whose results do not follow their assistant message, and results that do
    not answer a call of the assistant message before them (what OpenAI rejects)."""
    problems: list[str] = []
    i = 0
    while i < len(msgs):
        m = msgs[i]
        if m.get("role") == "tool":
            problems.append(f"message {i}: result for {m.get('tool_call_id')} without its call")
            i += 1
            continue
        calls = [c["id"] for c in m.get("tool_calls") or ()] if m.get("role") == "assistant" else []
        i += 1
        answered = []
        while i < len(msgs) and msgs[i].get("role") == "tool":
            cid = msgs[i].get("tool_call_id")
            if cid not in calls:
                problems.append(f"message {i}: result for {cid} without its call")
            answered.append(cid)
            i += 1
        problems += [f"call {c} without its result" for c in calls if c not in answered]
    return problems


def anthropic_orphans(msgs: Sequence[Mapping[str, Any]]) -> list[str]:
    """``tool_use`` blocks not answered in the next user message, ``tool_result`` blocks that
    answer no ``tool_use`` of the assistant message before them."""
    problems: list[str] = []
    pending: list[str] = []
    for i, m in enumerate(msgs):
        blocks = m["content"] if isinstance(m["content"], list) else []
        if m["role"] == "user":
            results = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
            problems += [f"anthropic message {i}: result for {r} without its call" for r in results if r not in pending]
            problems += [f"anthropic: call {c} without its result" for c in pending if c not in results]
            pending = []
        else:
            problems += [f"anthropic: call {c} without its result" for c in pending]
            pending = [b["id"] for b in blocks if b.get("type") == "tool_use"]
    problems += [f"anthropic: call {c} without its result" for c in pending]
    return problems
