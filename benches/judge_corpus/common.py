"""Shared helpers of the judge corpus: seeded sizes, growing a document to a size, and reading
material that installed packages ship (never the network).

Every generator is ``gen(rng, target) -> (source, text)``: ``rng`` is seeded by the category and
the document's number, ``target`` the UTF-8 size in bytes to reach (the builder clips documents to
``MAX_BYTES`` at a line end). Nothing here may depend on hash order, the clock or the environment
beyond the files it names, so the same machine image gives the same bytes.
"""

from __future__ import annotations

import json
import random
import sysconfig
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

MIN_BYTES = 200
MAX_BYTES = 20_000

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SITE = Path(sysconfig.get_paths()["purelib"])

# The packages whose files (or generated output) the corpus contains; the builder records their
# versions next to the corpus so the regeneration test can tell "other image" from "bug".
PACKAGES = (
    "awscli",
    "botocore",
    "certifi",
    "genai-prices",
    "matplotlib",
    "pygments",
    "sympy",
    "pyyaml",
    "requests",
    "click",
    "jinja2",
    "werkzeug",
    "rich",
    "httpx",
    "pydantic",
    "networkx",
    "attrs",
)

Gen = Callable[[random.Random, int], tuple[str, str]]


def versions() -> dict[str, str]:
    """The Python version and the version of every package the corpus reads."""
    out = {"python": sysconfig.get_python_version() + "/" + ".".join(map(str, __import__("sys").version_info[:3]))}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def target_size(rng: random.Random) -> int:
    """Log-uniform between 300 B and 18 KB: many short tool results, some long ones."""
    return round(300 * (60 ** rng.random()))


def fill(rng: random.Random, target: int, piece: Callable[[random.Random], str], sep: str = "\n") -> str:
    """Pieces joined by ``sep`` until the text reaches ``target`` bytes."""
    parts: list[str] = []
    size = 0
    while size < target:
        p = piece(rng)
        parts.append(p)
        size += nbytes(p) + len(sep)
    return sep.join(parts)


def grow_json(
    rng: random.Random, target: int, item: Callable[[random.Random, int], object], indent: int | None = 2
) -> list[object]:
    """Items ``item(rng, i)`` until their JSON (as dumped with ``indent``) reaches ``target`` bytes."""
    items: list[object] = []
    size = 0
    while size < target:
        obj = item(rng, len(items))
        items.append(obj)
        size += nbytes(json.dumps(obj, ensure_ascii=False, indent=indent)) + 2
    return items


def clip(text: str, limit: int = MAX_BYTES) -> str:
    """``text`` cut at the last line end within ``limit`` UTF-8 bytes (at a character boundary
    when no line end is in reach)."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    head = raw[:limit].decode("utf-8", "ignore")
    cut = head.rfind("\n")
    return head[:cut] if cut > limit // 2 else head


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def listing(root: Path, pattern: str) -> list[Path]:
    """Files under ``root`` matching ``pattern``, sorted (the file system's order is not stable)."""
    return sorted(p for p in root.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts)


def chunk(rng: random.Random, text: str, target: int) -> str:
    """A run of whole lines of ``text`` about ``target`` bytes long, starting at a random line."""
    lines = text.splitlines()
    if not lines:
        return text
    start = rng.randrange(len(lines))
    out: list[str] = []
    size = 0
    i = start
    while size < target and len(out) < len(lines):
        out.append(lines[i % len(lines)])
        size += nbytes(out[-1]) + 1
        i += 1
    return "\n".join(out)


def hexid(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uuid4(rng: random.Random) -> str:
    h = hexid(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def iso_time(rng: random.Random, year: int = 2025, frac: bool = True) -> str:
    m, d, hh, mm, ss = (
        rng.randint(1, 12),
        rng.randint(1, 28),
        rng.randint(0, 23),
        rng.randint(0, 59),
        rng.randint(0, 59),
    )
    tail = f".{rng.randint(0, 999_999):06d}" if frac and rng.random() < 0.5 else ""
    zone = rng.choice(["Z", "+00:00", "+02:00", "-07:00", "+09:00", "+05:30"])
    return f"{year}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}{tail}{zone}"


def epoch(rng: random.Random, unit: str = "s") -> int:
    base = rng.randint(1_600_000_000, 1_790_000_000)
    return base * {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}[unit] + rng.randint(
        0, {"s": 0, "ms": 999, "us": 999_999, "ns": 999_999_999}[unit]
    )
