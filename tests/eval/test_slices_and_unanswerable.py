"""The slice table's ``n`` column, and the level-1 measure of questions nothing answers."""

from __future__ import annotations

import json
from pathlib import Path

from ctxsieve.eval.configs import parse_configs
from ctxsieve.eval.corpus import load_corpus
from ctxsieve.eval.report import COLUMNS, markdown_table, slice_table
from ctxsieve.eval.runner import prepare, run
from ctxsieve.eval.summary import recall_by_slice, slice_counts, summarize

DOCS = [
    {"id": "loans", "title": "Loans", "text": "Members borrow up to six books for 21 days."},
    {"id": "card", "title": "Lost card", "text": "Report a lost library card at the desk; a new card costs 2 euros."},
    {"id": "gift", "title": "Gift cards", "text": "The library gift card is sold at the desk for any amount."},
]
QUESTIONS = [
    {"id": "a", "question": "How many books can members borrow?", "relevant": ["loans"], "type": "paraphrase"},
    {"id": "b", "question": "I lost my library card, what now?", "relevant": ["card"], "type": "paraphrase"},
    {"id": "c", "question": "¿Cuántos libros?", "relevant": ["loans"], "type": "exact_id", "lang": "es"},
    # nothing answers it; the gift-card page looks like the answer
    {
        "id": "u",
        "question": "Can I top up my library card online?",
        "relevant": [],
        "type": "unanswerable",
        "distractors": ["gift"],
    },
]


def corpus(tmp_path: Path):
    (tmp_path / "documents.jsonl").write_text("\n".join(json.dumps(d) for d in DOCS) + "\n", encoding="utf-8")
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return load_corpus(tmp_path)


def test_the_slice_table_has_an_n_column(tmp_path):
    configs = parse_configs(["scored_knapsack/cache"])
    records = run(prepare(corpus(tmp_path)), configs, [4000], modes=("session", "question"))
    counts = slice_counts(records)
    # answerable questions only, each counted once whatever the modes and configurations
    assert counts == {"paraphrase": 2, "exact_id": 1, "lang:en": 2, "lang:es": 1}
    text = slice_table(*recall_by_slice(records), counts)
    assert "| slice | n | scored_knapsack/cache |" in text
    assert "| paraphrase | 2 | 1.000 |" in text and "| lang:es | 1 | " in text
    assert "In sessions, 4000 tokens:" in text and "Every question alone, 4000 tokens:" in text


def test_an_unanswerable_question_gets_the_look_alike_rate(tmp_path):
    records = run(prepare(corpus(tmp_path)), parse_configs(["everything/seed"]), [4000], modes=("question",))
    by_id = {r.question: r for r in records}
    assert by_id["u"].recall is None
    assert by_id["u"].lookalike is True  # everything fits at 4000 tokens, the look-alike too
    assert by_id["a"].lookalike is None  # answerable: not part of the measure
    (row,) = summarize(records)
    assert row.unanswerable_lookalike == 1.0
    assert "unanswerable_lookalike" in [c[0] for c in COLUMNS]
    assert "unans look-alike" in markdown_table([row]).splitlines()[0]


def test_without_labelled_look_alikes_the_measure_is_undefined(tmp_path):
    questions = [q | {"distractors": []} for q in QUESTIONS]
    (tmp_path / "documents.jsonl").write_text("\n".join(json.dumps(d) for d in DOCS) + "\n", encoding="utf-8")
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in questions) + "\n", encoding="utf-8")
    records = run(prepare(load_corpus(tmp_path)), parse_configs(["everything/seed"]), [4000], modes=("question",))
    (row,) = summarize(records)
    assert row.unanswerable_lookalike is None  # "-", never a vacuous 0
