"""Session search: the dropped history of a session, searchable by the agent.

Whatever leaves the live conversation (compacted away, or cut from the window by admission) is
archived here one unit per record, with its position in the conversation, and ranked by the
store's BM25/full-text search. A hit returns the whole unit: a tool call always comes back
with its results. A unit keeps the audience of its messages (the most restrictive label wins,
``ctxsieve.audience``), and a search returns only units its ``reader`` may see (default None: an
anonymous reader, public units only), so history admission kept from a reader does not come
back to them through the tool.

>>> import tempfile, os
>>> from ctxsieve.stores import open_store
>>> history = SessionHistory(open_store(os.path.join(tempfile.mkdtemp(), "s.db")), "chat-42")
>>> history.archive([{"role": "user", "content": "the deploy key lives in vault"},
...                  {"role": "assistant", "content": "noted"}], start=0)
2
>>> [(h.position, h.messages[0]["content"]) for h in history.search("where is the deploy key?")]
[(0, 'the deploy key lives in vault')]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ctxsieve.audience import Audience, eligible, message_audience, parse_audience, parse_readers, restrict
from ctxsieve.loop.adapters import MessageAdapter, adapter_for
from ctxsieve.loop.transcript import render
from ctxsieve.loop.units import units
from ctxsieve.messages import Message, openai_chat
from ctxsieve.stores import Record, SearchFilter, open_store
from ctxsieve.stores._fields import check_identity

COLLECTION = "history"


@dataclass(frozen=True)
class HistoryHit:
    """One archived unit: messages ``position`` to ``end`` (exclusive) of the conversation."""

    position: int
    end: int
    messages: list[Any]
    text: str
    score: float


class SessionHistory:
    """Archive and search the dropped units of one session (``session_id``) in a store."""

    def __init__(
        self,
        store: Any = None,
        session_id: str = "default",
        *,
        adapter: MessageAdapter | str | None = None,
        max_result_chars: int = 4000,
        reader: Any = None,
    ):
        self.readers = parse_readers(reader, "reader")
        self.store = open_store() if store is None else store
        if not isinstance(session_id, str) or not session_id:
            raise ValueError(f"session_id: expected a non-empty str, got {session_id!r}")
        check_identity("session_id", session_id)  # stored exactly as the records' scope, or refused now
        self.session_id = session_id
        self.adapter = adapter
        self.max_result_chars = max_result_chars
        # record ids must be plain identifiers; session ids may be anything, so hash them
        self._prefix = "h" + hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:20]

    def archive(self, messages: Sequence[Any], start: int) -> int:
        """Store ``messages`` (which began at position ``start`` of the conversation) as units;
        returns how many units were stored. Archiving the same position again replaces it."""
        if isinstance(start, bool) or not isinstance(start, int) or start < 0:
            raise ValueError(f"start: expected an int >= 0, got {start!r}")
        if not messages:
            return 0
        a = adapter_for(messages, self.adapter)
        records = []
        for u in units(messages, a):
            if u.kind == "system":
                continue  # instructions are not history
            pos = start + u.start
            aud: Audience = None
            for m in u.messages:
                aud = restrict(aud, message_audience(m))
            # the unit's audience is stored apart from its messages: an SDK object's label would
            # otherwise be lost in its JSON text
            label = None if aud is None else sorted(aud)
            stored = [x for m in u.messages for x in _storable(m)]
            payload = json.dumps(
                {"end": start + u.end, "messages": stored, "audience": label}, ensure_ascii=False, default=str
            )
            records.append(
                Record(
                    id=f"{self._prefix}-{pos}",
                    text=render(a, u.messages),
                    scope=self.session_id,
                    position=pos,
                    payload=payload,
                )
            )
        self.store.put_records(COLLECTION, records)
        return len(records)

    def search(self, query: str, limit: int = 5) -> list[HistoryHit]:
        """The best-matching archived units of this session the reader may see, best first."""
        where = SearchFilter(scope=self.session_id)
        asked = limit
        while True:
            hits = self.store.search_records(COLLECTION, query, asked, where)
            out = []
            for h in hits:
                data = json.loads(h.record.payload)
                if not eligible(_unit_audience(data), self.readers):
                    continue
                out.append(HistoryHit(h.record.position, int(data["end"]), data["messages"], h.record.text, h.score))
            # units the reader may not see took places in the ranking: ask for more until there
            # are enough or the store has no more
            if len(out) >= limit or len(hits) < asked:
                return out[:limit]
            asked *= 4

    def count(self) -> int:
        """Archived units of this session (all readers')."""
        return int(self.store.count_records(COLLECTION, scope=self.session_id))

    def session_search(self, query: str, limit: int = 5) -> str:
        """Search the earlier part of this conversation that is no longer in your context.

        Args:
            query: words to look for (ranked by BM25; no special syntax).
            limit: how many passages to return (1-20).

        Returns the matching exchanges, best first, each with its position in the
        conversation (message numbers, 0-based), or a line starting with "error:".
        """
        if not isinstance(query, str) or not query.strip():
            return "error: query must be a non-empty string"
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 20:
            return f"error: limit must be an integer from 1 to 20, got {limit!r}"
        hits = self.search(query, limit)
        if not hits:
            return f"no earlier messages match {query!r} ({self.count()} archived exchanges searched)"
        blocks = []
        for h in hits:
            text = h.text
            if len(text) > self.max_result_chars:
                text = text[: self.max_result_chars] + f" [... {len(h.text) - self.max_result_chars} more chars]"
            blocks.append(f"[messages {h.position}-{h.end - 1}, score {h.score:.3g}]\n{text}")
        return "\n\n".join(blocks)

    def tools(self) -> list[Callable[..., str]]:
        """``[session_search]`` as a plain function an agent framework can register."""

        def session_search(query: str, limit: int = 5) -> str:
            return self.session_search(query, limit)

        session_search.__doc__ = SessionHistory.session_search.__doc__
        return [session_search]


def _storable(m: Any) -> list[Any]:
    # a Message is stored as the OpenAI Chat dicts it writes as (what a hit gives back)
    return openai_chat.write_one(m, "message", reasoning=True) if isinstance(m, Message) else [m]


def _unit_audience(data: Any) -> Audience:
    """A stored unit's audience; units archived before it was stored apart carry it only in
    their messages' own labels."""
    if "audience" in data:
        return parse_audience(data["audience"])
    aud: Audience = None
    for m in data.get("messages") or ():
        aud = restrict(aud, message_audience(m))
    return aud
