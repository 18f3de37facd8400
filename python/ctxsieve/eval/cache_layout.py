"""The cache layout's calls: each eval script played through one ``Conversation``.

This is the object a user's agent loop runs on (docs/conversation.md), driven the way a loop
drives it: per question ``add_user`` and ``prepare()``, the scripted reply recorded with
``record_response``. The conversation adds the engine's context on each turn's call (pages an
earlier turn showed are not sent again), admits the call within the session ceiling (cutting
old turns behind a gap notice when it would not fit), and reports what the call's request
shares with the previous one. The record reads all of it from the ``Call`` and from
``conv.context.window`` (the engine's trace of the turn): the prompt and token figures are the
conversation's own estimates of what it sends, message framing included.
"""

from __future__ import annotations

from typing import Any

import xxhash

from ctxsieve.admission import Limits
from ctxsieve.conversation import Call, Conversation
from ctxsieve.engine import ContextEngine, Rendered
from ctxsieve.errors import ConfigError
from ctxsieve.eval.configs import EvalConfig
from ctxsieve.eval.corpus import Corpus
from ctxsieve.eval.records import CallRecord, Shown, doc_id, item_tokens, make_record
from ctxsieve.eval.sessions import EvalScript


def conversation(engine: ContextEngine, ceiling: int) -> Conversation:
    """The conversation of one script: no system text of its own (the eval's instructions are a
    pinned source, so they open the system prompt with the stable items), and the session
    ceiling as the whole input limit (no protocol overhead: the eval sends no tools, and the
    ceiling is what the prompt may hold). Its id is its own: a script's id (``q:<question>``)
    is not one a conversation takes, and the records carry the script's id anyway."""
    if ceiling <= engine.budget.total:
        raise ConfigError(
            f"max_prompt_tokens: must exceed the engine's per-call budget ({engine.budget.total}), got {ceiling}"
        )
    # the conversation counts with the engine's estimator (one token count)
    return Conversation(engine, limits=Limits(input_ceiling=ceiling, protocol_overhead=0))


def prompt_text(call: Call) -> str:
    """The request as one string in message order, framed as ``Window.to_text`` frames a
    prompt (``<|role|>`` and the content), so that both layouts' prompts read alike."""
    messages = call.openai()["messages"]
    history = messages[1:] if call.system else messages
    return Rendered("cache", "", call.system, history, "").text()


def play(
    engine: ContextEngine,
    config: EvalConfig,
    budget: int,
    script: EvalScript,
    corpus: Corpus,
    doc_sizes: dict[str, int],
    ceiling: int,
    mode: str,
) -> list[CallRecord]:
    """One record per question of ``script``, asked in turn order in one conversation."""
    conv = conversation(engine, ceiling)
    docs_by_turn: dict[int, list[str]] = {}
    out: list[CallRecord] = []
    for turn, q in enumerate(script.turns, start=1):
        conv.add_user(q.question)
        call = conv.prepare()
        shown = _shown(conv, call, turn, docs_by_turn)
        out.append(make_record(config, budget, script, turn, shown, corpus, doc_sizes, mode))
        conv.record_response({"role": "assistant", "content": script.reply(q)})
    return out


def _shown(conv: Conversation, call: Call, turn: int, docs_by_turn: dict[int, list[str]]) -> Shown:
    ctx = conv.context
    events: list[str] = []
    items: list[tuple[str | None, int]] = []
    reused: list[tuple[str | None, int]] = []
    tokens_used = framing = 0
    trace: Any = None
    if ctx is not None:
        window = ctx.window
        trace = window.trace
        events += window.trace.events
        # the context message may have been left out after selection (no room for it): then
        # only what went into the system prompt was shown
        sent = call.report.sections["memory"] > 0 or not ctx.added
        shown_items = [i for i in window.items if sent or i in ctx.stable]
        items = item_tokens(shown_items, trace)
        framing = window.framing_tokens if sent else 0
        tokens_used = window.tokens_used if sent else sum(n for _, n in items)
        matched = [item for item, _ in ctx.matched]
        sizes = conv.estimator.count([item.content for item in matched]) if matched else []
        reused = [(doc_id(item), n) for item, n in zip(matched, sizes)]
        stable = [doc_id(i) for i in shown_items if i in ctx.stable]
        docs_by_turn[0] = docs_by_turn.get(0, []) + [d for d in stable if d is not None]
        docs_by_turn[conv.turn] = [d for i, (d, _) in zip(shown_items, items) if d is not None and i not in ctx.stable]
    events += [
        f"lifecycle.window.drop:{c.omitted_turns}:{c.omitted_tokens}:{c.retained_tokens}"
        for c in conv.cuts
        if c.call_index == call.call_index
    ]
    events += [f"note:{n}" for n in call.report.notes]
    t = conv.transcript
    first = t[t.start].turn if t.start < len(t) else conv.turn
    # every corpus document anywhere in the prompt: the system prompt's (under 0: the stable
    # items of the first call) and the retained turns' (a gap notice carries pinned items only,
    # which come from no document)
    in_prompt = [d for n, docs in docs_by_turn.items() if n == 0 or n >= first for d in docs]
    return Shown(
        items=items,
        reused=reused,
        tokens_used=tokens_used,
        framing_tokens=framing,
        trace=trace,
        prompt=prompt_text(call),
        prompt_tokens=call.prompt_tokens,
        shared_prefix_tokens=call.shared_prefix_tokens,
        stable_hash=xxhash.xxh3_64_hexdigest(call.system.encode("utf-8", "surrogatepass")),
        messages=call.openai()["messages"],
        events=events,
        prompt_docs=in_prompt,
    )
