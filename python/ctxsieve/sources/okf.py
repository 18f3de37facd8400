"""OKF bundles: a folder of markdown concepts with YAML front matter, as two sources.

Each ``*.md`` file under the bundle (except the root ``index.md``) is a concept::

    ---
    title: Refund policy            # required
    description: One line for the index
    tags: [billing, refunds]
    trust: human-reviewed           # any label; "human-reviewed" scores x1.1
    status: active                  # or draft, or deprecated (left out unless asked for)
    review_by: 2026-06-30           # or expires: after this date the concept is stale (x0.7)
    ---
    The body, in markdown.

The concept id is ``id`` from the front matter, else its path without ``.md``. A concept that
cannot be loaded (bad YAML, a missing title, front matter over its bounds: ``FRONT_MATTER_CHARS``
characters, ``FRONT_MATTER_NODES`` nodes after alias expansion, see ``ctxsieve.yaml_bounds``)
is left out and its error, naming the file, goes to ``OKFBundle.errors`` and an
``OKFConceptWarning``; the bundle keeps its other concepts. ``strict=True`` raises instead.
``OKFIndexSource``
proposes the bundle index (the root ``index.md`` body, else a generated list of concepts) as one
pinned stable item; ``OKFSource`` ranks concepts against the query with BM25 (the kernel, so
native when the extension is loaded). Needs PyYAML (extra ``yaml``).
"""

from __future__ import annotations

import datetime as dt
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxsieve import kernels
from ctxsieve.errors import ContextError, MissingExtraError
from ctxsieve.types import ContextItem, Signals, Stability

STATUSES = ("active", "draft", "deprecated")
# front matter is a few lines of metadata: these bounds are far above any real one and keep a
# hostile file's parse to milliseconds
FRONT_MATTER_CHARS = 64 * 1024
FRONT_MATTER_NODES = 10_000


class OKFConceptWarning(UserWarning):
    """A concept file was left out of its bundle; the message names the file and why."""


_FIELDS = {"id", "title", "description", "tags", "trust", "status", "review_by", "expires", "superseded_by"}


@dataclass(frozen=True)
class Concept:
    id: str
    title: str
    description: str
    tags: tuple[str, ...]
    trust: str | None
    status: str
    due: dt.date | None  # review_by or expires: stale after it
    body: str
    path: str

    def is_stale(self, today: dt.date) -> bool:
        return self.due is not None and self.due < today


def _date(value: Any, where: str) -> dt.date | None:
    if isinstance(value, dt.datetime):  # YAML reads "2030-06-30 10:00:00" as a datetime
        return value.date()
    if value is None or isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise ContextError(f"{where}: not an ISO date: {value!r}") from None


def split_front_matter(text: str, where: str) -> tuple[dict[str, Any], str]:
    try:
        import yaml

        from ctxsieve.yaml_bounds import YAMLBoundError
        from ctxsieve.yaml_bounds import load as load_yaml
    except ImportError:
        raise MissingExtraError("yaml", "pyyaml") from None
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        raise ContextError(f"{where}: front matter opened with --- but never closed")
    try:
        bounds = {"max_chars": FRONT_MATTER_CHARS, "max_nodes": FRONT_MATTER_NODES}
        meta = load_yaml(text[3:end], where=f"{where}: front matter", **bounds) or {}
    except YAMLBoundError as exc:
        raise ContextError(str(exc)) from None
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: a date YAML parses, e.g. 2026-13-45
        raise ContextError(f"{where}: invalid YAML front matter: {exc}") from None
    if not isinstance(meta, dict):
        raise ContextError(f"{where}: front matter must be a mapping")
    body = text[end + 4 :].split("\n", 1)[1] if "\n" in text[end + 4 :] else ""
    return meta, body.strip()


def _read(path: Path) -> str:
    try:
        # utf-8-sig: an editor's byte-order mark would hide the front matter ("needs a title")
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ContextError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None


def load_concept(path: Path, root: Path) -> Concept:
    where = str(path)
    meta, body = split_front_matter(_read(path), where)
    unknown = set(meta) - _FIELDS
    if unknown:
        raise ContextError(f"{where}: unknown front matter keys {sorted(unknown, key=str)}")
    if not isinstance(meta.get("title"), str):
        raise ContextError(f"{where}: front matter needs a title")
    for key in ("id", "description", "trust"):
        value = meta.get(key)
        # a number is fine (id: 42); a list or a mapping would become its repr in the prompt
        if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int, float))):
            raise ContextError(f"{where}: {key} must be a string, got {type(value).__name__}")
    status = meta.get("status", "active")
    if status not in STATUSES:
        raise ContextError(f"{where}: status must be one of {', '.join(STATUSES)}, got {status!r}")
    tags = meta.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, (str, int, float)) for t in tags):
        raise ContextError(f"{where}: tags must be a list of strings")
    due = _date(meta.get("review_by"), f"{where}: review_by") or _date(meta.get("expires"), f"{where}: expires")
    return Concept(
        id=str(meta.get("id") or path.relative_to(root).with_suffix("").as_posix()),
        title=meta["title"],
        description=str(meta.get("description") or ""),
        tags=tuple(str(t) for t in tags),
        trust=None if meta.get("trust") is None else str(meta["trust"]),
        status=status,
        due=due,
        body=body,
        path=path.relative_to(root).as_posix(),
    )


