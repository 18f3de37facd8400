"""Offloader: tool results over a token limit leave the conversation but stay readable.

A result over ``max_tokens`` is written whole to a ``BlobStore`` (chunk by chunk, so a 100 MB
result is never copied whole) and replaced by its first ``preview_tokens`` and a handle (a JSON
object or array by its shape instead: paths, types, array lengths, first values). The agent
reads the rest with ``ctx_read(handle, offset, limit)`` (by line, or with ``unit="chars"`` by
character), ``ctx_grep(handle, pattern)`` and, for JSON, ``ctx_query(handle, path)``.
``offload(messages)`` does it for every result block of a conversation (provider messages are
read and written back with the codecs of ``ctxsieve.messages``); ``cap(text)`` (or the ``wrap``
decorator) and ``cap_message(message)`` do it as a tool's result is written, so one huge result
never reaches the next model call. Tool functions return text the agent can act on and report every problem as a
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
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from ctxsieve.loop.adapters import MessageAdapter, adapter_for
from ctxsieve.loop.codec import MessagesAdapter
from ctxsieve.loop.fitting import lines_within, longest_prefix, over
from ctxsieve.loop.json_doc import load, shape
from ctxsieve.loop.json_path import JsonQueryError
from ctxsieve.loop.offload_reads import OffloadReads
from ctxsieve.messages import Message, Text, ToolResult
from ctxsieve.stores import BlobInfo, open_store
from ctxsieve.stores._text import CHUNK_CHARS, iter_chunks
from ctxsieve.tokenizers import EstimatorLike, resolve_estimator

# reads stream at most this many UTF-8 bytes per token of their limit (what the default
# estimator, ceil(bytes / 3), allows), then are fitted to the limit with the estimator
READ_BYTES_PER_TOKEN = 3
NOTICE_TOKENS = 64  # room the offload notice needs (about 180 chars at most)
MAX_PREVIEW_DEPTH = 8  # levels of a JSON result the shape preview may describe
MAX_JSON_CHARS = 8 << 20  # results parsed as JSON, for the preview and ctx_query (about 10x in memory)


class Offloader(OffloadReads):
    """Move tool results over ``max_tokens`` into ``store`` (default: the embedded SQLite store).

    >>> import os, re, tempfile
    >>> from ctxsieve.stores import open_store
    >>> off = Offloader(open_store(os.path.join(tempfile.mkdtemp(), "o.db")), max_tokens=100, preview_tokens=10)
    >>> msgs = [{"role": "tool", "tool_call_id": "c1", "content": "\\n".join(f"row {i}" for i in range(100))}]
    >>> short = off.offload(msgs)[0]["content"]
    >>> handle = re.search(r"ctx_[0-9a-f]{32}", short).group(0)
    >>> ctx_read, ctx_grep, ctx_query = off.tools()
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
        max_json_chars: int = MAX_JSON_CHARS,
    ):
        for name, value in (("max_tokens", max_tokens), ("preview_tokens", preview_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}: expected an int >= 1, got {value!r}")
        if isinstance(max_json_chars, bool) or not isinstance(max_json_chars, int) or max_json_chars < 0:
            # 0 turns JSON previews and ctx_query off
            raise ValueError(f"max_json_chars: expected an int >= 0, got {max_json_chars!r}")
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
        self.max_json_chars = max_json_chars
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

    def cap_message(self, message: Message) -> Message:
        """``message`` with each tool result over ``max_tokens`` capped as ``cap`` caps a text
        (its images stay); ``message`` itself when nothing is over.

        >>> import tempfile, os
        >>> from ctxsieve.messages import tool_result
        >>> from ctxsieve.stores import open_store
        >>> off = Offloader(open_store(os.path.join(tempfile.mkdtemp(), "o.db")), max_tokens=100, preview_tokens=10)
        >>> print(off.cap_message(tool_result("c1", "row\\n" * 1000)).text)  # doctest: +ELLIPSIS
        row
        ...
        [... offloaded: 4,000 chars, 1,000 lines. handle ctx_...: read on with ctx_read(handle, offset=7) ...]
        """
        if not isinstance(message, Message):
            raise TypeError(f"cap_message: expected a ctxsieve.messages.Message, got {type(message).__name__}")
        parts = []
        for p in message.parts:
            if isinstance(p, ToolResult) and p.text and self.over_limit(p.text):
                rest = tuple(q for q in p.parts if not isinstance(q, Text))
                p = replace(p, parts=(Text(self.cap(p.text)), *rest))
            parts.append(p)
        if all(a is b for a, b in zip(parts, message.parts)):
            return message
        return replace(message, parts=tuple(parts))

    def _notice(self, text: str, info: BlobInfo) -> str:
        # the notice is drafted first so the preview gets what is left: the replacement must stay
        # under max_tokens, or the next offload() would offload the notice itself. The draft has
        # the largest numbers the notice can hold, so the final one is never longer.
        if info.chars <= self.max_json_chars and text[:4096].lstrip()[:1] in ("{", "["):
            try:
                doc = load(text)
            except JsonQueryError:
                doc = None  # not JSON after all: the preview is its beginning, as for any text
            shaped = self._json_notice(doc, info) if isinstance(doc, (dict, list)) else None
            if shaped is not None:
                return shaped
        est = self.estimator
        draft = self._text_notice(info, info.chars, "chars")
        room = min(self.preview_tokens, self.max_tokens - est.one(draft) - 1)
        # the longest beginning within the room, ending on a whole line when that keeps most of it
        preview = longest_prefix(est, text, room)
        cut = preview.rfind("\n")
        if cut > len(preview) // 2:
            preview = preview[: cut + 1]
        elif preview and est.one(preview + "\n", cache=False) > room:
            preview = longest_prefix(est, preview, room - 1)  # room for the newline before the notice
        if not preview or preview.endswith("\n"):
            notice = self._text_notice(info, preview.count("\n"), "lines")
        else:  # ends inside a line (a long one): read on from that character
            notice = self._text_notice(info, len(preview), "chars")
            preview += "\n"
        return preview + notice

    def _text_notice(self, info: BlobInfo, offset: int, unit: str) -> str:
        # a long line: read on from the character where the preview stopped
        where = f"offset={offset}" if unit == "lines" else f'offset={offset}, unit="chars"'
        return (
            f"[... offloaded: {info.chars:,} chars, {info.lines:,} lines. handle {info.blob_id}: read on with "
            f"ctx_read(handle, {where}) or search with ctx_grep]"
        )

    def _json_notice(self, doc: Any, info: BlobInfo) -> str | None:
        """The JSON's shape (paths, types, array lengths, first values) as deep as fits the
        preview, then the notice pointing at ctx_query; None when not one path fits (the text's
        beginning is then the preview)."""
        est = self.estimator
        notice = (
            f"[... offloaded: JSON, {info.chars:,} chars. handle {info.blob_id}: select by path with "
            'ctx_query(handle, "$.a[0]"), or ctx_read, ctx_grep]'
        )
        room = min(self.preview_tokens, self.max_tokens - est.one(notice) - 1)
        head = "JSON shape (path: type, array length, first value):"
        best: list[str] = []
        previous: list[str] | None = None
        memo: dict[int, Any] = {}  # the document stays alive meanwhile, so ids stay its arrays'
        for depth in range(1, MAX_PREVIEW_DEPTH + 1):
            lines = [head, *shape(doc, depth, memo=memo)]
            if lines == previous:
                break  # the document is no deeper
            previous = lines
            if est.one("\n".join(lines) + "\n", cache=False) > room:
                if not best:  # not even the top level fits whole: as many of its lines as do
                    best = lines[: lines_within(est, lines, room - 1)]
                break
            best = lines
        if len(best) < 2:
            return None
        return "\n".join(best) + "\n" + notice

    def offload(self, messages: Sequence[Any]) -> list[Any]:
        """A copy of ``messages`` with every tool result block over ``max_tokens`` offloaded.
        Messages that need no change are the same objects; the input list is not modified."""
        if not messages:
            return []
        a = adapter_for(messages, self.adapter)
        out = []
        for m in messages:
            capped = {call_id: self.cap(text) for call_id, text in a.tool_results(m) if self.over_limit(text)}
            if capped and isinstance(a, MessagesAdapter):
                m = a.replace_tool_results(m, capped)  # one rewrite of the message for all its results
            else:
                for call_id, text in capped.items():
                    m = a.replace_tool_result(m, call_id, text)
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
