"""Memories as a ctxsieve source: recalled facts join the one budget with every other source.

Each matching memory becomes a ``ContextItem`` of kind ``memory`` with the store's relevance as
its raw score (the engine calibrates it against the other sources), the memory's tags and
namespace in ``meta``, and its audience label, so admission can keep a private memory away from
anyone it is not meant for. It proposes only the memories its toolkit's readers may read (a
default toolkit: public ones), so a build for a signed-in reader needs a toolkit for that
reader. Store I/O makes it a blocking source: the engine runs it on a worker thread under its
timeout.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ctxsieve.types import ContextItem


# What the source reads of a memory and of its toolkit (``loop.memory``'s ``Memory`` and
# ``MemoryToolkit``), as protocols: the toolkit builds this source in ``source()``, so the
# source does not import the toolkit back (no import cycle), and mypy still checks the two.
class FoundMemory(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def audience(self) -> str: ...
    @property
    def namespace(self) -> str: ...
    @property
    def created(self) -> float: ...
    @property
    def score(self) -> float: ...


class MemorySearch(Protocol):
    def search(self, query: str, limit: int = ...) -> Iterable[FoundMemory]: ...


class MemorySource:
    """Propose the ``limit`` memories that best match the query.

    >>> import tempfile, os
    >>> from ctxsieve.loop.memory import MemoryToolkit
    >>> from ctxsieve.stores import open_store
    >>> mem = MemoryToolkit(open_store(os.path.join(tempfile.mkdtemp(), "m.db")))
    >>> _ = mem.add("Deploys happen on Tuesdays", tags=["ops"])
    >>> [(i.kind, i.content) for i in mem.source().candidates("when do deploys happen")]
    [('memory', 'Deploys happen on Tuesdays')]
    """

    blocking = True

    def __init__(self, toolkit: MemorySearch, *, name: str = "memory", limit: int = 10):
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit: expected an int >= 1, got {limit!r}")
        self.toolkit = toolkit
        self.name = name
        self.limit = limit

    def candidates(self, query: str) -> list[ContextItem]:
        return [
            ContextItem(
                m.id,
                m.text,
                source=self.name,
                kind="memory",
                stability="volatile",
                score=m.score,
                audience=m.audience or None,
                meta={"tags": list(m.tags), "namespace": m.namespace, "created": m.created},
            )
            for m in self.toolkit.search(query, self.limit)
        ]
