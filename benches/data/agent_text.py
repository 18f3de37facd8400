"""Text-file sources of the agent corpus (``agent_corpus.py``): code, prose and translations
read from files that installed packages ship. Nothing is downloaded.

* Natural languages: the gettext catalogs (``/usr/share/locale/<lang>/LC_MESSAGES/*.mo``) that
  Debian packages install: the translated messages of git, coreutils, apt, dpkg, glib, gtk,
  bash, grep, ... . Real sentences by real translators, with the ``%s``, ``--flag`` and path
  fragments that command-line messages hold; the source label is the catalog (``git``,
  ``glib20``), so a split by source puts one program's messages on one side only.
* English prose: ``pydoc_data.topics`` (the Python reference manual) and the docstrings of the
  standard library's modules.
* Code: files of each language found under the roots in ``CODE_ROOTS`` (CPython's standard
  library, ``/usr/include``, the cargo registry's crate sources, npm's sources, Perl's library,
  PostgreSQL's extension scripts, Tcl/Tk's library, ...); the source label is the package or
  directory the file belongs to.

Every generator takes a seeded ``random.Random`` and yields documents forever; files are
listed in sorted order, so the same machine image gives the same corpus.
"""

from __future__ import annotations

import gettext
import random
import re
import sysconfig
from collections.abc import Iterator
from functools import cache
from pathlib import Path

LOCALE = Path("/usr/share/locale")
Doc = tuple[str, str]  # (source label, text)


def length(rng: random.Random) -> int:
    """Target size in characters: many short documents (tool results, chat turns), some long."""
    return int(rng.choice((60, 150, 300, 600, 1200, 2500, 5000)) * rng.uniform(0.7, 1.3))


@cache
def catalog(lang: str) -> dict[str, list[str]]:
    """Translated messages of ``lang`` per catalog (domain): msgstr that differ from msgid."""
    out: dict[str, list[str]] = {}
    folder = LOCALE / lang / "LC_MESSAGES"
    for mo in sorted(folder.glob("*.mo")) if folder.is_dir() else []:
        if mo.stem.startswith("iso_"):
            continue  # lists of country and language names, not sentences
        try:
            with open(mo, "rb") as f:
                entries = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
        except (OSError, UnicodeDecodeError):  # a broken or foreign file: skip it
            continue
        msgs = [
            v.strip()
            for k, v in sorted(entries.items(), key=lambda kv: str(kv[0]))
            if isinstance(v, str) and k and (k[0] if isinstance(k, tuple) else k) != v and len(v.strip()) > 3
        ]
        if len(msgs) >= 20:
            out[mo.stem] = msgs
    return out


@cache
def english_messages() -> dict[str, list[str]]:
    """The English originals (msgid) of the Spanish catalogs, per catalog."""
    out: dict[str, list[str]] = {}
    folder = LOCALE / "es" / "LC_MESSAGES"
    for mo in sorted(folder.glob("*.mo")):
        if mo.stem.startswith("iso_"):
            continue
        with open(mo, "rb") as f:
            entries = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
        msgs = sorted({(k[0] if isinstance(k, tuple) else k).strip() for k in entries if k})
        msgs = [m for m in msgs if len(m) > 3]
        if len(msgs) >= 20:
            out[mo.stem] = msgs
    return out


def _chunk(rng: random.Random, msgs: list[str], joiners: tuple[str, ...]) -> str:
    """Consecutive messages from a random place, joined, about ``length`` characters."""
    i, target, out = rng.randrange(len(msgs)), length(rng), []
    joiner = rng.choice(joiners)
    while sum(map(len, out)) < target:
        out.append(msgs[i % len(msgs)])
        i += 1
    return joiner.join(out)


def translations(langs: tuple[str, ...]) -> object:
    def gen(rng: random.Random) -> Iterator[Doc]:
        pools = [(lang, dom, msgs) for lang in langs for dom, msgs in catalog(lang).items()]
        if not pools:
            raise RuntimeError(f"no gettext catalog installed for {langs}")
        while True:
            _, dom, msgs = rng.choice(pools)
            yield dom, _chunk(rng, msgs, ("\n", "\n\n", " ", "\n- "))

    return gen


def english(rng: random.Random) -> Iterator[Doc]:
    from pydoc_data.topics import topics

    paragraphs = [p.strip() for k in sorted(topics) for p in topics[k].split("\n\n") if len(p.strip()) > 40]
    docstrings = _docstrings()
    messages = english_messages()
    while True:
        r = rng.random()
        if r < 0.4:
            yield "pydoc_topics", _chunk(rng, paragraphs, ("\n\n",))
        elif r < 0.8:
            mod = rng.choice(sorted(docstrings))
            yield f"docstring:{mod}", _chunk(rng, docstrings[mod], ("\n\n",))
        else:
            dom = rng.choice(sorted(messages))
            yield f"gettext_en:{dom}", _chunk(rng, messages[dom], ("\n", " "))


