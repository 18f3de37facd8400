"""``relevant`` with alternative groups: ``["c", ["a", "b"]]`` needs c, and a or b. Parsed
strictly (FILE:LINE and the field), scored as parts of the answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxsieve.eval.corpus import CorpusError, Question, load_corpus
from ctxsieve.eval.metrics import recall_at_budget
from ctxsieve.eval.records import make_record

DOCS = [{"id": i, "title": i, "text": f"page {i}"} for i in ("a", "b", "c", "d")]


def corpus_with(tmp_path: Path, relevant) -> Path:
    (tmp_path / "documents.jsonl").write_text("\n".join(json.dumps(d) for d in DOCS) + "\n", encoding="utf-8")
    rows = [{"id": "q0", "question": "first?", "relevant": ["d"]}, {"id": "q1", "question": "x?", "relevant": relevant}]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in rows) + "\n", encoding="utf-8")
    return tmp_path


def test_groups_are_parsed_into_requirements(tmp_path):
    q = load_corpus(corpus_with(tmp_path, ["c", ["a", "b"]])).questions[1]
    assert q.requirements == (frozenset({"c"}), frozenset({"a", "b"}))
    assert q.relevant == frozenset({"a", "b", "c"})  # precision and distractor checks use the union
    assert q.answerable


@pytest.mark.parametrize(
    ("relevant", "problem"),
    [
        ([["a"]], r"entry 1: an alternative group needs at least two document ids \(write 'a' for a page"),
        ([[]], "entry 1: an alternative group needs at least two document ids$"),
        (["c", ["a", ["b"]]], "entry 2: an alternative group holds non-empty strings"),
        (["c", ["a", ""]], "entry 2: an alternative group holds non-empty strings"),
        ([3], "entry 1: expected a document id or a list of alternative ids, got 3"),
        ([""], "entry 1: expected a document id or a list of alternative ids"),
        (["a", ["a", "b"]], "entry 2: document 'a' listed twice"),
        ([["a", "b"], ["b", "c"]], "entry 2: document 'b' listed twice"),
        ("a", "expected a list of document ids or of alternative groups, got str"),
        ([["a", "zz"]], r"unknown document ids \['zz'\]"),
    ],
)
def test_a_bad_relevant_names_file_line_and_field(tmp_path, relevant, problem):
    with pytest.raises(CorpusError, match=r"questions\.jsonl:2: field 'relevant': " + problem) as err:
        load_corpus(corpus_with(tmp_path, relevant))
    assert err.value.line == 2 and err.value.field == "relevant"


def test_either_page_answers():
    groups = [frozenset({"a", "b"})]
    assert recall_at_budget({"b"}, groups) == 1.0
    assert recall_at_budget({"a", "b"}, groups) == 1.0
    assert recall_at_budget({"c"}, groups) == 0.0
    mixed = [frozenset({"c"}), frozenset({"a", "b"})]
    assert recall_at_budget({"a"}, mixed) == 0.5
    assert recall_at_budget({"a", "c"}, mixed) == 1.0
    assert recall_at_budget({"x"}, []) is None


def test_a_record_scores_the_groups_not_every_page(tmp_path):
    # before alternatives, a question answered by either page had to list both as needed, and a
    # window with one of them scored 0.5
    from types import SimpleNamespace

    from ctxsieve.eval.records import Shown

    corpus = load_corpus(corpus_with(tmp_path, [["a", "b"]]))
    q = corpus.questions[1]
    script = SimpleNamespace(id="q1", turns=[q])
    shown = Shown([("b", 10)], [], 10, 0, None, "p", 12, 0, "h", [], [])
    config = SimpleNamespace(name="scored_knapsack/cache")
    record = make_record(config, 750, script, 1, shown, corpus, {"b": 10}, "question")
    assert record.recall == 1.0


def test_a_question_built_by_hand_needs_each_of_its_pages():
    q = Question("q", "?", frozenset({"a", "b"}), "s", 1)
    assert q.requirements == (frozenset({"a"}), frozenset({"b"}))
