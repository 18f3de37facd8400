"""The agent's tools over offloaded results: ``ctx_read``, ``ctx_grep`` and ``ctx_query``
(``OffloadReads``, the reading half of ``Offloader``; ``ctx_query`` is in ``offload_query``).

Every character of a result can be read back: ``ctx_read`` reads lines, or with
``unit="chars"`` a range of characters of the whole text, returned exactly (a page: as many as
fit one read, so a 100 KB single-line result is read in pages of about 12 KB at the default
limit, and joining the pages gives the stored text back). A line too long for one read is
clipped with a note giving the character offset to read on from.

Every answer is text the agent can act on: a problem is a line starting with ``error:``, never
an exception (a store outage excepted: that is the application's to handle). An answer is kept
within the offloader's read limit as its estimator counts it, so offloading the conversation
again never turns a read into another handle.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ctxsieve.loop.fitting import lines_within, longest_prefix
from ctxsieve.loop.offload_query import OffloadQuery, _changed, _count
from ctxsieve.loop.reading import grep, read_chars, read_lines, utf8_len
from ctxsieve.stores import BlobInfo, StoreError, StoreUnavailableError
from ctxsieve.tokenizers import Estimator

HANDLE_RE = re.compile(r"ctx_[0-9a-f]{32}")
GREP_WINDOW_CHARS = 500  # chars ctx_grep shows around each match in a line too long to show
NOTICE_ROOM = 64  # what the offloader keeps of every read's limit for headers and footers (NOTICE_TOKENS)
MAX_CHAR_LIMIT = 1_000_000  # a chars read asks for at most this; one answer is a page of it anyway


class OffloadReads(OffloadQuery):
    """``ctx_read``/``ctx_grep``/``ctx_query`` over ``self.store``; ``Offloader`` sets the limits."""

    store: Any
    estimator: Estimator
    max_line_chars: int
    read_max_bytes: int
    read_max_lines_tokens: int

    def _line_cap(self) -> int:
        # a single line never takes more than one read's worth of output
        return max(16, min(self.max_line_chars, (self.read_max_bytes - 64) // 4))

    def _window(self) -> int:
        # a match's window in a long line: small enough that one answer shows several
        return min(self._line_cap(), GREP_WINDOW_CHARS)

    def _info(self, handle: Any) -> BlobInfo | str:
        if not isinstance(handle, str) or not HANDLE_RE.fullmatch(handle):
            return (
                f"error: invalid handle {handle!r:.80}: a handle is ctx_ followed by 32 hex digits, "
                "exactly as the offload notice gives it"
            )
        info = self.store.blob_info(handle)
        if info is None:
            return f"error: unknown handle {handle}: nothing was offloaded under it (or it was deleted)"
        return info

    def ctx_read(self, handle: str, offset: int = 0, limit: int = 200, unit: str = "lines") -> str:
        """Read lines, or characters, of an offloaded tool result.

        Args:
            handle: the handle from the offload notice (ctx_ followed by 32 hex digits).
            offset: 0-based number of the first line to read (ctx_grep prints these numbers),
                or with unit="chars" of the first character of the whole text.
            limit: how many lines to read (1-2000; long lines are clipped, saying where to read
                on), or with unit="chars" how many characters (1-1000000); a read stops early
                at the read limit, saying where to continue.
            unit: "lines" (the default) or "chars": characters are returned exactly as stored,
                newlines included, so a long line is read in pieces and joining the pieces
                gives the text back.

        Returns the lines as "N: text" (or the characters as they are), with a header giving the
        range and the total, or a line starting with "error:".
        """
        info = self._info(handle)
        if isinstance(info, str):
            return info
        if unit not in ("lines", "chars"):
            return f'error: unit must be "lines" or "chars", got {unit!r:.40}'
        if unit == "chars":
            problem = _count("offset", offset, 0) or _count("limit", limit, 1, MAX_CHAR_LIMIT)
            return problem or self._read_chars(handle, info, offset, limit)
        problem = _count("offset", offset, 0) or _count("limit", limit, 1, 2000)
        if problem:
            return problem
        if info.lines == 0:
            return f"[{handle}: the result is empty (0 lines)]"
        if offset >= info.lines:
            hint = ""
            if info.chars > self._line_cap() * info.lines:  # lines too long to read whole
                hint = f'; its {info.chars} chars are read in pages with ctx_read("{handle}", offset=0, unit="chars")'
            return (
                f"error: offset {offset} is past the end of {handle}, which has {info.lines} lines "
                f"(0-{info.lines - 1}){hint}"
            )
        try:
            lines, nxt = read_lines(
                self.store, info, offset, limit, max_line_chars=self._line_cap(), max_bytes=self.read_max_bytes
            )
        except StoreUnavailableError:
            raise  # an outage is the application's to handle, not the model's
        except StoreError as exc:
            return _changed(handle, exc)
        lines, kept = self._fit(lines, self._lines_room(handle, info, limit))
        if kept < nxt - offset:
            nxt = offset + kept
        header = f"[{handle}: lines {offset}-{nxt - 1} of {info.lines}]"
        footer = []
        if nxt < info.lines:
            footer.append(f'[{info.lines - nxt} more lines: ctx_read("{handle}", offset={nxt}, limit={limit})]')
        return "\n".join([header, *lines, *footer])

    def _read_chars(self, handle: str, info: BlobInfo, offset: int, limit: int) -> str:
        """A page of characters: the header line, the text exactly, and a footer line (always
        there, so the text is everything between the first and the last line)."""
        if info.chars == 0:
            return f"[{handle}: the result is empty (0 chars)]"
        if offset >= info.chars:
            return (
                f"error: offset {offset} is past the end of {handle}, which has {info.chars} chars (0-{info.chars - 1})"
            )
        # at most read_max_bytes chars (each is at least a byte), then what the estimator fits
        want = min(limit, self.read_max_bytes, info.chars - offset)
        try:
            text = read_chars(self.store, info, offset, want)
        except StoreUnavailableError:
            raise
        except StoreError as exc:
            return _changed(handle, exc)
        # the page gets the read limit less what its header and footer take, drafted with the
        # largest numbers they can hold (header + footer are about 70 tokens at bytes/3)
        draft = self._chars_frame(handle, info, info.chars, info.chars, limit, draft=True)
        room = self.read_max_lines_tokens + NOTICE_ROOM - self.estimator.one("\n".join(draft)) - 2
        if utf8_len(text) > self.read_max_bytes:
            text = text.encode("utf-8", "surrogatepass")[: self.read_max_bytes].decode("utf-8", "ignore")
        if self.estimator.one(text, cache=False) > room:
            text = longest_prefix(self.estimator, text, room)
        if not text:  # one character over the whole limit cannot happen with a sane limit
            text = read_chars(self.store, info, offset, 1)
        header, footer = self._chars_frame(handle, info, offset, offset + len(text), limit)
        return "\n".join([header, text, footer])

    def _chars_frame(
        self, handle: str, info: BlobInfo, offset: int, end: int, limit: int, draft: bool = False
    ) -> tuple[str, str]:
        header = f"[{handle}: chars {offset}-{end - 1} of {info.chars}, exactly as stored up to the last line]"
        if end < info.chars or draft:
            more = info.chars if draft else info.chars - end
            footer = f'[{more} more chars: ctx_read("{handle}", offset={end}, limit={limit}, unit="chars")]'
        else:
            footer = f"[end of {handle}: {info.chars} chars]"
        return header, footer

    def ctx_grep(self, handle: str, pattern: str, context: int = 0, max_matches: int = 50) -> str:
        """Search an offloaded tool result for lines matching a regular expression.

        Args:
            handle: the handle from the offload notice (ctx_ followed by 32 hex digits).
            pattern: a regular expression matched against each line: literals, ., [...] classes,
                \\w \\d \\s, ^ $ \\b, groups, |, * + ? {n,m} and (?i); no backreferences,
                lookaround or \\p{...}. At most 1000 characters; runs in time linear in the text.
            context: lines of context to show before and after each match (0-20).
            max_matches: stop after this many matching lines (1-1000).

        Returns "N: line" for matches and "N- line" for context (N is the 0-based line number to
        pass to ctx_read as offset), "--" between groups; a matching line too long to show is
        shown as windows around its matches, "N: [chars A-B] ...", A and B offsets in the whole
        text for ctx_read with unit="chars"; or a line starting with "error:".
        """
        info = self._info(handle)
        if isinstance(info, str):
            return info
        if not isinstance(pattern, str) or not pattern:
            return f"error: pattern must be a non-empty string, got {pattern!r:.80}"
        problem = _count("context", context, 0, 20) or _count("max_matches", max_matches, 1, 1000)
        if problem:
            return problem
        try:
            lines, found = grep(
                self.store,
                info,
                pattern,
                context=context,
                max_matches=max_matches,
                max_line_chars=self._line_cap(),
                window=self._window(),
            )
        except ValueError as exc:
            return f"error: bad pattern {pattern!r:.200}: {exc}"
        except StoreUnavailableError:
            raise
        except StoreError as exc:
            return _changed(handle, exc)
        if not found:
            return f"[no line of {handle} ({info.lines} lines) matches {pattern!r:.200}]"
        more = f"; stopped at max_matches={max_matches}" if found >= max_matches else ""
        windowed = any(": [chars " in line[:24] for line in lines)
        wide = f"; a long line shows up to {self._window()} chars around each match" if windowed else ""
        header = f"[{found} matching lines of {info.lines} in {handle}{more}{wide}]"
        k, size = 0, 0
        while k < len(lines) and (k == 0 or size + utf8_len(lines[k]) + 1 <= self.read_max_bytes):
            size += utf8_len(lines[k]) + 1
            k += 1
        shown, k = self._fit(lines[:k])
        if k < len(lines):
            shown.append(f"[output cut: {len(lines) - k} more lines; narrow the pattern or use ctx_read]")
        return "\n".join([header, *shown])

    def _lines_room(self, handle: str, info: BlobInfo, limit: int) -> int:
        """A lines read's room: the limit less its header and footer, drafted with the largest
        numbers they can hold, when they cost more than the NOTICE_ROOM kept for them (with
        calibrated:o200k the two cost 85-90 tokens: the handle's 32 hex digits twice)."""
        n = info.lines
        draft = f'[{handle}: lines {n}-{n} of {n}]\n[{n} more lines: ctx_read("{handle}", offset={n}, limit={limit})]'
        return min(self.read_max_lines_tokens, self.read_max_lines_tokens + NOTICE_ROOM - self.estimator.one(draft) - 2)

    def _fit(self, lines: list[str], room: int | None = None) -> tuple[list[str], int]:
        """The leading ``lines`` within ``room`` tokens (a read's token limit by default) and how
        many of ``lines`` they are; a first line that alone is over is clipped to fit."""
        room = self.read_max_lines_tokens if room is None else room
        k = lines_within(self.estimator, lines, room)
        if k or not lines:
            return lines[:k], k
        note = " [... line clipped to the read limit]"
        return [longest_prefix(self.estimator, lines[0], room - self.estimator.one(note) - 1) + note], 1

    def tools(self) -> list[Callable[..., str]]:
        """``[ctx_read, ctx_grep, ctx_query]`` as plain functions with docstrings, ready to register."""

        def ctx_read(handle: str, offset: int = 0, limit: int = 200, unit: str = "lines") -> str:
            return self.ctx_read(handle, offset, limit, unit)

        def ctx_grep(handle: str, pattern: str, context: int = 0, max_matches: int = 50) -> str:
            return self.ctx_grep(handle, pattern, context, max_matches)

        def ctx_query(handle: str, path: str, offset: int = 0, limit: int = 20) -> str:
            return self.ctx_query(handle, path, offset, limit)

        ctx_read.__doc__ = OffloadReads.ctx_read.__doc__
        ctx_grep.__doc__ = OffloadReads.ctx_grep.__doc__
        ctx_query.__doc__ = OffloadQuery.ctx_query.__doc__
        return [ctx_read, ctx_grep, ctx_query]


__all__ = ["HANDLE_RE", "OffloadReads"]
