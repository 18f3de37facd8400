"""Write a corpus out as an OKF-style bundle: one markdown concept per document, with the YAML
front matter ``ctxsieve.sources.okf`` reads, and a short root ``index.md``.

A superseded document becomes ``status: deprecated`` with its ``superseded_by``; current
policies are ``trust: human-reviewed`` (they go through legal review), other pages carry the
team that owns them. ``review_by`` is two years after the page's last update, judged against
``EVAL_TODAY`` so results do not drift with the calendar.

>>> import tempfile
>>> from ctxsieve.eval.corpus import load_corpus
>>> with tempfile.TemporaryDirectory() as d:
...     root = write_bundle(load_corpus(), d)
...     text = (root / "pages" / "pol-refunds-2024.md").read_text(encoding="utf-8")
>>> "status: deprecated" in text and 'superseded_by: "pol-refunds-2025"' in text
True
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from ctxsieve.eval.corpus import Corpus, Document

EVAL_TODAY = dt.date(2026, 11, 29)
REVIEW_AFTER_DAYS = 730
OWNERS = {"policy": "legal", "error": "support-team", "howto": "docs-team"}


def _yaml_str(value: str) -> str:
    # JSON strings are valid YAML flow scalars, and quote whatever needs quoting
    return json.dumps(value, ensure_ascii=False)


def _description(doc: Document) -> str:
    # the first paragraph that is not just the title again (error articles open with it)
    paras = [p.replace("\n", " ").strip() for p in doc.text.split("\n\n") if p.strip()]
    first = next((p for p in paras if p != doc.title), paras[0] if paras else "")
    return first if len(first) <= 140 else first[:137].rsplit(" ", 1)[0] + "..."


def concept_text(doc: Document) -> str:
    lines = ["---", f"id: {_yaml_str(doc.id)}", f"title: {_yaml_str(doc.title or doc.id)}"]
    lines.append(f"description: {_yaml_str(_description(doc))}")
    lines.append(f"tags: [{', '.join(_yaml_str(t) for t in doc.tags)}]")
    if doc.kind == "policy" and not doc.superseded:
        lines.append("trust: human-reviewed")
    elif doc.kind in OWNERS:
        lines.append(f"trust: {OWNERS[doc.kind]}")
    lines.append(f"status: {'deprecated' if doc.superseded else 'active'}")
    if doc.superseded_by:
        lines.append(f"superseded_by: {_yaml_str(doc.superseded_by)}")
    if doc.updated:
        try:
            due = dt.date.fromisoformat(doc.updated) + dt.timedelta(days=REVIEW_AFTER_DAYS)
            lines.append(f"review_by: {due.isoformat()}")
        except ValueError:
            pass  # a free-form date in a user corpus: no review date rather than a wrong one
    lines += ["---", deprecated_note(doc) + doc.text, ""]
    return "\n".join(lines)


def deprecated_note(doc: Document) -> str:
    """The line that opens every block of a superseded page the model reads (its chunks and the
    whole page): the index page tells the model that pages marked deprecated must not be used,
    and a page's status is in the bundle's front matter, which no block renders."""
    if not doc.superseded:
        return ""
    return f"Deprecated: replaced by {doc.superseded_by}.\n\n" if doc.superseded_by else "Deprecated.\n\n"


def index_text(corpus: Corpus) -> str:
    """What the model reads about the bundle: its size, languages and how to use it. Nothing of
    the eval's labels (document kinds such as "noise", question types) may appear here."""
    langs = sorted({d.lang for d in corpus.documents.values()})
    of = f" of {corpus.info.product}" if corpus.info.product else ""
    return (
        "---\ntitle: Knowledge base index\n---\n"
        f"Knowledge base{of}: {len(corpus.documents)} pages in {', '.join(langs)}. Pages marked "
        "deprecated were replaced by a newer version and must not be used to answer; cite the page id "
        "of every fact you use, and say so when no page answers the question.\n"
    )


def file_name(doc_id: str, taken: set[str]) -> str:
    """A file name for ``doc_id`` that cannot leave its folder or collide (the concept keeps
    its real id in the front matter, so the name is only storage).

    >>> file_name("../etc/passwd", set()), file_name("a b", {"a_b.md"})
    ('.._etc_passwd.md', 'a_b-2.md')
    """
    stem = re.sub(r"[^\w.-]", "_", doc_id) or "_"
    name, n = f"{stem}.md", 1
    while name in taken:
        n += 1
        name = f"{stem}-{n}.md"
    taken.add(name)
    return name


PAGES = "pages"  # one folder for every concept: a folder per kind put "noise/..." in each citation


def write_bundle(corpus: Corpus, directory: str | Path) -> Path:
    """Write the bundle under ``directory`` (every concept in ``pages/``) and return it."""
    root = Path(directory)
    folder = root / PAGES
    folder.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    for doc in corpus.documents.values():
        (folder / file_name(doc.id, taken)).write_text(concept_text(doc), encoding="utf-8")
    (root / "index.md").write_text(index_text(corpus), encoding="utf-8")
    return root
