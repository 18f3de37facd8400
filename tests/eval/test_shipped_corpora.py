"""Every shipped corpus is labelled consistently, whoever wrote it."""

from __future__ import annotations

from collections import Counter

import pytest

from ctxsieve.eval.corpus import load_corpus, shipped_corpora


@pytest.fixture(params=sorted(shipped_corpora()), scope="module")
def corpus(request):
    return load_corpus(request.param)


def test_both_corpora_ship_and_load_by_name():
    assert set(shipped_corpora()) == {"tessel", "nordlinje"}
    assert load_corpus("nordlinje").info.description == "a regional rail and bus operator"


def test_labels_are_consistent(corpus):
    for q in corpus.questions:
        assert q.answer, q.id
        if q.type == "unanswerable":
            assert not q.relevant, q.id
            continue
        assert q.relevant, q.id
        # what the metrics punish is never what answers
        assert not q.relevant & (corpus.superseded | corpus.noise), q.id
        if q.type == "changed_policy":
            assert q.distractors & corpus.superseded, q.id
        if q.type == "multi_doc":
            assert len(q.relevant) >= 2, q.id
    for d in corpus.documents.values():
        if d.superseded:
            assert d.superseded_by and not corpus.documents[d.superseded_by].superseded, d.id


def test_each_corpus_can_measure_every_target(corpus):
    lengths = Counter(q.session for q in corpus.questions)
    assert max(lengths.values()) >= 10  # the 10-turn prefix-cache target
    assert corpus.superseded  # the superseded-rate target
    assert len({q.lang for q in corpus.questions}) >= 2
    types = Counter(q.type for q in corpus.questions)
    assert {"paraphrase", "changed_policy", "exact_id", "multi_doc", "unanswerable"} <= set(types)
