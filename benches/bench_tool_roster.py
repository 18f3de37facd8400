"""Prefix share with 60 tools: every schema sent, against deferred loading (issue 14 item 5).

The same scripted agent (16 user turns; each turn calls one tool and answers; on turns 3, 7
and 11 the tool it needs is one the deferred roster holds back, so it first calls tool_search)
runs through a ``Conversation`` three ways:

* ``all sent``: the 60 schemas on every call (no roster limit);
* ``deferred, appended``: ``Limits.tools_fraction=0.02`` of a 128k window; a loaded schema is
  appended at the end of ``tools`` (every provider);
* ``deferred, anthropic``: the same roster with ``provider="anthropic"``: Anthropic's own
  ``defer_loading`` and ``tool_reference`` results, the ``tools`` array never changing.

Each call's Anthropic body is measured as Anthropic's cache sees it (tools -> system ->
messages, block by block; deferred tools are not in the prompt, a ``tool_reference`` costs the
definition it expands to): its prompt tokens, and the part that opens with the same blocks as
the previous call's body (the most a cache read can cover; breakpoints are where the
conversation places them). Tokens are ``bytes/3`` of each block's compact JSON.

    python benches/bench_tool_roster.py          # the table
    pytest benches/bench_tool_roster.py -q       # the same run, asserting the figures
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from ctxsieve import Conversation, Limits
from ctxsieve.tokenizers import get_estimator

N_TOOLS = 60
TURNS = 16
SEARCH_TURNS = (3, 7, 11)
WINDOW = 128_000
FRACTION = 0.02
COUNT = get_estimator("bytes/3")
VERBS = ["get", "list", "create", "update", "cancel", "refund", "export", "search", "tag", "merge"]
NOUNS = ["order", "invoice", "customer", "shipment", "ticket", "product"]


def tools() -> list[dict[str, Any]]:
    rng = random.Random(14)
    out = []
    for i in range(N_TOOLS):
        verb, noun = VERBS[i % len(VERBS)], NOUNS[i // len(VERBS) % len(NOUNS)]
        props = {
            f"{noun}_field_{k}": {"type": "string", "description": f"the {noun}'s field {k}, as the records spell it"}
            for k in range(rng.randint(1, 5))
        }
        desc = f"{verb.title()} a {noun}. " + " ".join(
            rng.choice(["It checks the account first.", "Returns JSON.", "Fails on closed records.", "Idempotent."])
            for _ in range(rng.randint(4, 14))
        )
        params = {"type": "object", "properties": props, "required": list(props)[:1]}
        out.append(
            {"type": "function", "function": {"name": f"{verb}_{noun}", "description": desc, "parameters": params}}
        )
    return out


def _blocks(body: dict[str, Any]) -> list[tuple[str, int]]:
    """The body's cache blocks in Anthropic's prefix order, each with its tokens."""
    defs = {t["name"]: t for t in body.get("tools", [])}
    out = []
    for t in body.get("tools", []):
        if not t.get("defer_loading"):
            out.append(("tool", t))
    out += [("system", {k: v for k, v in b.items() if k != "cache_control"}) for b in body.get("system", [])]
    for m in body["messages"]:
        for b in m["content"]:
            b = {k: v for k, v in b.items() if k != "cache_control"}  # a marker, not content
            if b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                refs = [r["tool_name"] for r in b["content"] if r.get("type") == "tool_reference"]
                if refs:  # expanded into the definitions where the result stands
                    b = {**b, "content": [defs[r] | {"defer_loading": False} for r in refs]}
            out.append((m["role"], b))
    return [(json.dumps(b, sort_keys=True), COUNT([json.dumps(b, separators=(",", ":"))])[0]) for _, b in out]


@dataclass
class Run:
    name: str
    prompt: int = 0  # tokens over every call
    shared: int = 0  # of which the previous call's body opened with the same blocks
    calls: int = 0
    misses: int = 0  # calls whose tools or system differ from the previous call's

    @property
    def share(self) -> float:
        return self.shared / self.prompt if self.prompt else 0.0

    @property
    def cost(self) -> float:
        """Input cost in base input tokens at Anthropic's cache prices: what is not read from
        the cache is written to it (1.25x, 5-minute cache), what is read costs 0.1x."""
        return 1.25 * (self.prompt - self.shared) + 0.1 * self.shared


def _reply(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    tool_calls = [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for cid, name, args in calls
    ]
    return {"role": "assistant", "content": None, "tool_calls": tool_calls}


def run(name: str, **kw: Any) -> Run:
    schemas = tools()
    conv = Conversation(
        system="You are the back-office agent of Acme. Use the tools; cite the record you answer from.",
        tools=schemas,
        model="m",
        window_lookup=lambda m: WINDOW,
        **kw,
    )
    out, prev = Run(name), None

    def send() -> None:
        nonlocal prev
        body = conv.prepare().anthropic(max_tokens=512)
        blocks = _blocks(body)
        out.prompt += sum(n for _, n in blocks)
        out.calls += 1
        if prev is not None:
            k = 0
            while k < min(len(prev), len(blocks)) and prev[k][0] == blocks[k][0]:
                out.shared += blocks[k][1]
                k += 1
            head = sum(1 for t in body.get("tools", []) if not t.get("defer_loading")) + len(body.get("system", []))
            out.misses += k < min(head, len(blocks))
        prev = blocks

    for turn in range(1, TURNS + 1):
        # a tool the deferred roster holds back (the roster's tail) on the search turns
        fn = schemas[-turn if turn in SEARCH_TURNS else turn % 8]["function"]
        conv.add_user(f"Turn {turn}: please {fn['name'].replace('_', ' ')} for record R-{turn}.")
        send()
        sent = {t["function"]["name"] if "function" in t else t["name"] for t in conv.tools}
        if fn["name"] not in sent:
            conv.record_response(_reply([(f"s{turn}", "tool_search", {"query": fn["name"]})]))
            conv.add_tool_result(f"s{turn}", conv.tool_search(fn["name"]), name="tool_search")
            send()
        conv.record_response(_reply([(f"c{turn}", fn["name"], {"id": f"R-{turn}"})]))
        conv.add_tool_result(f"c{turn}", f"R-{turn}: done, status ok, amount {turn * 17} EUR. " * 4)
        send()
        conv.record_response({"role": "assistant", "content": f"Done for R-{turn} [record R-{turn}]."})
    return out


def measure() -> list[Run]:
    limits = Limits(tools_fraction=FRACTION)
    return [
        run("all sent"),
        run("deferred, appended", limits=limits),
        run("deferred, anthropic", limits=limits, provider="anthropic"),
    ]


def table(runs: list[Run]) -> str:
    lines = [
        "| tools | calls | prompt tokens | shared with the previous call | prefix share "
        "| calls with a tools/system miss | input cost (base tokens, writes 1.25x, reads 0.1x) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r.name} | {r.calls} | {r.prompt:,} | {r.shared:,} | {r.share:.1%} | {r.misses} | {r.cost:,.0f} |"
        for r in runs
    ]
    return "\n".join(lines)


def test_deferred_loading_keeps_the_prefix_and_costs_less():
    every, appended, native = measure()
    assert every.misses == 0 and native.misses == 0
    assert appended.misses == len(SEARCH_TURNS)  # one miss per load, none after
    assert native.prompt < every.prompt / 2 and appended.prompt < every.prompt * 0.7
    assert native.share > appended.share
    assert every.prompt - every.shared > native.prompt - native.shared  # fewer uncached tokens
    assert native.cost < appended.cost < every.cost


if __name__ == "__main__":
    print(table(measure()))
