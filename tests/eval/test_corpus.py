"""The shipped corpus meets the issue's shape, and the loader points at every mistake."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from ctxsieve.eval.corpus import CorpusError, load_corpus


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


def test_shipped_corpus_has_the_promised_size_and_kinds(corpus):
    assert len(corpus.documents) >= 150
    assert len(corpus.questions) >= 60
    kinds = Counter(d.kind for d in corpus.documents.values())
    assert {"policy", "error", "howto", "noise"} <= set(kinds)
    assert kinds["noise"] >= 20
    types = Counter(q.type for q in corpus.questions)
    assert set(types) == {"exact_id", "paraphrase", "multi_doc", "changed_policy", "unanswerable"}
    assert min(types.values()) >= 5
    assert {d.lang for d in corpus.documents.values()} == {"en", "es"}
    assert {q.lang for q in corpus.questions} == {"en", "es"}


def test_every_superseded_policy_names_a_current_replacement(corpus):
    superseded = [d for d in corpus.documents.values() if d.superseded]
    assert len(superseded) >= 10
    for d in superseded:
        replacement = corpus.documents[d.superseded_by]
        assert not replacement.superseded
        assert replacement.kind == d.kind == "policy"


def test_questions_are_labelled_consistently(corpus):
    for q in corpus.questions:
        assert q.answer, q.id
        if q.type == "unanswerable":
            assert not q.relevant
        else:
            assert q.relevant, q.id
            # relevant pages are never superseded or noise: those are what the metrics punish
            assert not q.relevant & (corpus.superseded | corpus.noise), q.id
        if q.type == "changed_policy":
            assert q.distractors & corpus.superseded, q.id
        if q.type == "multi_doc":
            assert len(q.relevant) >= 2, q.id
        if q.type == "exact_id":
            assert "E-" in q.question or "PIN" in q.question, q.id


def test_sessions_include_ten_turn_conversations(corpus):
    lengths = Counter(q.session for q in corpus.questions)
    assert sum(1 for n in lengths.values() if n >= 10) >= 2
    for sid in lengths:
        turns = sorted(q.turn for q in corpus.questions if q.session == sid)
        assert turns == list(range(1, len(turns) + 1))


def write(dirpath: Path, docs, questions, answers=None) -> Path:
    dirpath.mkdir(parents=True, exist_ok=True)
    for name, rows in (("documents", docs), ("questions", questions), ("answers", answers)):
        if rows is None:
            continue
        lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
        (dirpath / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dirpath


DOC = {"id": "d1", "title": "Refunds", "text": "Refunds within 30 days.", "kind": "policy"}
QUESTION = {"id": "q1", "question": "Refund window?", "relevant": ["d1"]}


def test_a_minimal_corpus_loads_with_defaults(tmp_path):
    c = load_corpus(write(tmp_path, [DOC], [QUESTION], [{"id": "q1", "answer": "30 days."}]))
    q = c.questions[0]
    assert (q.session, q.turn, q.type, q.lang, q.answer) == ("q1", 1, "other", "en", "30 days.")
    assert c.documents["d1"].status == "current"


def test_a_missing_field_names_file_line_and_field(tmp_path):
    docs = [DOC, {"id": "d2", "title": "No text here"}]
    with pytest.raises(CorpusError) as err:
        load_corpus(write(tmp_path, docs, [QUESTION]))
    e = err.value
    assert (Path(e.path).name, e.line, e.field) == ("documents.jsonl", 2, "text")
    assert "documents.jsonl:2" in str(e) and "'text'" in str(e) and "missing" in str(e)


def test_a_question_without_relevant_labels_is_refused(tmp_path):
    questions = [QUESTION, QUESTION | {"id": "q2"}, {"id": "q3", "question": "Unlabelled?"}]
    with pytest.raises(CorpusError) as err:
        load_corpus(write(tmp_path, [DOC], questions))
    assert (Path(err.value.path).name, err.value.line, err.value.field) == ("questions.jsonl", 3, "relevant")


@pytest.mark.parametrize(
    ("docs", "questions", "answers", "where"),
    [
        ([DOC, "{not json"], [QUESTION], None, ("documents.jsonl", 2, "")),
        ([DOC, DOC], [QUESTION], None, ("documents.jsonl", 2, "id")),
        ([DOC | {"kind": "faq"}], [QUESTION], None, ("documents.jsonl", 1, "kind")),
        (
            [DOC | {"status": "superseded", "superseded_by": "nope"}],
            [QUESTION],
            None,
            ("documents.jsonl", 1, "superseded_by"),
        ),
        ([DOC], [QUESTION | {"relevant": ["d9"]}], None, ("questions.jsonl", 1, "relevant")),
        ([DOC], [QUESTION | {"distractors": "d1"}], None, ("questions.jsonl", 1, "distractors")),
        ([DOC], [QUESTION | {"turn": 0}], None, ("questions.jsonl", 1, "turn")),
        ([DOC], ["", QUESTION | {"question": ""}], None, ("questions.jsonl", 2, "question")),
        ([DOC], [QUESTION], [{"id": "q1"}], ("answers.jsonl", 1, "answer")),
        ([DOC], [QUESTION], ["[1, 2]"], ("answers.jsonl", 1, "")),
    ],
)
def test_loader_errors_point_at_the_mistake(tmp_path, docs, questions, answers, where):
    with pytest.raises(CorpusError) as err:
        load_corpus(write(tmp_path, docs, questions, answers))
    assert (Path(err.value.path).name, err.value.line, err.value.field) == where


def test_missing_files_and_directories_are_named(tmp_path):
    with pytest.raises(CorpusError, match="not a directory"):
        load_corpus(tmp_path / "nowhere")
    write(tmp_path, [DOC], None)
    with pytest.raises(CorpusError, match=r"questions\.jsonl: file not found"):
        load_corpus(tmp_path)
