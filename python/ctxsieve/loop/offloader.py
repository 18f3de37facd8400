"""Offloader: tool results over a token limit leave the conversation but stay readable.

A result over ``max_tokens`` is written whole to a ``BlobStore`` (chunk by chunk, so a 100 MB
result is never copied whole) and replaced by its first ``preview_tokens`` and a handle. The
agent reads the rest with ``ctx_read(handle, offset, limit)`` and ``ctx_grep(handle, pattern)``.
``offload(messages)`` does it for every result block of a conversation; ``cap(text)`` (or the
``wrap`` decorator) does it as a tool's result is written, so one huge result never reaches the
next model call. Tool functions return text the agent can act on and report every problem as a
line starting with ``error:``; they never raise on bad input.

Tokens are counted with the application's estimator (``estimator=``, the same keyword and
values as the engine and admission; default ``bytes/3``): with ``calibrated:o200k`` a result is
offloaded when admission would count it over ``max_tokens``, and every preview and every read
is within the limit as that estimator counts it.

Handles look like ``ctx_`` plus 32 hex digits; anything else (paths, ``../``, other prefixes)
is refused before the store is touched, so a handle cannot name anything outside the store.
"""

from __future__ import annotations

import functools
import inspect
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ctxsieve.loop.adapters import MessageAdapter, adapter_for
from ctxsieve.loop.fitting import lines_within, longest_prefix, over
from ctxsieve.loop.reading import grep, read_lines, utf8_len
from ctxsieve.stores import BlobInfo, StoreError, StoreUnavailableError, open_store
from ctxsieve.stores._text import CHUNK_CHARS, iter_chunks
from ctxsieve.tokenizers import EstimatorLike, resolve_estimator

HANDLE_RE = re.compile(r"ctx_[0-9a-f]{32}")
# reads stream at most this many UTF-8 bytes per token of their limit (what the default
# estimator, ceil(bytes / 3), allows), then are fitted to the limit with the estimator
READ_BYTES_PER_TOKEN = 3
NOTICE_TOKENS = 64  # room the offload notice needs (about 170 chars at most)


def _count(name: str, value: Any, low: int, high: int | None = None) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        return f"error: {name} must be an integer {bound}, got {value!r}"
    return None


def _changed(handle: str, exc: StoreError) -> str:
    # the result was deleted (retention) or replaced while its chunks were being read
    return f"error: {handle} changed while it was read (deleted or replaced): read it again. ({exc})"


