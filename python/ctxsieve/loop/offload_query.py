"""``ctx_query``: select parts of an offloaded JSON result by a path expression (``json_path``).

The result is parsed once per handle (the last one is kept, so paging through a query does not
parse it again) and only when it is at most ``max_json_chars`` characters: parsing costs about
ten times the text in memory, and a larger result is read with ``ctx_read`` and ``ctx_grep``.
An answer lists the selected values as ``path = JSON``, each path an expression that selects it
again; it is kept within the offloader's read limit like every read, a value too long for it is
cut with a note, and the footer says how to page on. Every problem is an ``error:`` line.
"""

from __future__ import annotations

from typing import Any

from ctxsieve.loop.fitting import lines_within, longest_prefix
from ctxsieve.loop.json_doc import dump, load
from ctxsieve.loop.json_path import Budget, JsonQueryError, parse, path_text, select
from ctxsieve.loop.reading import read_chars, utf8_len
from ctxsieve.stores import BlobInfo, StoreError, StoreUnavailableError
from ctxsieve.tokenizers import Estimator

MAX_VISITS = 1_000_000  # values one query may visit (about a second of Python at worst)
COUNT_LIMIT = 100_000  # matches counted past the page shown, for the "of N" in the header


def _count(name: str, value: Any, low: int, high: int | None = None) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        return f"error: {name} must be an integer {bound}, got {value!r}"
    return None


def _changed(handle: str, exc: StoreError) -> str:
    # the result was deleted (retention) or replaced while its chunks were being read
    return f"error: {handle} changed while it was read (deleted or replaced): read it again. ({exc})"


class OffloadQuery:
    """The ``ctx_query`` tool over ``self.store``; ``Offloader`` sets the limits."""

    store: Any
    estimator: Estimator
    max_json_chars: int
    read_max_bytes: int
    read_max_lines_tokens: int
    _json_doc: tuple[str, int, Any] | None = None

    def _info(self, handle: Any) -> BlobInfo | str:  # OffloadReads._info
        raise NotImplementedError

    def _document(self, handle: str, info: BlobInfo) -> Any:
        """The parsed result; ``JsonQueryError`` when it is not JSON or too large to parse."""
        cached = self._json_doc
        if cached is not None and cached[0] == handle and cached[1] == info.chars:
            return cached[2]
        if info.chars > self.max_json_chars:
            raise JsonQueryError(
                f"{handle} is {info.chars:,} chars, over the {self.max_json_chars:,} that ctx_query parses "
                "(max_json_chars): search it with ctx_grep or read it with ctx_read"
            )
        doc = load(read_chars(self.store, info, 0, info.chars))
        self._json_doc = (handle, info.chars, doc)
        return doc

    def ctx_query(self, handle: str, path: str, offset: int = 0, limit: int = 20) -> str:
        """Select values of an offloaded JSON tool result by a JSONPath expression.

        Args:
            handle: the handle from the offload notice (ctx_ followed by 32 hex digits).
            path: a JSONPath expression: $ the root, .name or ['any name'] a member, [3] or
                [-1] an element, [0:10] or [::2] a slice, [*] or .* everything one level down,
                ..name or ..* at any depth, [0,2] or ['a','b'] several; no filters [?...].
            offset: how many of the selected values to skip (to page on).
            limit: how many values to show (1-200); long values are cut, saying so.

        Returns one "path = JSON value" line per selected value, with a header giving how many
        the path selects, or a line starting with "error:".
        """
        info = self._info(handle)
        if isinstance(info, str):
            return info
        problem = _count("offset", offset, 0) or _count("limit", limit, 1, 200)
        if problem:
            return problem
        try:
            segments = parse(path)
        except JsonQueryError as exc:
            return f"error: {exc}"
        try:
            doc = self._document(handle, info)
        except JsonQueryError as exc:
            return f"error: {handle} cannot be queried: {exc}. Read it with ctx_read or ctx_grep instead"
        except StoreUnavailableError:
            raise
        except StoreError as exc:
            return _changed(handle, exc)
        page: list[tuple[str, Any]] = []
        total, exact = 0, True
        try:
            for p, value in select(segments, doc, Budget(MAX_VISITS)):
                if offset <= total < offset + limit:
                    page.append((path_text(p), value))
                total += 1
                if total >= offset + limit + COUNT_LIMIT:
                    exact = False
                    break
        except JsonQueryError as exc:
            if total <= offset:
                return f"error: {exc}"
            exact = False  # the page is complete; only the count stopped
        return self._answer(handle, path, page, total, exact, offset, limit)

    def _answer(
        self, handle: str, path: str, page: list[tuple[str, Any]], total: int, exact: bool, offset: int, limit: int
    ) -> str:
        of = f"{total:,}" if exact else f"at least {total:,}"
        if not page:
            if total:
                return f"error: offset {offset} is past the end: the path selects {of} values"
            return (
                f"[the path {path!r:.200} selects nothing in {handle}: check names and indices against "
                "the preview, or list a level with ctx_query(handle, '$.*')]"
            )
        lines: list[str] = []
        size = 0
        for text, value in page:
            body, cut = dump(value, self.read_max_bytes)
            line = f"{text} = {body}" + (" [... value cut]" if cut else "")
            cost = utf8_len(line) + 1
            if lines and size + cost > self.read_max_bytes:
                break
            lines.append(line)
            size += cost
        room = self.read_max_lines_tokens
        k = lines_within(self.estimator, lines, room)
        if not k:
            note = f" [... value cut to the read limit: query inside it, e.g. {page[0][0]}.* or {page[0][0]}[0:10]]"
            lines, k = [longest_prefix(self.estimator, lines[0], room - self.estimator.one(note) - 1) + note], 1
        shown = lines[:k]
        # the header and footer never repeat the path (up to 1,000 chars): they stay within the
        # room the read limit keeps for them, whatever the expression
        header = f"[{handle}: the path selects {of} values; {offset}-{offset + k - 1} shown]"
        nxt = offset + k
        footer = []
        if nxt < total or not exact:
            footer.append(f"[more: call ctx_query with the same handle and path and offset={nxt}]")
        return "\n".join([header, *shown, *footer])


__all__ = ["OffloadQuery"]
