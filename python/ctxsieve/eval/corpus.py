"""The eval corpus: documents, labelled questions and reference answers, read from JSONL.

A corpus is a directory with ``documents.jsonl``, ``questions.jsonl`` and, optionally,
``answers.jsonl`` and ``corpus.json`` (the shapes are in docs/eval.md). Every problem is
reported as a ``CorpusError`` naming the file, the line and the field, because a corpus is
usually written by hand and the first thing its author needs is where the mistake is. A field
the loader does not know is an error too (with the nearest known name): a misspelt
``superseded-by`` or ``language`` must not quietly become "nothing superseded" or "English".

>>> corpus = load_corpus()
>>> len(corpus.documents) >= 150, len(corpus.questions) >= 60
(True, True)
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ctxsieve.eval.corpus_rows import CorpusError, FieldReader, check_unicode, json_rows, read_file

DOC_KINDS = ("policy", "error", "howto", "noise", "other")
DOC_STATUSES = ("current", "superseded")
QUESTION_TYPES = ("exact_id", "paraphrase", "multi_doc", "changed_policy", "unanswerable", "other")
DOCUMENT_FIELDS = ("id", "text", "title", "kind", "lang", "status", "superseded_by", "tags", "updated")
QUESTION_FIELDS = ("id", "question", "relevant", "distractors", "session", "turn", "type", "lang")
ANSWER_FIELDS = ("id", "answer")
INFO_FIELDS = ("name", "product", "description", "system_prompt")


@dataclass(frozen=True)
class Document:
    id: str
    text: str
    title: str = ""
    kind: str = "other"
    lang: str = "en"
    status: str = "current"
    superseded_by: str | None = None
    tags: tuple[str, ...] = ()
    updated: str | None = None

    @property
    def superseded(self) -> bool:
        return self.status == "superseded"


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    relevant: frozenset[str]  # every page that answers any part (the union of ``requirements``)
    session: str
    turn: int
    type: str = "other"
    lang: str = "en"
    distractors: frozenset[str] = frozenset()
    answer: str | None = None
    # what recall counts: one set per part of the answer, any page of a set satisfies it (a
    # plain id is a set of one); empty: every id of ``relevant`` on its own
    requirements: tuple[frozenset[str], ...] = ()

    def __post_init__(self) -> None:
        if not self.requirements and self.relevant:
            object.__setattr__(self, "requirements", tuple(frozenset([d]) for d in sorted(self.relevant)))

    @property
    def answerable(self) -> bool:
        return bool(self.relevant)


@dataclass(frozen=True)
class CorpusInfo:
    """``corpus.json``: what the model is told about the knowledge base. ``name`` labels reports;
    ``product`` and ``description`` go into the system prompt and the index page, or
    ``system_prompt`` replaces the eval's prompt entirely. Nothing else about the corpus (its
    kinds, labels or file names) reaches the model."""

    name: str = ""
    product: str = ""
    description: str = ""
    system_prompt: str = ""


@dataclass
class Corpus:
    documents: dict[str, Document]
    questions: list[Question]
    root: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    info: CorpusInfo = field(default_factory=CorpusInfo)

    @property
    def name(self) -> str:
        return self.info.name or Path(self.root).name or "corpus"

    # cached: the runner asks for both on every call (3.8 s of a 25 s run when rebuilt each time)
    @functools.cached_property
    def superseded(self) -> frozenset[str]:
        return frozenset(d.id for d in self.documents.values() if d.superseded)

    @functools.cached_property
    def noise(self) -> frozenset[str]:
        return frozenset(d.id for d in self.documents.values() if d.kind == "noise")


def shipped_corpora() -> dict[str, Path]:
    """The corpora inside the installed package, by name: ``tessel`` (the default) and
    ``nordlinje`` (written independently of it, so that no setting is tuned to one corpus)."""
    root = Path(str(resources.files("ctxsieve.eval") / "data"))
    return {d.name: d for d in sorted(root.iterdir()) if (d / "documents.jsonl").is_file()}


def default_corpus_dir() -> Path:
    """The shipped Tessel corpus, inside the installed package."""
    return shipped_corpora()["tessel"]


def load_documents(path: Path) -> dict[str, Document]:
    docs: dict[str, Document] = {}
    for line, raw in json_rows(path):
        r = FieldReader(path, line, raw, DOCUMENT_FIELDS)
        doc = Document(
            id=r.text("id"),
            text=r.text("text"),
            title=r.text("title", ""),
            kind=r.text("kind", "other", DOC_KINDS),
            lang=r.text("lang", "en"),
            status=r.text("status", "current", DOC_STATUSES),
            superseded_by=r.opt_text("superseded_by"),
            tags=tuple(r.texts("tags", required=False)),
            updated=r.opt_text("updated"),
        )
        if doc.id in docs:
            raise r.error("id", f"duplicate document id {doc.id!r}")
        docs[doc.id] = doc
    for d in docs.values():
        if d.superseded_by is not None and d.superseded_by not in docs:
            line = next(n for n, row in json_rows(path) if row.get("id") == d.id)
            raise CorpusError(path, line, "superseded_by", f"unknown document {d.superseded_by!r}")
    return docs


def load_answers(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    answers: dict[str, str] = {}
    for line, raw in json_rows(path):
        r = FieldReader(path, line, raw, ANSWER_FIELDS)
        qid = r.text("id")
        if qid in answers:
            raise r.error("id", f"duplicate answer for question {qid!r}")
        answers[qid] = r.text("answer")
    return answers


def load_questions(path: Path, docs: dict[str, Document], answers: dict[str, str]) -> list[Question]:
    questions: list[Question] = []
    seen: set[str] = set()
    turns: dict[str, dict[int, str]] = {}  # session -> turn -> question id
    for line, raw in json_rows(path):
        r = FieldReader(path, line, raw, QUESTION_FIELDS)
        qid = r.text("id")
        if qid in seen:
            raise r.error("id", f"duplicate question id {qid!r}")
        seen.add(qid)
        requirements = r.requirements("relevant")
        relevant = sorted(set().union(*requirements))
        distractors = r.texts("distractors", required=False)
        for name, ids in (("relevant", relevant), ("distractors", distractors)):
            unknown = [i for i in ids if i not in docs]
            if unknown:
                raise r.error(name, f"unknown document ids {unknown}")
        both = sorted(set(relevant) & set(distractors))
        if both:
            # a page cannot both answer the question and only look like an answer
            raise r.error("distractors", f"also listed as relevant: {both}")
        # a question without a session is a one-turn session of its own
        session = r.text("session", qid)
        turn = r.integer("turn", max(turns.get(session, {}), default=0) + 1)
        taken = turns.setdefault(session, {})
        if turn in taken:
            raise r.error("turn", f"session {session!r} already has turn {turn} (question {taken[turn]!r})")
        taken[turn] = qid
        questions.append(
            Question(
                id=qid,
                question=r.text("question"),
                relevant=frozenset(relevant),
                requirements=tuple(requirements),
                session=session,
                turn=turn,
                type=r.text("type", "other", QUESTION_TYPES),
                lang=r.text("lang", "en"),
                distractors=frozenset(distractors),
                answer=answers.get(qid),
            )
        )
    if not questions:
        raise CorpusError(path, 0, "", "no questions")
    for session, taken in turns.items():
        # turn t is asked after turns 1..t-1: a gap would be a conversation with a missing turn
        missing = sorted(set(range(1, max(taken) + 1)) - set(taken))
        if missing:
            above = min(t for t in taken if t > missing[0])  # the first turn asked after the gap
            line = next(n for n, row in json_rows(path) if row.get("id") == taken[above])
            raise CorpusError(
                path,
                line,
                "turn",
                f"session {session!r} has turns {sorted(taken)}, missing {missing[:5]} (turns run 1..n)",
            )
    return questions


def load_info(path: Path) -> CorpusInfo:
    """``corpus.json`` (optional): one JSON object with the ``INFO_FIELDS``, all strings."""
    if not path.exists():
        return CorpusInfo()
    try:
        raw = json.loads(read_file(path))
    except json.JSONDecodeError as exc:
        raise CorpusError(path, exc.lineno, "", f"not valid JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(raw, dict):
        raise CorpusError(path, 0, "", f"expected a JSON object, got {type(raw).__name__}")
    check_unicode(path, 0, raw)
    r = FieldReader(path, 0, raw, INFO_FIELDS)
    return CorpusInfo(**{name: r.text(name, "") for name in INFO_FIELDS})


def load_corpus(directory: Path | str | None = None) -> Corpus:
    """Read a corpus directory, or a shipped corpus by name (the Tessel corpus when None).

    >>> sorted(shipped_corpora())
    ['nordlinje', 'tessel']
    >>> load_corpus("nordlinje").info.product
    'Nordlinje'
    """
    root = Path(directory) if directory is not None else default_corpus_dir()
    if directory is not None and not root.exists() and str(directory) in shipped_corpora():
        root = shipped_corpora()[str(directory)]
    if not root.is_dir():
        raise CorpusError(root, 0, "", "not a directory")
    docs = load_documents(root / "documents.jsonl")
    if not docs:
        raise CorpusError(root / "documents.jsonl", 0, "", "no documents")
    answers = load_answers(root / "answers.jsonl")
    questions = load_questions(root / "questions.jsonl", docs, answers)
    unknown = sorted(set(answers) - {q.id for q in questions})
    if unknown:
        raise CorpusError(root / "answers.jsonl", 0, "id", f"answers for unknown questions {unknown[:5]}")
    return Corpus(docs, questions, str(root), info=load_info(root / "corpus.json"))
