"""The identifiers a stretch of conversation mentions: ids, paths, URLs, error codes, versions,
dates, hashes and numbers with units, found deterministically so a summary cannot lose them.

A compaction replaces old turns with a model-written summary; a summariser that forgets
``ORD-4471`` or ``src/billing/refund.py`` loses them for good. The compaction therefore lists
what this module finds in the dropped messages next to the summary, whatever the summariser
wrote.

Cost is linear in the text: the text is split once on a character class (whitespace, quotes,
brackets, commas: ``re.split`` with one class and ``+`` scans each character once), and each
piece of at most ``MAX_TOKEN`` characters is matched against anchored patterns whose repeated
groups start with a separator their body cannot contain (so no pattern can backtrack over a
piece more than a bounded number of times). Longer pieces (a base64 blob, a minified line) are
not identifiers and are skipped unread.

>>> identifiers(["Order ORD-4471 failed with E1042 at https://shop.example/o/4471, see src/refund.py (took 350 ms)."])
('ORD-4471', 'E1042', 'https://shop.example/o/4471', 'src/refund.py', '350 ms')
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ctxsieve.messages.model import Message

MAX_TOKEN = 256  # longer pieces are data, not identifiers
_SPLIT = re.compile(r"[\s\"'`<>()\[\]{},;|]+")
_TRIM_END = ".:!?*"
_TRIM_START = ":*"

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s]+")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# a path: segments of name characters separated by / or \ (the separator is never part of a
# segment, so the repetition cannot backtrack)
_PATH = re.compile(r"(?:[A-Za-z]:)?[\\/]?(?:[\w.@~+-]+[\\/])*[\w.@~+-]+[\\/]?")
_FILE = re.compile(r"[\w-]{2,}(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,7}")
_ID = re.compile(r"[A-Za-z0-9]+(?:[-_#:/.][A-Za-z0-9]+)+")
_CODE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{1,6}[0-9]{2,}|0x[0-9A-Fa-f]+|#[0-9]+")
_HEX = re.compile(r"[0-9a-f]{7,64}")
_VERSION = re.compile(r"v[0-9]+(?:\.[0-9]+)*|[0-9]+\.[0-9]+\.[0-9]+(?:\.[0-9]+)?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9:.]+Z?)?")
_NUMBER = re.compile(r"[$€£]?[0-9][0-9,]*(?:\.[0-9]+)?")
_NUMBER_UNIT = re.compile(r"([$€£]?[0-9][0-9,]*(?:\.[0-9]+)?)(%|[A-Za-z/°]{1,8})")
UNITS = frozenset(
    "% ms us ns s sec secs second seconds min mins minute minutes h hr hrs hour hours day days week weeks "
    "month months year years b kb mb gb tb pb kib mib gib tib byte bytes bit bits kbps mbps gbps "
    "token tokens k px pt em rem kg g mg lb lbs km m cm mm mi ft °c °f c usd eur gbp cents "
    "rps qps fps hz khz mhz ghz v w kw kwh mah x req/s ops/s".split()
)


def _has_digit(s: str) -> bool:
    return any(c.isdigit() for c in s)


def _has_alpha(s: str) -> bool:
    return any(c.isalpha() for c in s)


def _kind(tok: str) -> bool:
    """Whether one trimmed piece is an identifier."""
    if _URL.fullmatch(tok) or _EMAIL.fullmatch(tok) or _DATE.fullmatch(tok) or _VERSION.fullmatch(tok):
        return True
    if _CODE.fullmatch(tok):
        return True
    if ("/" in tok or "\\" in tok) and _PATH.fullmatch(tok) and _has_alpha(tok):
        # a path opens at a root (/, ~/, ./, C:\), has two separators or names a file;
        # "and/or" does not count
        rooted = tok[0] in "/\\~." or tok[1:3] == ":\\"
        return rooted or tok.count("/") + tok.count("\\") >= 2 or bool(_FILE.fullmatch(re.split(r"[\\/]", tok)[-1]))
    if _FILE.fullmatch(tok):
        return True
    if _HEX.fullmatch(tok) and _has_digit(tok) and _has_alpha(tok):
        return True
    if _ID.fullmatch(tok) and _has_digit(tok) and _has_alpha(tok):
        return True
    m = _NUMBER_UNIT.fullmatch(tok)
    return bool(m and (m.group(2).lower() in UNITS)) or bool(tok[:1] in "$€£" and _NUMBER.fullmatch(tok))


def text_identifiers(text: str) -> list[str]:
    """The identifiers in ``text``, in order of appearance (repeats included)."""
    found: list[str] = []
    pieces = [p.rstrip(_TRIM_END).lstrip(_TRIM_START) for p in _SPLIT.split(text)]
    for i, tok in enumerate(pieces):
        if not tok or len(tok) > MAX_TOKEN:
            continue
        if _kind(tok):
            found.append(tok)
        elif _NUMBER.fullmatch(tok) and i + 1 < len(pieces) and pieces[i + 1].lower() in UNITS:
            found.append(f"{tok} {pieces[i + 1]}")  # "350 ms": a number and its unit
    return found


def identifiers(texts: Iterable[str], *, limit: int | None = None) -> tuple[str, ...]:
    """The distinct identifiers of ``texts``, first appearance first, at most ``limit``."""
    seen: dict[str, None] = {}
    for text in texts:
        for tok in text_identifiers(text):
            seen.setdefault(tok)
            if limit is not None and len(seen) >= limit:
                return tuple(seen)
    return tuple(seen)


def message_texts(messages: Iterable[Message]) -> list[str]:
    """What a message says that may hold identifiers: its text, each tool call's name and
    arguments, each tool result's text (not the provider's call ids: they name nothing the
    task is about)."""
    out: list[str] = []
    for m in messages:
        if m.role != "tool" and m.text:
            out.append(m.text)
        out += [f"{c.name} {c.arguments}" for c in m.tool_calls]
        out += [r.text for r in m.tool_results if r.text]
    return out


def message_identifiers(messages: Iterable[Message], *, limit: int | None = None) -> tuple[str, ...]:
    """``identifiers`` of what ``messages`` say (``message_texts``)."""
    return identifiers(message_texts(messages), limit=limit)


__all__ = ["MAX_TOKEN", "UNITS", "identifiers", "message_identifiers", "message_texts", "text_identifiers"]