@cache
def _docstrings() -> dict[str, list[str]]:
    """Docstrings of the standard library's top-level modules, by a static read (no import)."""
    import ast

    out: dict[str, list[str]] = {}
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.glob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        docs = [
            ast.get_docstring(node) or ""
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        docs = [d for d in docs if len(d) > 60]
        if len(docs) >= 3:
            out[path.stem] = docs
    return out


_STDLIB = Path(sysconfig.get_paths()["stdlib"])
_CARGO = sorted(Path.home().glob(".cargo/registry/src/*"))
# language -> (root folders, file suffixes); a file's source label is its first folder below
# the root (the crate, the package, the include subdirectory)
CODE_ROOTS: dict[str, tuple[tuple[Path, ...], tuple[str, ...]]] = {
    "python": ((_STDLIB,), (".py",)),
    "c": ((Path("/usr/include"),), (".h",)),
    "cpp": ((Path("/usr/include/c++"),), (".hpp", ".h", ".tcc", "")),
    "rust": (tuple(_CARGO), (".rs",)),
    "javascript": ((Path("/usr/lib/node_modules"),), (".js", ".mjs", ".cjs")),
    "perl": ((Path("/usr/share/perl"), Path("/usr/share/perl5")), (".pm", ".pl")),
    "sql": ((Path("/usr/share/postgresql"),), (".sql",)),
    "shell": ((Path("/usr/lib/perf-core"), Path("/usr/share/doc/git"), Path("/usr/bin"), Path("/etc")), (".sh", "")),
    "tcl": ((Path("/usr/share/tcltk"),), (".tcl",)),
    "config": ((*_CARGO, Path("/usr/lib/google-cloud-sdk/lib")), (".toml", ".yaml", ".yml")),
    "markup": ((Path("/usr/share/source-highlight"), Path("/usr/share/doc")), (".css", ".html", ".xml")),
    "cmake": ((Path("/usr/lib/llvm-14/lib/cmake"), Path("/usr/lib/x86_64-linux-gnu/cmake")), (".cmake",)),
}
MAX_FILES = 4000  # per language: enough variety, and a bounded walk of large trees
_SHEBANG = re.compile(rb"^#!\s*\S*(sh|bash|dash)\b")


@cache
def code_files(lang: str) -> tuple[tuple[str, Path], ...]:
    roots, suffixes = CODE_ROOTS[lang]
    found: list[tuple[str, Path]] = []
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if len(found) >= MAX_FILES:
                break
            if path.suffix not in suffixes or not path.is_file() or "test" in path.parts[-1].lower():
                continue
            if path.suffix == "" and not _is_text_of(lang, path):
                continue
            found.append((f"{lang}:{_label(path.relative_to(root).parts, root)}", path))
    return tuple(found)


def _label(rel: tuple[str, ...], root: Path) -> str:
    """The package a file belongs to: its first folder below the root, or its first two when
    the first holds the whole tree (``12/bits``, ``npm/node_modules``), or, for files lying
    directly in the root, the stem before ``--`` (PostgreSQL's ``hstore--1.4.sql``)."""
    if len(rel) == 1:
        return rel[0].split("--")[0].split(".")[0] if "--" in rel[0] else root.name
    if rel[0] in ("12", "npm", "15", "5.36.0") and len(rel) > 2:
        return "/".join(rel[:2] if rel[1] != "node_modules" or len(rel) < 4 else rel[:3])
    return rel[0]


def _is_text_of(lang: str, path: Path) -> bool:
    """A suffix-less file counts as C++ (``/usr/include/c++/12/vector``) or as a shell script
    when its first line says so."""
    try:
        head = path.open("rb").read(200)
    except OSError:
        return False
    if lang == "shell":
        return bool(_SHEBANG.match(head))
    return lang == "cpp" and b"\0" not in head and (b"#" in head or b"//" in head)


def code(lang: str) -> object:
    def gen(rng: random.Random) -> Iterator[Doc]:
        files = code_files(lang)
        if not files:
            raise RuntimeError(f"no {lang} file under {CODE_ROOTS[lang][0]}")
        while True:
            source, path = files[rng.randrange(len(files))]
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            if len(lines) < 8:
                continue
            start = rng.randrange(max(1, len(lines) - 5))
            out: list[str] = []
            target = length(rng)
            for line in lines[start:]:
                out.append(line)
                if sum(map(len, out)) >= target:
                    break
            text = "\n".join(out)
            if text.strip():
                yield source, text

    return gen
