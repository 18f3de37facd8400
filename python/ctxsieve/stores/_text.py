"""Text helpers shared by the backends: line-aligned chunking, query terms, record rows."""

from __future__ import annotations

import json
import re
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

# The longest identity (scope or audience) a store takes, in UTF-8 bytes of its stored form:
# PostgreSQL indexes scopes in a btree, whose entries must stay under 2704 bytes with the
# collection and position, and every backend refuses alike rather than only one failing.
MAX_IDENTITY_BYTES = 1024

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


def indexed_text(record: Record) -> str:
    """What search sees of a record: its text, then its tags."""
    return record.text if not record.tags else record.text + "\n" + " ".join(record.tags)


def check_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"limit: expected an int >= 0, got {limit!r}")
    return limit


@dataclass(frozen=True)
class SearchRequest:
    """A search every backend runs the same way: checked limit, query terms, checked filter."""

    limit: int
    terms: list[str]
    scope: str | None
    audiences: list[str] | None  # sorted; never empty (an empty set matches nothing)

    def matches(self, record: Record) -> bool:
        """Whether ``record`` passes the filter, compared exactly (a backend that filters on
        hashes checks its hits with this)."""
        if self.scope is not None and record.scope != self.scope:
            return False
        return self.audiences is None or record.audience in self.audiences


def search_request(collection: str, query: str, limit: object, where: SearchFilter | None) -> SearchRequest | None:
    """The checked arguments of ``search_records``; ``None`` when nothing can match (no query
    words, ``limit`` 0, or an empty audience set), so the backend returns ``[]`` at once.

    >>> search_request("memory", "Refund policy", 5, SearchFilter(audiences=frozenset({"b", "a"})))
    SearchRequest(limit=5, terms=['refund', 'policy'], scope=None, audiences=['a', 'b'])
    """
    check_collection(collection)
    n = check_limit(limit)
    terms = query_terms(query)
    # identities are matched exactly as the caller wrote them (each backend stores them escaped)
    scope = filter_identity("scope", where.scope) if where is not None and where.scope is not None else None
    audiences = None
    if where is not None and where.audiences is not None:
        if isinstance(where.audiences, (str, bytes)):  # would be read as a set of characters
            raise TypeError(f"where.audiences: expected a set of str, got {type(where.audiences).__name__}")
        audiences = sorted({filter_identity("audiences", a) for a in where.audiences})
    if not terms or n == 0 or audiences == []:
        return None
    return SearchRequest(n, terms, scope, audiences)


def filter_identity(field: str, value: object) -> str:
    """A scope or audience to match: any str, exactly as given (refused otherwise, as a query
    for ``None`` or bytes would silently match nothing)."""
    if not isinstance(value, str):
        raise TypeError(f"where.{field}: expected str, got {type(value).__name__}")
    return value


def tags_to_json(tags: tuple[str, ...]) -> str:
    return json.dumps(list(tags), ensure_ascii=False)


def tags_from_json(raw: str | None) -> tuple[str, ...]:
    return tuple(json.loads(raw)) if raw else ()


# ---------------------------------------------------------------------------------------------
# the one lossless encoding of text no store takes as it is
#
# No backend stores a lone surrogate (not UTF-8), PostgreSQL's ``text`` holds no NUL, and
# replacing either with U+FFFD would merge identities that differ only there ("u\udcff" and
# "u\udcfe" are two session ids). So an identity, and on PostgreSQL every text field, is stored
# through ``escape``: each NUL, lone surrogate and U+FDD0 becomes U+FDD0 and four "digits" from
# the noncharacters U+FDE0-U+FDEF (the code point in hex). Noncharacters are Unicode's code
# points for a program's internal use: they never appear in interchanged text, PostgreSQL's
# text search treats them as blanks like the kernels' words (so an escaped NUL still separates
# words), and any text without those three characters is stored unchanged.

_ESC = "\ufdd0"
_DIGIT0 = 0xFDE0
_TO_ESCAPE = re.compile("[\x00\ud800-\udfff\ufdd0]")
_ESCAPED = re.compile("\ufdd0([\ufde0-\ufdef]{4})")


def _escape_one(m: re.Match[str]) -> str:
    cp = ord(m.group())
    return _ESC + "".join(chr(_DIGIT0 + (cp >> s & 0xF)) for s in (12, 8, 4, 0))


def _unescape_one(m: re.Match[str]) -> str:
    cp = 0
    for d in m.group(1):
        cp = cp << 4 | (ord(d) - _DIGIT0)
    return chr(cp)


def escape(text: str) -> str:
    """``text`` as valid UTF-8 text without NUL, losslessly (``unescape`` reverses it).

    >>> escape("chat-42")
    'chat-42'
    >>> [hex(ord(c)) for c in escape("a\\x00")]
    ['0x61', '0xfdd0', '0xfde0', '0xfde0', '0xfde0', '0xfde0']
    >>> unescape(escape("u\\udcff")) == "u\\udcff" != unescape(escape("u\\udcfe"))
    True
    """
    return _TO_ESCAPE.sub(_escape_one, text) if _TO_ESCAPE.search(text) else text


def unescape(stored: str) -> str:
    """The text ``escape`` was given (text stored by earlier versions comes back as it is)."""
    return _ESCAPED.sub(_unescape_one, stored) if _ESC in stored else stored
