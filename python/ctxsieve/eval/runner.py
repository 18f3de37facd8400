"""Run every session through every configuration and budget, one ``CallRecord`` per call.

Within a session the calls are made in turn order, so each call's rendered prompt can be
compared with the previous call's (the prefix-cache figure). The seed layout builds a fresh
window per call from an engine whose history source reads the growing conversation (its context
regenerated in the system message, as the seed describes); the cache layout runs the session as
a ``ContextSession``, the append-only prompt the engine offers for multi-turn use. Retrieval is
memoised across configurations: every configuration sees identical candidates.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxsieve import kernels
from ctxsieve.engine import ContextEngine
from ctxsieve.engine.session_window import SessionWindow
from ctxsieve.engine.window import Window
from ctxsieve.errors import ConfigError
from ctxsieve.eval import metrics
from ctxsieve.eval.configs import Depth, EvalConfig, make_engine, system_prompt
from ctxsieve.eval.corpus import Corpus
from ctxsieve.eval.okf_bundle import EVAL_TODAY, write_bundle
from ctxsieve.eval.retrieve import build_retriever, chunk_corpus
from ctxsieve.eval.sessions import MODES, EvalScript, per_question, sessions
from ctxsieve.sources import OKFBundle
from ctxsieve.stages.render import render

Progress = Callable[[int], None]


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
    tokens_used: int  # what this call added (a session call's fresh context)
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
    # whether any candidate came from a superseded page: when none does, a superseded rate of 0
    # says nothing about the policy (it had nothing to turn away)
    offered_superseded: bool = False
    events: list[str] = field(default_factory=list)
    prompt: str = field(default="", repr=False)  # the rendered prompt; not written to reports
    messages: list[dict[str, Any]] = field(default_factory=list, repr=False)  # level 2 sends these

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("prompt", "messages")}
        out["items"] = [list(p) for p in self.items]
        return out


@dataclass
class EvalAssets:
    corpus: Corpus
    retriever: Any
    bundle: OKFBundle
    sessions: list[EvalScript]
    questions: list[EvalScript] = field(default_factory=list)  # per-question mode: one turn each
    bundle_dir: str = ""
    doc_sizes: dict[str, int] = field(default_factory=dict)  # tokens of each document's chunks
    chunk_tokens: float = 1.0  # mean estimated tokens of a chunk, for the candidate depth
    depth: Depth = field(default_factory=Depth)
    chunk_count: int = 0  # chunks in the index: no retriever can propose more

    def engine_depth(self, budget: int) -> tuple[int, int]:
        """Chunks and concepts proposed per call at ``budget``, at most what the corpus holds (so
        that ``environment.depth`` says what was proposed, not 500 of a 90-chunk corpus)."""
        pages = sum(self.doc_sizes.values()) / max(len(self.doc_sizes), 1)
        rag, okf = self.depth.resolve(budget, self.chunk_tokens, pages)
        if self.chunk_count:
            rag = min(rag, self.chunk_count)
        return rag, min(okf, max(len(self.corpus.documents), 1))

    def engine(self, config: EvalConfig, messages: Any, budget: int, scorer: Any) -> ContextEngine:
        return make_engine(
            config,
            self.retriever,
            self.bundle,
            messages,
            budget,
            scorer,
            instructions=system_prompt(self.corpus.info),
            depth=self.engine_depth(budget),
        )


def prepare(
    corpus: Corpus,
    retriever: str = "bm25",
    bundle_dir: str | None = None,
    depth: Depth | None = None,
    progress: Callable[[int, int], None] | None = None,
    cache_dir: str | None = None,
) -> EvalAssets:
    """Chunk and index the corpus and write its OKF bundle (to a temporary directory unless
    ``bundle_dir`` is given; the bundle is read fully into memory, so the directory may go)."""
    if bundle_dir is None:
        with tempfile.TemporaryDirectory(prefix="ctxsieve-okf-") as tmp:
            bundle = OKFBundle(write_bundle(corpus, tmp), today=EVAL_TODAY)
    else:
        bundle = OKFBundle(write_bundle(corpus, bundle_dir), today=EVAL_TODAY)
    sizes: dict[str, int] = {}
    chunks = chunk_corpus(corpus)
    chunk_sizes = kernels.estimate_tokens([c.text for c in chunks])
    for c, n in zip(chunks, chunk_sizes):
        sizes[c.doc_id] = sizes.get(c.doc_id, 0) + n
    return EvalAssets(
        corpus,
        build_retriever(corpus, retriever, cache_dir=cache_dir, progress=progress),
        bundle,
        sessions(corpus),
        per_question(corpus),
        bundle_dir or "",
        sizes,
        chunk_tokens=sum(chunk_sizes) / max(len(chunk_sizes), 1),
        depth=depth or Depth(),
        chunk_count=len(chunks),
    )


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


def _entry_doc(entry: Any) -> str | None:
    # a trace entry's document: an OKF concept is named by it, a RAG chunk is "<doc id>#<chunk>"
    if entry.source == "okf":
        return str(entry.id)
    if entry.source == "rag":
        return str(entry.id).rsplit("#", 1)[0]
    return None


def record(
    config: EvalConfig,
    budget: int,
    session: EvalScript,
    turn: int,
    window: Window | SessionWindow,
    previous: str | None,
    assets: EvalAssets,
    prompt_docs: Sequence[str] | None = None,
    mode: str = "session",
) -> CallRecord:
    """One call's figures. For a session call, what its candidates matched among the pages
    earlier turns showed counts as in the window (it is in the prompt), at its own size; and
    ``prompt_docs`` (every corpus document the transcript holds) is what the superseded rate
    checks, so a superseded page anywhere in the prompt counts."""
    q = session.turns[turn - 1]
    tokens = {e.id: e.tokens for e in window.trace.entries if e.included}
    items = [(doc_id(it), tokens.get(it.id, 0)) for it in window.items]
    reused: list[tuple[str | None, int]] = []
    if isinstance(window, SessionWindow):
        shown = [item for item, _ in window.shown]
        sizes = kernels.estimate_tokens([item.content for item in shown])
        reused = [(doc_id(item), n) for item, n in zip(shown, sizes)]
    items += reused
    docs = list(dict.fromkeys(d for d, _ in items if d is not None))
    prompt = window.to_text()
    shared, total = metrics.shared_prefix_tokens(previous, prompt)
    answerable = q.answerable
    return CallRecord(
        config=config.name,
        budget=budget,
        mode=mode,
        session=session.id,
        turn=turn,
        session_turns=len(session.turns),
        question=q.id,
        qtype=q.type,
        lang=q.lang,
        docs=docs,
        items=items,
        tokens_used=window.tokens_used,
        reused_tokens=sum(n for _, n in reused),
        prompt_tokens=total,
        candidate_tokens=sum(e.tokens for e in window.trace.entries),
        shared_prefix_tokens=shared,
        stable_hash=window.stable_prefix_hash,
        recall=metrics.recall_at_budget(docs, q.relevant),
        precision=metrics.precision_per_token(items, q.relevant, assets.doc_sizes) if answerable else None,
        distractor=metrics.holds_any(docs, q.distractors) if q.distractors else None,
        superseded=metrics.holds_any(docs if prompt_docs is None else prompt_docs, assets.corpus.superseded),
        noise=metrics.noise_share(items, assets.corpus.noise),
        offered_superseded=any(_entry_doc(e) in assets.corpus.superseded for e in window.trace.entries),
        events=list(window.trace.events),
        prompt=prompt,
        messages=window.to_messages("openai"),
    )


HISTORY_MODES = ("plain", "transcript")


def shown_context(window: Window) -> str:
    """The knowledge the call showed besides the stable block: the cache layout's transient
    context message (the same text in either layout), kept by transcript-mode sessions."""
    return render(window.items, window.query, "cache").context


def run_session(
    config: EvalConfig,
    budget: int,
    session: EvalScript,
    assets: EvalAssets,
    scorer: Any = None,
    history_mode: str = "plain",
    max_prompt_tokens: int | None = None,
    mode: str = "session",
) -> list[CallRecord]:
    """One session's calls (``mode`` labels them). The cache layout runs as a ``ContextSession`` (append-only prompt,
    pages shown once); the seed layout rebuilds its window each call from the history, which
    ``history_mode`` shapes. ``max_prompt_tokens`` is the session's ceiling (the library's
    default when None)."""
    if history_mode not in HISTORY_MODES:
        raise ConfigError(f"history mode: must be plain or transcript, got {history_mode!r}")
    if config.layout == "cache":
        return _run_context_session(config, budget, session, assets, scorer, max_prompt_tokens, mode)
    history: list[dict[str, Any]] = []
    engine = assets.engine(config, lambda: history, budget, scorer)
    out: list[CallRecord] = []
    previous: str | None = None
    contexts: dict[str, str] = {}
    for turn, q in enumerate(session.turns, start=1):
        history[:] = session.history(turn, contexts=contexts)
        window = engine.build_sync(q.question)
        if history_mode == "transcript":
            contexts[q.id] = shown_context(window)
        rec = record(config, budget, session, turn, window, previous, assets, mode=mode)
        previous = rec.prompt
        out.append(rec)
    return out


def _run_context_session(
    config: EvalConfig,
    budget: int,
    session: EvalScript,
    assets: EvalAssets,
    scorer: Any,
    max_prompt_tokens: int | None,
    mode: str,
) -> list[CallRecord]:
    # the session is the conversation: its history source has nothing to propose
    engine = assets.engine(config, list, budget, scorer)
    conversation = (
        engine.session() if max_prompt_tokens is None else engine.session(max_prompt_tokens=max_prompt_tokens)
    )
    out: list[CallRecord] = []
    previous: str | None = None
    stable_docs: list[str] = []
    docs_by_turn: dict[int, list[str]] = {}
    for turn, q in enumerate(session.turns, start=1):
        sw = conversation.build_sync(q.question)
        added = [d for d in map(doc_id, sw.items) if d is not None]
        if turn == 1:
            stable_docs = [d for it in sw.items if it.stability == "stable" and (d := doc_id(it)) is not None]
        docs_by_turn[sw.turn] = added
        in_prompt = stable_docs + [d for t in sw.turns for d in docs_by_turn.get(t.number, ())]
        rec = record(config, budget, session, turn, sw, previous, assets, prompt_docs=in_prompt, mode=mode)
        previous = rec.prompt
        out.append(rec)
        conversation.record_reply(session.reply(q))
    return out


def _groups(assets: EvalAssets, modes: Sequence[str]) -> list[tuple[str, list[EvalScript]]]:
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise ConfigError(f"eval modes: must be session and/or question, got {list(modes)!r}")
    return [(m, assets.sessions if m == "session" else assets.questions) for m in modes]


def total_calls(
    assets: EvalAssets, configs: Sequence[EvalConfig], budgets: Sequence[int], modes: Sequence[str] = ("session",)
) -> int:
    calls = sum(len(s.turns) for _, group in _groups(assets, modes) for s in group)
    return len(configs) * len(budgets) * calls


def run(
    assets: EvalAssets,
    configs: Sequence[EvalConfig],
    budgets: Sequence[int],
    *,
    scorer: Any = None,
    progress: Progress | None = None,
    history_mode: str = "plain",
    max_prompt_tokens: int | None = None,
    modes: Sequence[str] = ("session",),
) -> list[CallRecord]:
    """Every mode x configuration x budget x session; ``progress(n)`` is told of each finished
    session. Mode ``session`` runs the corpus's sessions, ``question`` every question alone."""
    records: list[CallRecord] = []
    for mode, group in _groups(assets, modes):
        for config in configs:
            for budget in budgets:
                for session in group:
                    records += run_session(
                        config, budget, session, assets, scorer, history_mode, max_prompt_tokens, mode
                    )
                    if progress is not None:
                        progress(len(session.turns))
    return records


def environment() -> dict[str, Any]:
    """What a reader needs to reproduce a table: date, kernel backend."""
    return {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "backend": kernels.backend()}