class Offloader:
    """Move tool results over ``max_tokens`` into ``store`` (default: the embedded SQLite store).

    >>> import tempfile, os
    >>> from ctxsieve.stores import open_store
    >>> off = Offloader(open_store(os.path.join(tempfile.mkdtemp(), "o.db")), max_tokens=100, preview_tokens=10)
    >>> msgs = [{"role": "tool", "tool_call_id": "c1", "content": "\\n".join(f"row {i}" for i in range(100))}]
    >>> short = off.offload(msgs)[0]["content"]
    >>> handle = re.search(r"ctx_[0-9a-f]{32}", short).group(0)
    >>> ctx_read, ctx_grep = off.tools()
    >>> print(ctx_grep(handle, "row 4[2-3]$"))  # doctest: +ELLIPSIS
    [2 matching lines of 100 in ...]
    42: row 42
    43: row 43
    """

    def __init__(
        self,
        store: Any = None,
        *,
        max_tokens: int = 4000,
        preview_tokens: int = 500,
        adapter: MessageAdapter | str | None = None,
        max_line_chars: int = 2000,
        read_max_tokens: int | None = None,
        chunk_chars: int = CHUNK_CHARS,
        estimator: EstimatorLike = None,
    ):
        for name, value in (("max_tokens", max_tokens), ("preview_tokens", preview_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}: expected an int >= 1, got {value!r}")
        if read_max_tokens is not None and (
            isinstance(read_max_tokens, bool)
            or not isinstance(read_max_tokens, int)
            or read_max_tokens < 2 * NOTICE_TOKENS
        ):
            # a read needs room for its header and footer besides the lines
            raise ValueError(
                f"read_max_tokens: expected an int >= {2 * NOTICE_TOKENS} or None, got {read_max_tokens!r}"
            )
        if max_tokens < preview_tokens + NOTICE_TOKENS:
            raise ValueError(
                f"max_tokens ({max_tokens}) must exceed preview_tokens ({preview_tokens}) by at least "
                f"{NOTICE_TOKENS}: the offload notice has to fit next to the preview"
            )
        self.estimator = resolve_estimator(estimator)
        self.store = open_store() if store is None else store
        self.max_tokens = max_tokens
        self.preview_tokens = preview_tokens
        self.adapter = adapter
        self.max_line_chars = max_line_chars
        self.chunk_chars = chunk_chars
        # One read returns at most what would not have been offloaded in the first place, so an
        # offload() pass never turns a ctx_read/ctx_grep answer into another handle: the lines
        # get the limit less room for the header and footer, as the estimator counts them; the
        # store is read up to a byte bound first, and a clipped line is at most a quarter of it.
        self.read_max_lines_tokens = (read_max_tokens or max_tokens) - NOTICE_TOKENS
        self.read_max_bytes = READ_BYTES_PER_TOKEN * self.read_max_lines_tokens

    # -- writing ----------------------------------------------------------------------------

    def tokens(self, text: str) -> int:
        """``text``'s estimate, as this offloader (and admission, with the same estimator) counts it."""
        return self.estimator.one(text)

    def over_limit(self, text: str) -> bool:
        """Whether ``text`` is over ``max_tokens``; a huge text whose beginning is already over
        is decided without estimating the rest."""
        return over(self.estimator, text, self.max_tokens)

    def store_text(self, text: str | Iterable[str]) -> BlobInfo:
        """Store a text (or a stream of pieces) under a new handle; returns its ``BlobInfo``."""
        pieces = [text] if isinstance(text, str) else text
        return self.store.put_blob("ctx_" + uuid.uuid4().hex, iter_chunks(pieces, self.chunk_chars))

    def cap(self, text: str) -> str:
        """``text`` itself when within ``max_tokens``, else a preview and a handle (stored)."""
        if not isinstance(text, str):
            raise TypeError(f"tool result must be str, got {type(text).__name__}")
        if not self.over_limit(text):
            return text
        return self._notice(text, self.store_text(text))

    def _notice(self, text: str, info: BlobInfo) -> str:
        # the notice is written first so the preview gets what is left: the replacement must stay
        # under max_tokens, or the next offload() would offload the notice itself
        h = info.blob_id
        est = self.estimator
        # the longest beginning within preview_tokens, then within what the notice leaves
        preview = longest_prefix(est, text, self.preview_tokens)
        cut = preview.rfind("\n")
        if cut > len(preview) // 2:  # end on a whole line when that keeps most of the preview
            preview = preview[: cut + 1]
        shown = preview.count("\n")
        notice = (
            f"[... offloaded: {info.chars:,} chars, {info.lines:,} lines. handle {h}: read on with "
            f"ctx_read(handle, offset={shown}) or search with ctx_grep(handle, pattern)]"
        )
        room = min(self.preview_tokens, self.max_tokens - est.one(notice) - 1)
        if preview and est.one(preview + "\n", cache=False) > room:
            preview = longest_prefix(est, preview, room - 1)
        if preview and not preview.endswith("\n"):
            preview += "\n"
        return preview + notice

    def offload(self, messages: Sequence[Any]) -> list[Any]:
        """A copy of ``messages`` with every tool result block over ``max_tokens`` offloaded.
        Messages that need no change are the same objects; the input list is not modified."""
        if not messages:
            return []
        a = adapter_for(messages, self.adapter)
        out = []
        for m in messages:
            for call_id, text in a.tool_results(m):
                if self.over_limit(text):
                    m = a.replace_tool_result(m, call_id, self._notice(text, self.store_text(text)))
            out.append(m)
        return out

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorate a tool (sync or async) so each str result is capped as it is written."""
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def awrapper(*args: Any, **kwargs: Any) -> Any:
                result = await fn(*args, **kwargs)
                return self.cap(result) if isinstance(result, str) else result

            return awrapper

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            return self.cap(result) if isinstance(result, str) else result

        return wrapper

    # -- reading (the agent's tools) --------------------------------------------------------

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

        ctx_read.__doc__ = Offloader.ctx_read.__doc__
        ctx_grep.__doc__ = Offloader.ctx_grep.__doc__
        return [ctx_read, ctx_grep]
