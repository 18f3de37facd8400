"""The memory toolkit: durable memory across sessions and projects.

``memory_add``, ``memory_search`` and ``memory_remove`` are tools an agent calls; the same
memories are also a ctxsieve source (``MemoryToolkit.source()``), so recalled facts compete for
the one budget with everything else. ``namespace`` separates projects (``None`` searches all of
them and writes to ``"default"``; any string, ``""`` included, is used as it is).

A memory's ``audience`` is one label (who may see it) or a public marker (``""``, ``"public"``,
``"*"``: anyone). ``audiences`` names the readers the toolkit serves, with the rules of
``ctxsieve.audience`` (those of the engine, admission and ``SessionHistory``): the default
``None`` is an anonymous reader, who finds public memories only; ``audiences="alice"`` also finds
alice's; a group ``{"alice", "bob"}`` finds only what every one of them may read, so public
memories (a memory names one reader). The filter runs in the store's query, before any ranking
or budgeting. A toolkit writes, and removes, only memories its readers may read back, so an
agent cannot probe or change another reader's memories.

A memory's id is derived from its namespace, audience and text, so adding the same text again
(an agent rerun, two processes at once) returns the memory already stored instead of a copy;
new tags are added to it.

>>> import tempfile, os
>>> from ctxsieve.stores import open_store
>>> mem = MemoryToolkit(open_store(os.path.join(tempfile.mkdtemp(), "m.db")), namespace="shop")
>>> m = mem.add("The customer prefers email over phone", tags=["preference"])
>>> [x.text for x in mem.search("how does the customer like to be contacted? email")]
['The customer prefers email over phone']
>>> mem.add("The customer prefers email over phone").id == m.id
True
>>> mem.remove(m.id), mem.search("email")
(True, [])
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ctxsieve.audience import PUBLIC_MARKERS, Readers, eligible, parse_audience, parse_readers
from ctxsieve.loop.memory_source import MemorySource
from ctxsieve.stores import Record, SearchFilter, open_store

COLLECTION = "memory"
_MEMORY_ID = re.compile(r"mem_[0-9a-f]{24}")


@dataclass(frozen=True)
class Memory:
    id: str
    text: str
    tags: tuple[str, ...]
    audience: str
    namespace: str
    created: float
    score: float = 0.0


def _memory(record: Record, score: float = 0.0) -> Memory:
    return Memory(record.id, record.text, record.tags, record.audience, record.scope, record.created, score)


def memory_id(namespace: str, audience: str, text: str) -> str:
    """The id of the memory ``text`` for ``audience`` in ``namespace``: the same three give the
    same id (96 bits of SHA-256 over an unambiguous JSON encoding of them)."""
    key = json.dumps([namespace, audience, text], ensure_ascii=True)  # \\u escapes: lone surrogates encode too
    return "mem_" + hashlib.sha256(key.encode("ascii")).hexdigest()[:24]


class MemoryToolkit:
    """Add, search and remove memories in ``store`` (default: the embedded SQLite store)."""

    def __init__(
        self,
        store: Any = None,
        *,
        namespace: str | None = "default",
        audiences: str | Iterable[str] | None = None,
        max_chars: int = 8000,
    ):
        if namespace is not None and not isinstance(namespace, str):
            raise TypeError(f"namespace: expected a str or None, got {type(namespace).__name__}")
        self.store = open_store() if store is None else store
        self.namespace = namespace
        # the readers of every call (None: anonymous); a str is one reader, never its characters
        self.audiences: Readers = parse_readers(audiences, "audiences")
        self.max_chars = max_chars

    def _filter(self) -> SearchFilter:
        # A memory names one label, so by ctxsieve.audience's rule it reaches these readers when
        # it is public or when they are that label's one reader: the labels to match in the query.
        labels = PUBLIC_MARKERS
        if self.audiences is not None and len(self.audiences) == 1:
            labels = labels | self.audiences
        return SearchFilter(scope=self.namespace, audiences=labels)

    def _readable(self, audience: str) -> bool:
        return eligible(parse_audience(audience), self.audiences)

    def add(self, text: str, tags: Iterable[str] = (), audience: str = "") -> Memory:
        """Store a memory and return it; the same text for the same audience in the same
        namespace returns the memory already stored (with any new tags added to it)."""
        return self._add(text, tags, audience)[0]

    def _add(self, text: str, tags: Iterable[str], audience: str) -> tuple[Memory, bool]:
        """``(memory, True)`` when it was stored already."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("text: a memory needs non-empty text")
        if len(text) > self.max_chars:
            raise ValueError(f"text: {len(text)} chars is over the {self.max_chars}-char limit for one memory")
        tag_list = [tags] if isinstance(tags, str) else list(tags or ())
        if not all(isinstance(t, str) for t in tag_list):
            raise TypeError("tags: expected a list of strings")
        if not isinstance(audience, str):
            raise TypeError(f"audience: expected a str, got {type(audience).__name__}")
        if not self._readable(audience):
            # writing it would also tell the agent whether that reader already has it (the
            # "remembered already" reply) and let it change their tags
            who = "an anonymous reader" if self.audiences is None else f"readers {sorted(self.audiences)}"
            raise ValueError(
                f"audience {audience!r}: this toolkit serves {who} and writes only memories they may read"
                " (public ones, or their one reader's)"
            )
        # every public marker is the same audience, so the same public memory has one id
        audience = "" if parse_audience(audience) is None else audience
        text = text.strip()
        scope = "default" if self.namespace is None else self.namespace
        clean_tags = tuple(dict.fromkeys(t.strip() for t in tag_list if t.strip()))
        rec_id = memory_id(scope, audience, text)
        old = self.store.get_record(COLLECTION, rec_id)
        if old is not None:
            merged = old.tags + tuple(t for t in clean_tags if t not in old.tags)
            if merged != old.tags:  # the first version's time is kept: it is when this was learnt
                old = Record(old.id, old.text, old.scope, old.position, merged, old.audience, old.payload, old.created)
                self.store.put_records(COLLECTION, [old])
            return _memory(old), True
        rec = Record(id=rec_id, text=text, scope=scope, tags=clean_tags, audience=audience, created=time.time())
        self.store.put_records(COLLECTION, [rec])
        return _memory(rec), False

    def search(self, query: str, limit: int = 5) -> list[Memory]:
        hits = self.store.search_records(COLLECTION, query, limit, self._filter())
        return [_memory(h.record, h.score) for h in hits]

    def get(self, memory_id: str) -> Memory | None:
        if not isinstance(memory_id, str) or not _MEMORY_ID.fullmatch(memory_id):
            return None
        rec = self.store.get_record(COLLECTION, memory_id)
        if rec is None or not self._visible(rec):
            return None
        return _memory(rec)

    def _visible(self, rec: Record) -> bool:
        if self.namespace is not None and rec.scope != self.namespace:
            return False
        return self._readable(rec.audience)

    def remove(self, memory_id: str) -> bool:
        """Remove a memory this toolkit can see; False when there is none."""
        if self.get(memory_id) is None:
            return False
        return bool(self.store.delete_record(COLLECTION, memory_id))

    # -- the agent's tools ------------------------------------------------------------------

    def memory_add(self, text: str, tags: list[str] | None = None, audience: str = "") -> str:
        """Remember a fact, preference or decision for later sessions.

        Args:
            text: the memory, self-contained (it will be read without this conversation).
            tags: optional labels, searched together with the text.
            audience: who may see it ("" for anyone, or the label of the user you serve).

        Returns the memory's id (the one it already had when it was remembered before), or a
        line starting with "error:".
        """
        try:
            m, known = self._add(text, tags or (), audience)
        except (TypeError, ValueError) as exc:
            return f"error: {exc}"
        return f"remembered as {m.id}" + (" (it was remembered already)" if known else "")

    def memory_search(self, query: str, limit: int = 5) -> str:
        """Search durable memory (facts from earlier sessions and projects).

        Args:
            query: words to look for (ranked by relevance; no special syntax).
            limit: how many memories to return (1-50).

        Returns one memory per line as "id [tags]: text", best first, or a line starting with
        "error:".
        """
        if not isinstance(query, str) or not query.strip():
            return "error: query must be a non-empty string"
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 50:
            return f"error: limit must be an integer from 1 to 50, got {limit!r}"
        found = self.search(query, limit)
        if not found:
            return f"no memory matches {query!r}"
        return "\n".join(f"{m.id} [{', '.join(m.tags)}]: {m.text}" for m in found)

    def memory_remove(self, id: str) -> str:
        """Forget a memory that is wrong or no longer true.

        Args:
            id: the memory's id, as memory_search or memory_add gave it (mem_ + 24 hex digits).

        Returns a confirmation, or a line starting with "error:".
        """
        if not isinstance(id, str) or not _MEMORY_ID.fullmatch(id):
            return f"error: invalid memory id {id!r:.80}: ids look like mem_ followed by 24 hex digits"
        if not self.remove(id):
            return f"error: no memory with id {id}"
        return f"removed {id}"

    def tools(self) -> list[Callable[..., str]]:
        """``[memory_add, memory_search, memory_remove]`` as plain functions to register."""

        def memory_add(text: str, tags: list[str] | None = None, audience: str = "") -> str:
            return self.memory_add(text, tags, audience)

        def memory_search(query: str, limit: int = 5) -> str:
            return self.memory_search(query, limit)

        def memory_remove(id: str) -> str:
            return self.memory_remove(id)

        memory_add.__doc__ = MemoryToolkit.memory_add.__doc__
        memory_search.__doc__ = MemoryToolkit.memory_search.__doc__
        memory_remove.__doc__ = MemoryToolkit.memory_remove.__doc__
        return [memory_add, memory_search, memory_remove]

    def source(self, *, name: str = "memory", limit: int = 10) -> MemorySource:
        """A ctxsieve source proposing the memories that match each query."""
        return MemorySource(self, name=name, limit=limit)
