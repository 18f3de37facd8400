"""Text helpers shared by the backends: line-aligned chunking, query terms, record rows."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ctxsieve import kernels
from ctxsieve.kernels.reference import clean  # lone surrogates -> U+FFFD (no UTF-8 store takes them)
from ctxsieve.stores.protocols import BlobChunk, Record, SearchFilter, check_collection

# 1 Mi chars per chunk: large enough that a 10 MB grep is ten kernel calls, small enough that a
# read of a few lines fetches one modest row.
CHUNK_CHARS = 1 << 20
# A query with more distinct words than this is cut: ranking cost grows with the terms and the
# tail of a pasted paragraph adds noise, not recall.
MAX_QUERY_TERMS = 32

# How many postings one search may score. Measured on SQLite at about 0.4 µs a posting, so
# 15k keeps a search near 6 ms whatever the query; Redis reads the same postings over the wire.
POSTING_BUDGET = 15_000


def iter_chunks(pieces: Iterable[str], chunk_chars: int = CHUNK_CHARS) -> Iterator[BlobChunk]:
    """Cut a stream of text pieces into chunks of at most ``chunk_chars`` that end after a
    newline (a line longer than a chunk is split across several).

    Only the unfinished tail of the previous piece is ever copied, so one huge piece is sliced
    in place and memory stays at one chunk beyond the caller's own string.

    >>> [(c.first_line, c.text) for c in iter_chunks(["ab\\ncd", "e\\nf"], chunk_chars=4)]
    [(0, 'ab\\n'), (1, 'cde\\n'), (2, 'f')]
    """
    if chunk_chars < 1:
        raise ValueError(f"chunk_chars: must be >= 1, got {chunk_chars}")
    seq = line = char = 0
    buf = ""
    pos = 0
    for piece in pieces:
        if not isinstance(piece, str):
            raise TypeError(f"blob pieces must be str, got {type(piece).__name__}")
        if pos < len(buf):
            buf = buf[pos:] + piece
        else:
            buf = piece
        pos = 0
        while len(buf) - pos >= chunk_chars:
            end = pos + chunk_chars
            nl = buf.rfind("\n", pos, end)
            cut = nl + 1 if nl >= 0 else end
            text = clean(buf[pos:cut])
            yield BlobChunk(seq, line, char, text)
            seq += 1
            line += text.count("\n")
            char += len(text)
            pos = cut
    if pos < len(buf):
        yield BlobChunk(seq, line, char, clean(buf[pos:]))


def count_lines(chars: int, newlines: int, ends_with_newline: bool) -> int:
    """Lines of a text: its newlines, plus one for an unterminated last line."""
    if chars == 0:
        return 0
    return newlines + (0 if ends_with_newline else 1)


def query_terms(query: str) -> list[str]:
    """The distinct words of ``query`` in order, at most ``MAX_QUERY_TERMS``.

    >>> query_terms("Refund refund POLICY?")
    ['refund', 'policy']
    """
    return list(dict.fromkeys(kernels.words(query)))[:MAX_QUERY_TERMS]


def prune_terms(dfs: Iterable[tuple[str, int]], budget: int) -> list[tuple[str, int]]:
    """The ``(term, df)`` pairs to score: rarest first, while their postings fit ``budget``
    (the rarest is always kept). Terms with no postings are dropped.

    A term left out is one found in so many records that its BM25 weight is small and its
    postings would dominate the cost; like stopword removal, it changes rankings only among
    records that match nothing rarer.

    >>> prune_terms([("the", 90_000), ("refund", 40), ("policy", 900), ("zzz", 0)], 10_000)
    [('refund', 40), ('policy', 900)]
    >>> prune_terms([("the", 90_000)], 10_000)
    [('the', 90000)]
    """
    out: list[tuple[str, int]] = []
    spent = 0
    for term, df in sorted(((t, int(d)) for t, d in dfs if d and int(d) > 0), key=lambda td: (td[1], td[0])):
        if out and spent + df > budget:
            break
        out.append((term, df))
        spent += df
    return out


def clean_record(record: Record) -> Record:
    """``record`` with ``clean`` applied to every text field, so any str a caller holds can be
    stored (the same replacement blobs get)."""

    def c(value: object) -> object:
        return clean(value) if isinstance(value, str) else value

    return Record(
        record.id,
        c(record.text),  # type: ignore[arg-type]
        c(record.scope),  # type: ignore[arg-type]
        record.position,
        tuple(c(t) for t in record.tags),  # type: ignore[misc]
        c(record.audience),  # type: ignore[arg-type]
        c(record.payload),  # type: ignore[arg-type]
        record.created,
    )


def indexed_text(record: Record) -> str:
    """What search sees of a record: its text, then its tags."""
    return record.text if not record.tags else record.text + "\n" + " ".join(record.tags)


def check_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"limit: expected an int >= 0, got {limit!r}")
    return limit


@dataclass(frozen=True)
class SearchRequest:
    """A search every backend runs the same way: checked limit, query terms, cleaned filter."""

    limit: int
    terms: list[str]
    scope: str | None
    audiences: list[str] | None  # sorted; never empty (an empty set matches nothing)


def search_request(collection: str, query: str, limit: object, where: SearchFilter | None) -> SearchRequest | None:
    """The checked arguments of ``search_records``; ``None`` when nothing can match (no query
    words, ``limit`` 0, or an empty audience set), so the backend returns ``[]`` at once.

    >>> search_request("memory", "Refund policy", 5, SearchFilter(audiences=frozenset({"b", "a"})))
    SearchRequest(limit=5, terms=['refund', 'policy'], scope=None, audiences=['a', 'b'])
    """
    check_collection(collection)
    n = check_limit(limit)
    terms = query_terms(query)
    scope = clean(where.scope) if where is not None and where.scope is not None else None
    audiences = sorted(map(clean, where.audiences)) if where is not None and where.audiences is not None else None
    if not terms or n == 0 or audiences == []:
        return None
    return SearchRequest(n, terms, scope, audiences)


def tags_to_json(tags: tuple[str, ...]) -> str:
    return json.dumps(list(tags), ensure_ascii=False)


def tags_from_json(raw: str | None) -> tuple[str, ...]:
    return tuple(json.loads(raw)) if raw else ()
