"""The hybrid retriever's two fusions: reciprocal rank (rank only) and score (min-max scores)."""

from __future__ import annotations

import pytest

from ctxsieve.eval.corpus import load_corpus
from ctxsieve.eval.retrieve import DEFAULT_FUSION, Chunk, HybridRetriever, build_retriever


class Fixed:
    """A retriever whose ranking is given: ``[(chunk index, score), ...]`` best first."""

    def __init__(self, hits):
        self.hits = hits
        self.chunks = [Chunk(f"d{i}", 0, f"text {i}", False, "en") for i in range(4)]

    def ranked(self, query, k):
        return self.hits[:k]


# BM25-like scores and cosines: chunk 1 is a close second in both lists; 0 and 2 each lead one
# list by a wide margin and are last in the other
BM25 = Fixed([(0, 10.0), (1, 9.9), (2, 1.0)])
COSINE = Fixed([(2, 0.90), (1, 0.89), (0, 0.10)])


def test_score_fusion_weighs_the_margin_rank_fusion_does_not():
    score = HybridRetriever([BM25, COSINE], fusion="score").ranked("q", 3)
    rrf = HybridRetriever([BM25, COSINE], fusion="rrf").ranked("q", 3)
    # normalised: chunk 1 is 0.989 and 0.988 of the way up both lists, the others 1 and 0
    assert score[0][0] == 1
    assert score[0][1] == pytest.approx(((9.9 - 1.0) / 9.0 + (0.89 - 0.10) / 0.80) / 2)
    # by ranks alone, first and third (1/61 + 1/63) beat second twice (2/62)
    assert rrf[0][0] == 0 and rrf[-1][0] == 1


def test_score_fusion_edges():
    # a chunk missing from a list gets 0 there; a list of one (or of equal scores) gives 1
    only = Fixed([(3, 5.0)])
    none = Fixed([])
    assert HybridRetriever([only, none], fusion="score").ranked("q", 2) == [(3, 0.5)]
    with pytest.raises(ValueError, match="fusion: must be one of rrf, score, got 'mean'"):
        HybridRetriever([only], fusion="mean")
    with pytest.raises(ValueError, match="fusion: must be one of rrf, score"):
        build_retriever(load_corpus(), "bm25", fusion="max")


def test_the_default_is_the_fusion_that_won():
    # docs/eval.md: score fusion beat rank fusion on both shipped corpora at every budget
    assert DEFAULT_FUSION == "score"
    assert HybridRetriever([BM25, COSINE]).fusion == "score"