class OKFBundle:
    """A loaded bundle; the BM25 index is built once, on the first search.

    ``today`` fixes the date staleness is judged against (default: the current date). A concept
    file that cannot be loaded, or repeats an earlier concept's id, is left out and listed in
    ``errors`` (and warned about with ``OKFConceptWarning``); ``strict=True`` raises
    ``ContextError`` instead, as does a bundle path that is not a directory.
    """

    def __init__(self, path: str | Path, *, today: dt.date | None = None, strict: bool = False):
        self.root = Path(path)
        if not self.root.is_dir():
            raise ContextError(f"OKF bundle {str(self.root)!r}: not a directory")
        self.today = today
        files = sorted(p for p in self.root.rglob("*.md") if p != self.root / "index.md")
        self.concepts: list[Concept] = []
        self.errors: list[str] = []  # one line per concept file left out, naming the file
        for p in files:
            try:
                self.concepts.append(load_concept(p, self.root))
            except MissingExtraError:
                raise  # no file would load: not this file's fault
            except ContextError as exc:
                self._left_out(exc, strict)
        seen: dict[str, str] = {}
        for c in list(self.concepts):
            if c.id in seen:
                self.concepts.remove(c)
                where = f"OKF bundle {str(self.root)!r}"
                self._left_out(ContextError(f"{where}: concept id {c.id!r} in {seen[c.id]} and {c.path}"), strict)
            else:
                seen[c.id] = c.path
        index = self.root / "index.md"
        self.index_text = ""
        if index.exists():
            try:
                self.index_text = split_front_matter(_read(index), str(index))[1]
            except ContextError as exc:  # the generated list of concepts stands in for it
                self._left_out(exc, strict)
        self._bm25: Any = None

    def _left_out(self, exc: ContextError, strict: bool) -> None:
        if strict:
            raise exc
        # one broken file must not take the whole knowledge base offline, nor pass unseen
        self.errors.append(str(exc))
        warnings.warn(f"OKF file left out: {exc}", OKFConceptWarning, stacklevel=3)

    def index(self) -> str:
        """The bundle index: ``index.md``'s body, else one line per concept."""
        if self.index_text:
            return self.index_text
        lines = [f"Knowledge base: {self.root.name}"]
        for c in self.concepts:
            flag = " (deprecated)" if c.status == "deprecated" else ""
            lines.append(f"- {c.id}: {c.title}{flag}" + (f": {c.description}" if c.description else ""))
        return "\n".join(lines)

    def search(self, query: str, limit: int) -> list[tuple[Concept, float]]:
        if self._bm25 is None:
            docs = [" ".join((c.title, c.description, " ".join(c.tags), c.body)) for c in self.concepts]
            self._bm25 = kernels.bm25_index(docs)
        return [(self.concepts[i], s) for i, s in self._bm25.search(query, limit)]

    def item(self, c: Concept, score: float, name: str, stability: Stability) -> ContextItem:
        signals = Signals(
            trust=c.trust,
            stale=c.is_stale(self.today or dt.date.today()),
            deprecated=c.status == "deprecated",
            citation=c.path,
        )
        content = f"{c.title}\n\n{c.body}" if c.body else c.title
        meta = {"title": c.title, "tags": list(c.tags), "status": c.status}
        return ContextItem(c.id, content, name, "knowledge", stability, score=score, signals=signals, meta=meta)


def _bundle(bundle: str | Path | OKFBundle) -> OKFBundle:
    return bundle if isinstance(bundle, OKFBundle) else OKFBundle(bundle)


class OKFIndexSource:
    """The bundle index as one pinned, stable item: the top of every prompt's cached prefix."""

    blocking = False

    def __init__(self, bundle: str | Path | OKFBundle, *, name: str = "okf_index", pinned: bool = True):
        self.bundle = _bundle(bundle)
        self.name = name
        self.item = ContextItem(
            f"{name}:index", self.bundle.index(), name, "knowledge", "stable", score=1.0, pinned=pinned
        )

    def candidates(self, query: str) -> list[ContextItem]:
        return [self.item]


class OKFSource:
    """Whole concepts ranked against the query with BM25, at most ``limit`` of them."""

    blocking = False

    def __init__(
        self,
        bundle: str | Path | OKFBundle,
        *,
        limit: int = 10,
        name: str = "okf",
        stability: Stability = "volatile",
    ):
        self.bundle = _bundle(bundle)
        self.limit = limit
        self.name = name
        self.stability: Stability = stability

    def candidates(self, query: str) -> list[ContextItem]:
        return [self.bundle.item(c, s, self.name, self.stability) for c, s in self.bundle.search(query, self.limit)]
