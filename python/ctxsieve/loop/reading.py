"""Reading offloaded results back: line ranges and grep, streamed chunk by chunk.

Both work on a ``BlobStore`` one chunk (about 1 Mi chars) at a time, so reading a few lines of
a 100 MB result touches one chunk, and grep holds one chunk plus the line it is in. Grep calls
the ``grep_lines`` kernel once per chunk. Patterns are in the grep dialect (docs/grep.md): both
backends parse them alike, bound their size and run in time linear in the text; a pattern
outside the dialect or its limits is refused before any chunk is read, and the offloader turns
that into an ``error: bad pattern`` line. Line numbers are 0-based, and the number ``ctx_grep``
prints is the offset to pass to ``ctx_read``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from ctxsieve import kernels
from ctxsieve.stores.protocols import BlobInfo, BlobStore


def clip(line: str, max_chars: int, total: int | None = None) -> str:
    """``line`` cut to ``max_chars`` with a note of how much was left out; ``total`` is the
    line's real length when ``line`` is already only its beginning."""
    total = len(line) if total is None else total
    if total <= max_chars:
        return line
    return line[:max_chars] + f" [... line clipped: {total - max_chars} more chars]"


def utf8_len(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (a lone surrogate counts 3), what the token estimator counts."""
    return len(text.encode("utf-8", "surrogatepass"))


def read_lines(
    store: BlobStore, info: BlobInfo, offset: int, limit: int, *, max_line_chars: int, max_bytes: int
) -> tuple[list[str], int]:
    """Lines ``offset`` .. ``offset + limit - 1`` as ``"N: text"``, stopping early once
    ``max_bytes`` of output (UTF-8) is reached; returns them and the next offset to read."""
    out: list[str] = []
    size = 0
    line_no = -1  # the line the reading position is in (-1: before the first chunk)
    head, head_len = "", 0  # the shown beginning and the real length of a line split across chunks
    end = offset + limit

    def emit(n: int, text: str, total: int) -> bool:
        nonlocal size
        entry = f"{n}: {clip(text, max_line_chars, total)}"
        cost = utf8_len(entry) + 1
        if out and size + cost > max_bytes:
            return False
        out.append(entry)
        size += cost
        return True

    for chunk in store.iter_blob(info.blob_id, offset):
        if line_no < 0:
            line_no = chunk.first_line
        text = chunk.text
        pos = 0
        if line_no < offset:
            # skip the lines before the offset in C, not one find() per line
            skip = offset - line_no
            if text.count("\n") < skip:
                line_no += text.count("\n")
                continue
            pos = len(text) - len(text.split("\n", skip)[-1])
            line_no += skip
        while pos < len(text) and line_no < end:
            nl = text.find("\n", pos)
            stop = len(text) if nl < 0 else nl
            if line_no >= offset:
                if len(head) <= max_line_chars:
                    head += text[pos : min(stop, pos + max_line_chars + 1 - len(head))]
                head_len += stop - pos
            if nl < 0:
                break  # the line goes on in the next chunk
            if line_no >= offset and not emit(line_no, head, head_len):
                return out, line_no
            head, head_len = "", 0
            line_no += 1
            pos = nl + 1
        if line_no >= end:
            break
    if head_len and line_no < end and emit(line_no, head, head_len):
        line_no += 1  # the last line, which has no newline
    return out, max(line_no, offset)


def _blocks(store: BlobStore, blob_id: str) -> Iterator[tuple[int, str]]:
    """``(number of the first line, text of whole lines without the final newline)`` per chunk;
    a line split across chunks is joined before it is searched."""
    line_no = 0
    carry = ""
    for chunk in store.iter_blob(blob_id, 0):
        text = chunk.text
        last = text.rfind("\n")
        if last < 0:
            carry += text
            continue
        block = carry + text[:last] if carry else text[:last]
        yield line_no, block
        line_no += block.count("\n") + 1
        carry = text[last + 1 :]
    if carry:
        yield line_no, carry


def grep(
    store: BlobStore, info: BlobInfo, pattern: str, *, context: int, max_matches: int, max_line_chars: int
) -> tuple[list[str], int]:
    """grep-style output (``N: match``, ``N- context``, ``--`` between groups) and the number of
    matching lines found (at most ``max_matches``). Raises ValueError for a bad pattern."""
    kernels.grep_lines("", pattern, 1)  # a bad pattern fails before any chunk is read
    shown: dict[int, str] = {}
    matched: list[int] = []
    tail: deque[tuple[int, str]] = deque(maxlen=max(context, 1))
    pending_after = 0  # context lines still owed from a match at the end of the last block
    for first, block in _blocks(store, info.blob_id):
        if pending_after:
            head = block.split("\n", pending_after)
            for k in range(min(pending_after, len(head))):
                shown.setdefault(first + k, head[k])
            pending_after = max(0, pending_after - len(head))
        if len(matched) < max_matches:
            hits = kernels.grep_lines(block, pattern, max_matches - len(matched))
        else:
            hits = []
        if hits:
            lines = block.split("\n")
            for i in hits:
                matched.append(first + i)
                for j in range(i - context, i + context + 1):
                    if 0 <= j < len(lines):
                        shown[first + j] = lines[j]
                    elif j < 0:
                        for n, t in tail:
                            if n == first + j:
                                shown.setdefault(n, t)
                pending_after = max(pending_after, i + context - (len(lines) - 1))
        if len(matched) >= max_matches and not pending_after:
            break
        if context:
            last_lines = block.rsplit("\n", context)[-context:]
            n_lines = block.count("\n") + 1
            for k, t in enumerate(last_lines):
                tail.append((first + n_lines - len(last_lines) + k, t))
    match_set = set(matched)
    out: list[str] = []
    prev = None
    for n in sorted(shown):
        if prev is not None and n != prev + 1:
            out.append("--")
        out.append(f"{n}{':' if n in match_set else '-'} {clip(shown[n], max_line_chars)}")
        prev = n
    return out, len(matched)
