"""Run every session through every configuration and budget, one ``CallRecord`` per call.

Within a session the calls are made in turn order, so each call's prompt can be compared with
the previous call's (the prefix-cache figure). The seed layout builds a fresh window per call
from an engine whose history source reads the growing conversation (its context regenerated in
the system message, as the seed describes); the cache layout plays the session through a
``Conversation`` (``ctxsieve.eval.cache_layout``), the agent loop object a user runs, whose
prompt is append-only. Retrieval is memoised across configurations: every configuration sees
identical candidates.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxsieve import kernels
from ctxsieve.engine import ContextEngine, Window
from ctxsieve.engine.session import DEFAULT_MAX_PROMPT_TOKENS
from ctxsieve.errors import ConfigError
from ctxsieve.eval import metrics
from ctxsieve.eval.cache_layout import play
from ctxsieve.eval.configs import Depth, EvalConfig, make_engine, system_prompt
from ctxsieve.eval.corpus import Corpus
from ctxsieve.eval.okf_bundle import EVAL_TODAY, write_bundle
from ctxsieve.eval.records import CallRecord, Shown, item_tokens, make_record
from ctxsieve.eval.retrieve import DEFAULT_FUSION, build_retriever, chunk_corpus
from ctxsieve.eval.sessions import MODES, EvalScript, per_question, sessions
from ctxsieve.sources import OKFBundle

Progress = Callable[[int], None]


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
    fusion: str = DEFAULT_FUSION,
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
        build_retriever(corpus, retriever, cache_dir=cache_dir, progress=progress, fusion=fusion),
        bundle,
        sessions(corpus),
        per_question(corpus),
        bundle_dir or "",
        sizes,
        chunk_tokens=sum(chunk_sizes) / max(len(chunk_sizes), 1),
        depth=depth or Depth(),
        chunk_count=len(chunks),
    )


def record(
    config: EvalConfig,
    budget: int,
    script: EvalScript,
    turn: int,
    window: Window,
    previous: str | None,
    assets: EvalAssets,
    mode: str = "session",
) -> CallRecord:
    """One seed-layout call's figures: its window, and its rendered prompt against ``previous``
    (the session's previous prompt) for the prefix it shares."""
    prompt = window.to_text()
    shared, total = metrics.shared_prefix_tokens(previous, prompt)
    shown = Shown(
        items=item_tokens(window.items, window.trace),
        reused=[],
        tokens_used=window.tokens_used,
        framing_tokens=window.framing_tokens,
        trace=window.trace,
        prompt=prompt,
        prompt_tokens=total,
        shared_prefix_tokens=shared,
        stable_hash=window.stable_prefix_hash,
        messages=window.to_messages("openai"),
        events=list(window.trace.events),
    )
    return make_record(config, budget, script, turn, shown, assets.corpus, assets.doc_sizes, mode)


HISTORY_MODES = ("plain", "transcript")


def shown_context(window: Window) -> str:
    """The knowledge the call showed besides the stable block: the cache layout's transient
    context message (the same text in either layout), kept by transcript-mode sessions."""
    return dataclasses.replace(window, layout="cache").rendered.context


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
    """One session's calls (``mode`` labels them). The cache layout plays it through a
    ``Conversation`` (append-only prompt, pages shown once); the seed layout rebuilds its window
    each call from the history, which ``history_mode`` shapes. ``max_prompt_tokens`` is the
    cache layout's session ceiling, its conversation's input limit (``DEFAULT_MAX_PROMPT_TOKENS``
    when None)."""
    if history_mode not in HISTORY_MODES:
        raise ConfigError(f"history mode: must be plain or transcript, got {history_mode!r}")
    if config.layout == "cache":
        # the conversation holds the transcript: the engine's history source has nothing to propose
        engine = assets.engine(config, list, budget, scorer)
        ceiling = DEFAULT_MAX_PROMPT_TOKENS if max_prompt_tokens is None else max_prompt_tokens
        return play(engine, config, budget, session, assets.corpus, assets.doc_sizes, ceiling, mode)
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
