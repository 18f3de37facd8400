"""Retrieval hits as candidates.

``pipeline`` is any object with ``query(q, k)`` (async or not) returning hits. A hit may be an
object or a mapping; it needs a text (``text`` or ``content``), a ``score`` and a document id
(``doc_id``, ``document_id`` or ``id``); an optional ``chunk_id`` names the chunk. A hit whose
``metadata`` says ``deprecated`` or ``stale`` carries that signal.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from ctxsieve.errors import ContextError
from ctxsieve.types import ContextItem, Kind, Signals, Stability


def _field(hit: Any, *names: str) -> Any:
    for name in names:
        value = hit.get(name) if isinstance(hit, Mapping) else getattr(hit, name, None)
        if value is not None:
            return value
    return None


class RAGSource:
    """The top ``k`` hits of a retrieval pipeline; the item id is ``<doc id>#<chunk id or rank>``
    and the citation is the document id."""

    blocking = False

    def __init__(
        self,
        pipeline: Any,
        *,
        k: int = 20,
        name: str = "rag",
        kind: Kind = "knowledge",
        stability: Stability = "volatile",
    ):
        if not callable(getattr(pipeline, "query", None)):
            raise ContextError(f"RAGSource {name!r}: pipeline has no query(q, k) method")
        self.pipeline = pipeline
        self.k = k
        self.name = name
        self.kind: Kind = kind
        self.stability: Stability = stability

    async def candidates(self, query: str) -> list[ContextItem]:
        hits = self.pipeline.query(query, self.k)
        if inspect.isawaitable(hits):
            hits = await hits
        out = []
        for rank, hit in enumerate(hits):
            text = _field(hit, "text", "content")
            doc = _field(hit, "doc_id", "document_id", "id")
            if not isinstance(text, str) or doc is None:
                raise ContextError(f"hit {rank}: needs a text and a doc id, got {hit!r:.80}")
            chunk = _field(hit, "chunk_id")
            meta = _field(hit, "metadata") or {}
            signals = Signals(
                trust=meta.get("trust"),
                stale=bool(meta.get("stale", False)),
                deprecated=bool(meta.get("deprecated", False)),
                citation=str(doc),
            )
            out.append(
                ContextItem(
                    f"{doc}#{chunk if chunk is not None else rank}",
                    text,
                    self.name,
                    self.kind,
                    self.stability,
                    score=float(_field(hit, "score") or 0.0),
                    signals=signals,
                    meta={"doc_id": str(doc), **dict(meta)},
                )
            )
        return out
