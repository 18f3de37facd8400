"""Reading offloaded results back: line ranges, character ranges and grep, streamed chunk by chunk.

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
from ctxsieve.loop.grep_windows import SCAN_CHARS, Scan, windows
from ctxsieve.stores.protocols import BlobInfo, BlobStore


def clip(line: str, max_chars: int, total: int | None = None, at: int | None = None, handle: str = "handle") -> str:
    """``line`` cut to ``max_chars`` with a note of how much was left out; ``total`` is the
    line's real length when ``line`` is already only its beginning, ``at`` the line's first
    character in the whole text (then the note says where to read on, by character)."""
    total = len(line) if total is None else total
    if total <= max_chars:
        return line
    where = "" if at is None else f'; read on with ctx_read("{handle}", offset={at + max_chars}, unit="chars")'
    return line[:max_chars] + f" [... line clipped: {total - max_chars:,} more chars{where}]"


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
    head_at = 0  # the first character of the line being read, in the whole text
    end = offset + limit

    def emit(n: int, text: str, total: int) -> bool:
        nonlocal size
        entry = f"{n}: {clip(text, max_line_chars, total, head_at, info.blob_id)}"
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
                if not head_len:
                    head_at = chunk.first_char + pos
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


def read_chars(store: BlobStore, info: BlobInfo, offset: int, limit: int) -> str:
    """Characters ``offset .. offset + limit - 1`` of the stored text, exactly (newlines
    included); the chunks before the one holding ``offset`` are streamed past, not kept."""
    out: list[str] = []
    need = limit
    for chunk in store.iter_blob(info.blob_id, 0):
        text = chunk.text
        if chunk.first_char + len(text) <= offset:
            continue
        piece = text[max(0, offset - chunk.first_char) :][:need]
        out.append(piece)
        need -= len(piece)
        if need <= 0:
            break
    return "".join(out)


def _blocks(store: BlobStore, blob_id: str) -> Iterator[tuple[int, int, str]]:
    """``(number of the first line, its first character, text of whole lines without the final
    newline)`` per chunk; a line split across chunks is joined before it is searched."""
    line_no = 0
    at = 0
    carry = ""
    for chunk in store.iter_blob(blob_id, 0):
        text = chunk.text
        last = text.rfind("\n")
        if last < 0:
            carry += text
            continue
        block = carry + text[:last] if carry else text[:last]
        yield line_no, at, block
        line_no += block.count("\n") + 1
        at += len(block) + 1
        carry = text[last + 1 :]
    if carry:
        yield line_no, at, carry


def _starts(first_char: int, lines: list[str]) -> list[int]:
    """The first character of each of ``lines`` (consecutive lines from ``first_char``)."""
    out = [first_char]
    for line in lines[:-1]:
        out.append(out[-1] + len(line) + 1)
    return out


def grep(
    store: BlobStore,
    info: BlobInfo,
    pattern: str,
    *,
    context: int,
    max_matches: int,
    max_line_chars: int,
    window: int | None = None,
    scan: Scan | None = None,
) -> tuple[list[str], int]:
    """grep-style output (``N: match``, ``N- context``, ``--`` between groups) and the number of
    matching lines found (at most ``max_matches``). A matching line longer than
    ``max_line_chars`` is shown as windows of ``window`` chars (default: that many) around its
    matches (``grep_windows``),
    each ``N: [chars A-B] …text…`` with A and B offsets in the whole text; a context line that
    long is clipped, saying where to read on. Raises ValueError for a bad pattern."""
    kernels.grep_lines("", pattern, 1)  # a bad pattern fails before any chunk is read
    scan = Scan() if scan is None else scan
    width = max_line_chars if window is None else window
    shown: dict[int, tuple[str, int]] = {}  # line -> (text, first character in the whole text)
    matched: list[int] = []
    tail: deque[tuple[int, str, int]] = deque(maxlen=max(context, 1))
    pending_after = 0  # context lines still owed from a match at the end of the last block
    for first, at, block in _blocks(store, info.blob_id):
        if pending_after:
            head = block.split("\n", pending_after)[:pending_after]
            for k, (t, a) in enumerate(zip(head, _starts(at, head))):
                shown.setdefault(first + k, (t, a))
            pending_after = max(0, pending_after - len(head))
        if len(matched) < max_matches:
            hits = kernels.grep_lines(block, pattern, max_matches - len(matched))
        else:
            hits = []
        if hits:
            lines = block.split("\n")
            starts = _starts(at, lines)
            for i in hits:
                matched.append(first + i)
                for j in range(i - context, i + context + 1):
                    if 0 <= j < len(lines):
                        shown[first + j] = (lines[j], starts[j])
                    elif j < 0:
                        for n, t, a in tail:
                            if n == first + j:
                                shown.setdefault(n, (t, a))
                pending_after = max(pending_after, i + context - (len(lines) - 1))
        if len(matched) >= max_matches and not pending_after:
            break
        if context:
            last_lines = block.rsplit("\n", context)[-context:]
            n_lines = block.count("\n") + 1
            lead = at + len(block) - len("\n".join(last_lines))
            for k, (t, a) in enumerate(zip(last_lines, _starts(lead, last_lines))):
                tail.append((first + n_lines - len(last_lines) + k, t, a))
    match_set = set(matched)
    out: list[str] = []
    prev = None
    for n in sorted(shown):
        if prev is not None and n != prev + 1:
            out.append("--")
        text, a = shown[n]
        if n in match_set and len(text) > max_line_chars:
            out.extend(_windowed(n, text, a, pattern, width, max_matches, scan, info.blob_id))
        else:
            out.append(f"{n}{':' if n in match_set else '-'} {clip(text, max_line_chars, at=a, handle=info.blob_id)}")
        prev = n
    return out, len(matched)


def _windowed(
    n: int, text: str, at: int, pattern: str, width: int, max_windows: int, scan: Scan, handle: str
) -> list[str]:
    found, stopped = windows(text, pattern, width, max_windows, scan)
    out = []
    for a, b in found:
        left = "…" if a > 0 else ""
        right = "…" if b < len(text) else ""
        out.append(f"{n}: [chars {at + a}-{at + b - 1}] {left}{text[a:b]}{right}")
    if stopped is not None:
        out.append(
            f"{n}: [the search for windows stopped at char {at + stopped} (it examines at most "
            f'{SCAN_CHARS:,} chars per call): read on with ctx_read("{handle}", offset={at + stopped}, unit="chars")]'
        )
    elif len(found) == max_windows:
        nxt = at + found[-1][1]
        out.append(
            f"{n}: [more matches may follow char {nxt}: raise max_matches, narrow the pattern, or read on with "
            f'ctx_read("{handle}", offset={nxt}, unit="chars")]'
        )
    return out
