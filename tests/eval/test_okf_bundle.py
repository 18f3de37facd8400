"""The OKF bundle written from a corpus is what the engine's OKF sources read."""

from __future__ import annotations

import datetime as dt

from ctxsieve.eval.corpus import Corpus, Document, load_corpus
from ctxsieve.eval.okf_bundle import EVAL_TODAY, write_bundle
from ctxsieve.sources import OKFBundle, OKFIndexSource


def test_the_shipped_corpus_becomes_a_bundle_the_engine_reads(tmp_path):
    corpus = load_corpus()
    bundle = OKFBundle(write_bundle(corpus, tmp_path), today=EVAL_TODAY)
    by_id = {c.id: c for c in bundle.concepts}
    assert set(by_id) == set(corpus.documents)
    assert {i for i, c in by_id.items() if c.status == "deprecated"} == corpus.superseded
    assert by_id["pol-refunds-2025"].trust == "human-reviewed"
    assert by_id["pol-refunds-2024"].trust == "legal"  # its owner; only current policies are reviewed
    assert by_id["err-e4217"].trust == "support-team"
    # review dates are two years after the update: only old, superseded pages are past theirs
    stale = {c.id for c in bundle.concepts if c.is_stale(EVAL_TODAY)}
    assert stale and stale <= corpus.superseded
    item = bundle.item(by_id["pol-refunds-2024"], 1.0, "okf", "volatile")
    assert item.signals.deprecated and item.signals.citation == "pages/pol-refunds-2024.md"
    index = OKFIndexSource(bundle).candidates("q")[0]
    assert index.pinned and index.stability == "stable" and "deprecated" in index.content


def test_odd_document_ids_keep_their_id_and_stay_in_the_bundle(tmp_path):
    docs = {
        "../up": Document("../up", "Escaping text.", updated="2020-01-01"),
        "a b": Document("a b", "Spaces.", updated="not a date"),
        "a_b": Document("a_b", "Underscore."),
    }
    root = write_bundle(Corpus(docs, [], str(tmp_path / "corpus")), tmp_path / "bundle")
    assert not (tmp_path / "up.md").exists()
    bundle = OKFBundle(root, today=dt.date(2026, 11, 29))
    by_id = {c.id: c for c in bundle.concepts}
    assert set(by_id) == set(docs)
    assert by_id["../up"].is_stale(dt.date(2026, 11, 29))  # updated 2020: review was due in 2022
    assert by_id["a b"].due is None  # a date that is not ISO gives no review date, not a wrong one
