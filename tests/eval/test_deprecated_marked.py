"""The index page tells the model that pages marked deprecated must not be used: every block of a
superseded page the model reads (a chunk or a whole page) carries that mark."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ctxsieve.eval.configs import parse_configs
from ctxsieve.eval.corpus import load_corpus
from ctxsieve.eval.okf_bundle import index_text
from ctxsieve.eval.runner import prepare, run

DOCS = [
    {"id": "loans", "title": "Loans", "text": "Members borrow up to six books for 21 days."},
    {
        "id": "loans-old",
        "title": "Loans (old)",
        "status": "superseded",
        "superseded_by": "loans",
        "text": "Members borrow up to four books for 14 days.",
    },
    {"id": "card", "title": "Lost card", "text": "Report a lost card at the desk; a new one costs 2 euros."},
]
QUESTIONS = [
    {"id": "a", "question": "How many books can members borrow?", "relevant": ["loans"]},
    {"id": "b", "question": "I lost my card, what now?", "relevant": ["card"]},
]


def write(root: Path) -> Path:
    (root / "documents.jsonl").write_text("\n".join(json.dumps(d) for d in DOCS) + "\n", encoding="utf-8")
    (root / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return root


def _blocks(prompt: str, source: str) -> dict[str, str]:
    pattern = rf'<context id="([^"]+)" source="{source}"[^>]*>\n(.*?)\n</context>'
    return {m.group(1): m.group(2) for m in re.finditer(pattern, prompt, re.S)}


def test_a_superseded_page_is_marked_where_the_model_reads_it(tmp_path):
    corpus = load_corpus(write(tmp_path))
    assert "Pages marked deprecated" in index_text(corpus)  # what the model is told
    # the control admits deprecated pages; both layouts, both sources (chunks and whole pages)
    records = run(prepare(corpus), parse_configs(["everything/seed", "everything/cache"]), [4000], modes=("question",))
    seen = 0
    for r in records:
        for source in ("rag", "okf"):
            for item_id, text in _blocks(r.prompt, source).items():
                if item_id.startswith("loans-old"):
                    # before: the block was the page's text alone, with nothing saying it was replaced
                    # (a whole page opens with its title, then the mark)
                    assert "Deprecated: replaced by loans." in text.splitlines()[:3], text
                    seen += 1
                else:
                    assert "Deprecated" not in text
    assert seen >= 4  # a chunk and a page, in each layout


def test_current_pages_and_the_default_are_unmarked(tmp_path):
    corpus = load_corpus(write(tmp_path))
    records = run(prepare(corpus), parse_configs(["scored_knapsack/cache"]), [4000], modes=("question",))
    assert records and all("Deprecated: replaced by" not in r.prompt for r in records)
