"""The agent's tools over offloaded results: ``ctx_read`` and ``ctx_grep`` (``OffloadReads``,
the reading half of ``Offloader``).

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
from ctxsieve.loop.reading import grep, read_lines, utf8_len
from ctxsieve.stores import BlobInfo, StoreError, StoreUnavailableError
from ctxsieve.tokenizers import Estimator

HANDLE_RE = re.compile(r"ctx_[0-9a-f]{32}")


def _count(name: str, value: Any, low: int, high: int | None = None) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        return f"error: {name} must be an integer {bound}, got {value!r}"
    return None


def _changed(handle: str, exc: StoreError) -> str:
    # the result was deleted (retention) or replaced while its chunks were being read
    return f"error: {handle} changed while it was read (deleted or replaced): read it again. ({exc})"


class OffloadReads:
    """``ctx_read``/``ctx_grep`` over ``self.store``; ``Offloader`` sets the limits."""

    store: Any
    estimator: Estimator
    max_line_chars: int
    read_max_bytes: int
    read_max_lines_tokens: int

    def _line_cap(self) -> int:
        # a single line never takes more than one read's worth of output
        return max(16, min(self.max_line_chars, (self.read_max_bytes - 64) // 4))

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

    def ctx_read(self, handle: str, offset: int = 0, limit: int = 200) -> str:
        """Read lines of an offloaded tool result.

        Args:
            handle: the handle from the offload notice (ctx_ followed by 32 hex digits).
            offset: 0-based number of the first line to read (ctx_grep prints these numbers).
            limit: how many lines to read (1-2000); long lines are clipped and very long
                reads stop early, saying where to continue.

        Returns the lines as "N: text", with a header giving the range and the total, or a line
        starting with "error:".
        """
        info = self._info(handle)
        if isinstance(info, str):
            return info
        problem = _count("offset", offset, 0) or _count("limit", limit, 1, 2000)
        if problem:
            return problem
        if info.lines == 0:
            return f"[{handle}: the result is empty (0 lines)]"
        if offset >= info.lines:
            return (
                f"error: offset {offset} is past the end of {handle}, which has {info.lines} lines (0-{info.lines - 1})"
            )
        try:
            lines, nxt = read_lines(
                self.store, info, offset, limit, max_line_chars=self._line_cap(), max_bytes=self.read_max_bytes
            )
        except StoreUnavailableError:
            raise  # an outage is the application's to handle, not the model's
        except StoreError as exc:
            return _changed(handle, exc)
        lines, kept = self._fit(lines)
        if kept < nxt - offset:
            nxt = offset + kept
        header = f"[{handle}: lines {offset}-{nxt - 1} of {info.lines}]"
        footer = []
        if nxt < info.lines:
            footer.append(f'[{info.lines - nxt} more lines: ctx_read("{handle}", offset={nxt}, limit={limit})]')
        return "\n".join([header, *lines, *footer])

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
        pass to ctx_read as offset), "--" between groups, or a line starting with "error:".
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
        header = f"[{found} matching lines of {info.lines} in {handle}{more}]"
        k, size = 0, 0
        while k < len(lines) and (k == 0 or size + utf8_len(lines[k]) + 1 <= self.read_max_bytes):
            size += utf8_len(lines[k]) + 1
            k += 1
        shown, k = self._fit(lines[:k])
        if k < len(lines):
            shown.append(f"[output cut: {len(lines) - k} more lines; narrow the pattern or use ctx_read]")
        return "\n".join([header, *shown])

    def _fit(self, lines: list[str]) -> tuple[list[str], int]:
        """The leading ``lines`` within a read's token limit and how many of ``lines`` they are;
        a first line that alone is over is clipped to fit."""
        room = self.read_max_lines_tokens
        k = lines_within(self.estimator, lines, room)
        if k or not lines:
            return lines[:k], k
        note = " [... line clipped to the read limit]"
        return [longest_prefix(self.estimator, lines[0], room - self.estimator.one(note) - 1) + note], 1

    def tools(self) -> list[Callable[..., str]]:
        """``[ctx_read, ctx_grep]`` as plain functions with docstrings, ready to register."""

        def ctx_read(handle: str, offset: int = 0, limit: int = 200) -> str:
            return self.ctx_read(handle, offset, limit)

        def ctx_grep(handle: str, pattern: str, context: int = 0, max_matches: int = 50) -> str:
            return self.ctx_grep(handle, pattern, context, max_matches)

        ctx_read.__doc__ = OffloadReads.ctx_read.__doc__
        ctx_grep.__doc__ = OffloadReads.ctx_grep.__doc__
        return [ctx_read, ctx_grep]


__all__ = ["HANDLE_RE", "OffloadReads"]
