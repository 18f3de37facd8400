"""One ``CallRecord`` per model call of the eval: what the call showed, and its figures.

Both layouts end here: the seed layout with the ``Window`` it rebuilt for the call, the cache
layout with what its ``Conversation`` call sent (``ctxsieve.eval.cache_layout``). ``Shown`` is
what a call showed, whichever produced it; ``make_record`` turns it into the record's figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxsieve.eval import metrics
from ctxsieve.eval.configs import EvalConfig
from ctxsieve.eval.corpus import Corpus
from ctxsieve.eval.sessions import EvalScript


@dataclass
class CallRecord:
    config: str
    budget: int
    mode: str  # "session" (the corpus's sessions) or "question" (every question alone)
    session: str
    turn: int
    session_turns: int
    question: str  # question id
    qtype: str
    lang: str
    docs: list[str]  # corpus documents in the window, prompt order, first occurrence
    items: list[tuple[str | None, int]]  # (document id or None, tokens) per window item
    tokens_used: int  # what this call added (a session call's fresh context), framing included
    prompt_tokens: int
    candidate_tokens: int
    shared_prefix_tokens: int
    stable_hash: str
    recall: float | None
    precision: float | None
    distractor: bool | None
    superseded: bool
    noise: float
    reused_tokens: int = 0  # items an earlier turn of the session showed, in ``items`` at their size
    framing_tokens: int = 0  # of tokens_used: the framing of the messages the call's context adds
    # whether any candidate came from a superseded page: when none does, a superseded rate of 0
    # says nothing about the policy (it had nothing to turn away)
    offered_superseded: bool = False
    # a question nothing answers, with labelled look-alikes: whether the window holds one (the
    # page that would be answered from instead of saying no page answers); None otherwise
    lookalike: bool | None = None
    events: list[str] = field(default_factory=list)
    prompt: str = field(default="", repr=False)  # the rendered prompt; not written to reports
    messages: list[dict[str, Any]] = field(default_factory=list, repr=False)  # level 2 sends these

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("prompt", "messages")}
        out["items"] = [list(p) for p in self.items]
        return out


@dataclass(frozen=True)
class Shown:
    """What one call showed. ``items``: ``(document or None, tokens)`` of what the call added;
    ``reused``: the same for earlier-shown items its candidates matched (in the prompt already);
    ``tokens_used``: what the call added, ``framing_tokens`` of it the framing of its messages;
    ``trace``: the engine's trace of the call's candidates (None: the engine was not asked);
    ``prompt``: the request as text, with ``prompt_tokens`` and ``shared_prefix_tokens`` (its
    prefix shared with the previous call's request); ``prompt_docs``: every corpus document
    anywhere in the prompt (None: those of ``items``)."""

    items: list[tuple[str | None, int]]
    reused: list[tuple[str | None, int]]
    tokens_used: int
    framing_tokens: int
    trace: Any
    prompt: str
    prompt_tokens: int
    shared_prefix_tokens: int
    stable_hash: str
    messages: list[dict[str, Any]]
    events: list[str]
    prompt_docs: Sequence[str] | None = None


def doc_id(item: Any) -> str | None:
    """The corpus document an item came from: RAG chunks carry it, OKF concepts are named by
    it; instructions, the index and history come from no document."""
    if item.kind == "history" or item.pinned:
        return None
    if "doc_id" in item.meta:
        return str(item.meta["doc_id"])
    if item.source == "okf":
        return str(item.id)
    return None


def entry_doc(entry: Any) -> str | None:
    """A trace entry's document: an OKF concept is named by it, a RAG chunk is ``<doc id>#<chunk>``."""
    if entry.source == "okf":
        return str(entry.id)
    if entry.source == "rag":
        return str(entry.id).rsplit("#", 1)[0]
    return None


def item_tokens(items: Sequence[Any], trace: Any) -> list[tuple[str | None, int]]:
    """``(document, tokens)`` per item, at the cost the trace gave it."""
    tokens = {e.id: e.tokens for e in trace.entries if e.included}
    return [(doc_id(it), tokens.get(it.id, 0)) for it in items]


def make_record(
    config: EvalConfig,
    budget: int,
    script: EvalScript,
    turn: int,
    shown: Shown,
    corpus: Corpus,
    doc_sizes: Mapping[str, int],
    mode: str,
) -> CallRecord:
    """The figures of call ``turn`` of ``script``. What the call's candidates matched among the
    pages earlier turns showed counts as in the window (it is in the prompt), at its own size."""
    q = script.turns[turn - 1]
    items = shown.items + shown.reused
    docs = list(dict.fromkeys(d for d, _ in items if d is not None))
    entries = list(shown.trace.entries) if shown.trace is not None else []
    return CallRecord(
        config=config.name,
        budget=budget,
        mode=mode,
        session=script.id,
        turn=turn,
        session_turns=len(script.turns),
        question=q.id,
        qtype=q.type,
        lang=q.lang,
        docs=docs,
        items=items,
        tokens_used=shown.tokens_used,
        reused_tokens=sum(n for _, n in shown.reused),
        framing_tokens=shown.framing_tokens,
        prompt_tokens=shown.prompt_tokens,
        candidate_tokens=sum(e.tokens for e in entries),
        shared_prefix_tokens=shown.shared_prefix_tokens,
        stable_hash=shown.stable_hash,
        recall=metrics.recall_at_budget(docs, q.requirements),
        precision=metrics.precision_per_token(items, q.relevant, doc_sizes) if q.answerable else None,
        distractor=metrics.holds_any(docs, q.distractors) if q.distractors else None,
        superseded=metrics.holds_any(docs if shown.prompt_docs is None else shown.prompt_docs, corpus.superseded),
        noise=metrics.noise_share(items, corpus.noise),
        offered_superseded=any(entry_doc(e) in corpus.superseded for e in entries),
        lookalike=metrics.holds_any(docs, q.distractors) if not q.answerable and q.distractors else None,
        events=list(shown.events),
        prompt=shown.prompt,
        messages=shown.messages,
    )
