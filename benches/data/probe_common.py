"""What every probe-corpus module shares: reading installed files under a logical name (so the
manifest can tell whether this machine still has the bytes the corpus was built from), cutting
long text into documents, and the document record itself.

A logical name is ``<root>:<relative path>``: ``stdlib:`` (this Python's library directory),
``site:`` (site-packages), ``usr:`` (``/usr``), ``rustup:`` (the stable toolchain's
``share/doc/rust/html``). Paths never embed the machine's home or Python version.
"""

from __future__ import annotations

import gzip
import hashlib
import random
import sysconfig
from pathlib import Path

MIN_BYTES = 200
MAX_BYTES = 20_000

ROOTS = {
    "stdlib": Path(sysconfig.get_paths()["stdlib"]),
    "site": Path(sysconfig.get_paths()["purelib"]),
    "usr": Path("/usr"),
    "rustup": Path.home() / ".rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html",
}


class SourceMissing(LookupError):
    """An installed file the corpus is built from is absent (or, for the manifest check, differs)."""


class Sources:
    """Reads installed files and remembers the SHA-256 of each one read, by logical name."""

    def __init__(self) -> None:
        self.read: dict[str, str] = {}
        self._cache: dict[str, bytes] = {}

    def path(self, name: str) -> Path:
        root, _, rel = name.partition(":")
        if root not in ROOTS or not rel:
            raise ValueError(f"probe source {name!r}: expected <root>:<path> with root in {sorted(ROOTS)}")
        return ROOTS[root] / rel

    def bytes(self, name: str) -> bytes:
        if name in self._cache:
            return self._cache[name]
        p = self.path(name)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise SourceMissing(f"probe source {name} ({p}) is not readable: {exc}") from None
        self.read[name] = hashlib.sha256(data).hexdigest()
        self._cache[name] = gzip.decompress(data) if name.endswith(".gz") else data
        return self._cache[name]

    def text(self, name: str, encoding: str = "utf-8") -> str:
        return self.bytes(name).decode(encoding)

    def glob(self, name: str) -> list[str]:
        """Logical names matching a glob (``site:botocore/data/*/*/examples-1.json``), sorted."""
        root, _, pattern = name.partition(":")
        base = ROOTS[root]
        found = sorted(f"{root}:{p.relative_to(base).as_posix()}" for p in base.glob(pattern) if p.is_file())
        if not found:
            raise SourceMissing(f"probe sources {name} ({base / pattern}): nothing matches")
        return found


def doc(text: str, category: str, source: str) -> dict[str, str]:
    return {"text": text, "category": category, "source": source}


def fit_size(text: str, limit: int = MAX_BYTES) -> str:
    """``text`` cut at its last line break within ``limit`` UTF-8 bytes (agents truncate long
    tool results the same way), or at a character boundary when no line break is there."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    head = raw[:limit].decode("utf-8", "ignore")
    cut = head.rfind("\n")
    return head[: cut + 1] if cut > limit // 2 else head


def chunks(rng: random.Random, text: str, n: int, lo: int = 600, hi: int = 9000) -> list[str]:
    """Up to ``n`` pieces of ``text``, each starting at a line start and ``lo``-``hi`` characters
    long (the length drawn per piece), spread over the whole text rather than only its head."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    total = starts[-1]
    out: list[str] = []
    if total <= lo:
        return [text] if text.strip() else []
    stride = max(1, total // n)
    for k in range(n):
        want = rng.randint(lo, hi)
        first = k * stride + rng.randrange(max(1, stride // 3))
        i = next((j for j, s in enumerate(starts) if s >= first), len(lines))
        piece = []
        size = 0
        while i < len(lines) and size < want:
            piece.append(lines[i])
            size += len(lines[i])
            i += 1
        body = "".join(piece)
        if len(body.encode("utf-8")) >= 200 and body not in out:
            out.append(body)
    return out
