"""Reading a corpus file row by row: typed fields, unknown fields and lone surrogates reported as
``CorpusError`` with the file, the line and the field (``ctxsieve.eval.corpus`` builds the corpus
from these rows).
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from ctxsieve.errors import ContextError


class CorpusError(ContextError, ValueError):
    """A corpus file that cannot be used; ``path``, ``line`` (1-based, 0 for the whole file)
    and ``field`` say where."""

    def __init__(self, path: Path | str, line: int, field: str, problem: str):
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: field {field!r}: {problem}" if field else f"{where}: {problem}")
        self.path = str(path)
        self.line = line
        self.field = field


def read_file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CorpusError(path, 0, "", "file not found") from None
    except UnicodeDecodeError as exc:
        raise CorpusError(path, 0, "", f"not UTF-8 ({exc.reason})") from None
    except OSError as exc:  # a directory by that name, no permission: where, not a traceback
        raise CorpusError(path, 0, "", f"cannot read: {exc.strerror or exc}") from None


def json_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    text = read_file(path)
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(path, n, "", f"not valid JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(row, dict):
            raise CorpusError(path, n, "", f"expected a JSON object, got {type(row).__name__}")
        check_unicode(path, n, row)
        out.append((n, row))
    return out


def check_unicode(path: Path, line: int, row: dict[str, Any]) -> None:
    """A ``\\ud800`` escape in JSON decodes to half a surrogate pair, which no UTF-8 file, prompt
    or native kernel can hold: say where, rather than fail later with a traceback."""
    for name, value in row.items():
        for text in [name, *(value if isinstance(value, list) else [value])]:
            if not isinstance(text, str):
                continue
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                bad = f"\\u{ord(text[exc.start]):04x}"
                problem = f"lone surrogate {bad} at character {exc.start}: not valid Unicode (half of an escaped pair?)"
                raise CorpusError(path, line, str(name), problem) from None


class FieldReader:
    """Typed access to one JSONL object, raising ``CorpusError`` with its position; a field not
    in ``known`` is an error."""

    def __init__(self, path: Path, line: int, row: dict[str, Any], known: tuple[str, ...]):
        self.path, self.line, self.row = path, line, row
        for name in row:
            if name not in known:
                near = difflib.get_close_matches(str(name).replace("-", "_").lower(), known, n=1, cutoff=0.5)
                hint = f" (did you mean {near[0]!r}?)" if near else f" (known: {', '.join(known)})"
                raise self.error(str(name), "unknown" + hint)

    def error(self, name: str, problem: str) -> CorpusError:
        return CorpusError(self.path, self.line, name, problem)

    def text(self, name: str, default: str | None = None, choices: tuple[str, ...] = ()) -> str:
        value = self.row.get(name, default)
        if value is None:
            raise self.error(name, "missing (required)")
        if not isinstance(value, str) or (not value.strip() and default is None):
            raise self.error(name, f"expected a non-empty string, got {value!r:.60}")
        if choices and value not in choices:
            raise self.error(name, f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    def opt_text(self, name: str) -> str | None:
        value = self.row.get(name)
        if value is not None and not isinstance(value, str):
            raise self.error(name, f"expected a string or null, got {type(value).__name__}")
        return value

    def texts(self, name: str, required: bool) -> list[str]:
        if name not in self.row:
            if required:
                raise self.error(name, "missing (required; use [] for none)")
            return []
        value = self.row[name]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(name, "expected a list of non-empty strings")
        return value

    def requirements(self, name: str) -> list[frozenset[str]]:
        """A ``relevant`` list: each entry a document id (that page is needed) or a list of at
        least two ids (any one of them answers that part). Each requirement is the set of pages
        that satisfy it; an id may appear once in the whole list."""
        if name not in self.row:
            raise self.error(name, "missing (required; use [] for none)")
        value = self.row[name]
        if not isinstance(value, list):
            kind = type(value).__name__
            raise self.error(name, f"expected a list of document ids or of alternative groups, got {kind}")
        out: list[frozenset[str]] = []
        seen: set[str] = set()
        for n, entry in enumerate(value, start=1):
            if isinstance(entry, str) and entry:
                group = [entry]
            elif isinstance(entry, list):
                if not all(isinstance(v, str) and v for v in entry):
                    problem = f"entry {n}: an alternative group holds non-empty strings, got {entry!r:.60}"
                    raise self.error(name, problem)
                if len(entry) < 2:
                    hint = f" (write {entry[0]!r} for a page that is needed)" if entry else ""
                    raise self.error(name, f"entry {n}: an alternative group needs at least two document ids{hint}")
                group = entry
            else:
                raise self.error(
                    name, f"entry {n}: expected a document id or a list of alternative ids, got {entry!r:.60}"
                )
            for doc in group:
                if doc in seen:
                    raise self.error(name, f"entry {n}: document {doc!r} listed twice")
                seen.add(doc)
            out.append(frozenset(group))
        return out

    def integer(self, name: str, default: int) -> int:
        value = self.row.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.error(name, f"expected an integer >= 1, got {value!r}")
        return value
