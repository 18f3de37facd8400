"""The code a reader would copy from the project's Markdown: fenced blocks and inline commands.

Read at collection time from README.md and every ``docs/**/*.md``, so a page or block added
later is tested without touching the tests. The conventions are described in
``tests/docs/test_doc_commands.py``. Parsing uses markdown-it-py (what ``rich`` renders Markdown
with), so fences inside lists, tildes and code spans broken over two lines are read the way a
renderer reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]

SHELL_LANGS = frozenset({"bash", "sh", "shell", "console"})
# languages whose blocks are data or output, not something to run (yaml and json are parsed)
DATA_LANGS = frozenset({"yaml", "yml", "json", "toml", "text", "txt", "ini", "diff", "jsonl", "markdown", "md"})
KNOWN_LANGS = SHELL_LANGS | DATA_LANGS | {"python"}

# a code span that starts with one of these words and an argument is a command a reader would
# copy (a bare `python` or `make` names the tool); a script under .ci/ is a command on its own
COMMAND = re.compile(
    r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*"  # leading VAR=value assignments
    r"(?:(?:ctxsieve|python3?|pytest|make|pip3?|bash|sh|cargo|maturin)\s+\S|\.ci/\S+)"
)
NORUN = re.compile(r"^<!--\s*norun:\s*(?P<reason>.*?)\s*-->\s*$", re.S)
_MD = MarkdownIt("commonmark").enable("table")


@dataclass(frozen=True)
class Block:
    """A fenced block (``lang`` is its info string's first word) or an inline command
    (``lang == "inline"``); ``line`` is 1-based, ``norun`` the reason of a norun comment."""

    page: str
    line: int
    lang: str
    text: str
    norun: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def is_shell(self) -> bool:
        return self.lang in SHELL_LANGS or self.lang == "inline"


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@cache
def page_blocks(page: Path) -> tuple[Block, ...]:
    return parse_blocks(page.read_text(encoding="utf-8"), page.relative_to(ROOT).as_posix())


def parse_blocks(source: str, name: str) -> tuple[Block, ...]:
    """The fenced blocks and inline commands of one Markdown text, in page order."""
    lines = source.splitlines()
    tokens = _MD.parse(source)
    out: list[Block] = []
    for i, tok in enumerate(tokens):
        if tok.type == "fence" and tok.map:
            prev = tokens[i - 1] if i else None
            norun = NORUN.match(prev.content.strip()) if prev is not None and prev.type == "html_block" else None
            lang = tok.info.split()[0].lower() if tok.info.strip() else ""
            out.append(Block(name, tok.map[0] + 1, lang, tok.content, norun["reason"] if norun else None))
        elif tok.type == "inline" and tok.map and tok.children:
            for child in tok.children:
                if child.type == "code_inline" and COMMAND.match(child.content):
                    line = _line_of(child.content, lines, tok.map[0], tok.map[1])
                    out.append(Block(name, line, "inline", child.content))
    return tuple(out)


def all_blocks() -> list[Block]:
    return [b for page in pages() for b in page_blocks(page)]


def stray_norun_comments(source: str, name: str) -> list[str]:
    """norun comments that do not sit right before a fenced block (they would silently do nothing)."""
    tokens = _MD.parse(source)
    stray = []
    for i, tok in enumerate(tokens):
        if tok.type == "html_block" and "norun" in tok.content and tok.map:
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if not NORUN.match(tok.content.strip()) or following is None or following.type != "fence":
                stray.append(f"{name}:{tok.map[0] + 1}")
    return stray


def _line_of(span: str, lines: list[str], start: int, end: int) -> int:
    first = span.split()[0] if span.split() else span
    for n in range(start, end):
        if f"`{first}" in lines[n]:
            return n + 1
    return start + 1


def commands(block: Block) -> list[str]:
    """The commands of a shell block, one per logical line (backslash continuations joined,
    blank and comment-only lines dropped); in a ``console`` block only the ``$ `` lines."""
    if block.lang == "inline":
        return [block.text.strip()]
    out: list[str] = []
    pending = ""
    for raw in block.text.splitlines():
        line = raw.rstrip()
        if block.lang == "console":
            if pending:
                line = line.lstrip("> ")
            elif line.startswith("$ "):
                line = line[2:]
            else:
                continue
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if pending:
            line = line.lstrip()
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        out.append(_TRAILING_COMMENT.sub("", pending + line).strip())
        pending = ""
    if pending:
        out.append(_TRAILING_COMMENT.sub("", pending).strip())
    return out


# a trailing "  # ..." comment, left off so that patterns match the command itself (bash would
# ignore it anyway); a "#" inside quotes or a URL fragment is not preceded by whitespace
_TRAILING_COMMENT = re.compile(r"\s+#[^'\"]*$")


def expected_output(block: Block) -> list[str]:
    """The output lines shown in a ``console`` block (a line ``...`` stands for anything)."""
    if block.lang != "console":
        return []
    shown, continuing = [], False
    for line in block.text.splitlines():
        if line.startswith("$ ") or (continuing and line.startswith("> ")):
            continuing = line.rstrip().endswith("\\")
            continue
        continuing = False
        if line.strip() and line.strip() != "...":
            shown.append(line.strip())
    return shown
