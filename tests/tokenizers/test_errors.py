"""A missing or malformed tokenizer file raises TokenizerFileError naming the path."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxsieve.errors import ConfigError, ContextError
from ctxsieve.tokenizers import TokenizerFileError, get_estimator


def _raises_naming(path: Path, fn, *args, match: str = "") -> TokenizerFileError:  # type: ignore[no-untyped-def]
    with pytest.raises(TokenizerFileError) as info:
        fn(*args)
    assert str(path) in str(info.value)
    assert info.value.path == str(path)
    assert match in str(info.value)
    assert isinstance(info.value, ContextError) and isinstance(info.value, ValueError)
    return info.value


def test_missing_files(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "tokenizer.json"
    for kind, lib in (("hf", "tokenizers"), ("tiktoken", "tiktoken"), ("sentencepiece", "sentencepiece")):
        pytest.importorskip(lib)
        _raises_naming(missing, get_estimator, f"{kind}:{missing}", match="no such file")


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    _raises_naming(tmp_path, get_estimator, f"hf:{tmp_path}", match="not a regular file")


def test_malformed_hf_json(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    from ctxsieve.tokenizers.hf import HFTokenizer

    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "Nonsense"}}')
    _raises_naming(bad, HFTokenizer, bad, match="not a valid Hugging Face tokenizer.json")
    bad.write_text("not json at all")
    _raises_naming(bad, HFTokenizer, bad, match="not a valid Hugging Face tokenizer.json")


def test_malformed_tiktoken_ranks(tmp_path: Path) -> None:
    pytest.importorskip("tiktoken")
    from ctxsieve.tokenizers.tiktoken_file import TiktokenTokenizer

    bad = tmp_path / "cl100k_base.tiktoken"
    bad.write_text("IQ== 0\nthis is not base64 1\n")
    _raises_naming(bad, TiktokenTokenizer, bad, match="line 2")
    bad.write_text("")
    _raises_naming(bad, TiktokenTokenizer, bad, match="holds no ranks")


def test_tiktoken_needs_a_pattern(tmp_path: Path) -> None:
    pytest.importorskip("tiktoken")
    from ctxsieve.tokenizers.tiktoken_file import TiktokenTokenizer

    ranks = tmp_path / "mystery.tiktoken"
    ranks.write_text("".join(f"{__import__('base64').b64encode(bytes([b])).decode()} {b}\n" for b in range(256)))
    _raises_naming(ranks, TiktokenTokenizer, ranks, match="pre-tokenizer pattern")
    # with a pattern it works: one token per byte
    assert TiktokenTokenizer(ranks, pattern=r"\S+|\s+").count(["ab c"]) == [4]


def test_malformed_tekken(tmp_path: Path) -> None:
    pytest.importorskip("tiktoken")
    from ctxsieve.tokenizers.tiktoken_file import TiktokenTokenizer

    bad = tmp_path / "tekken.json"
    bad.write_text('{"config": {}}')
    _raises_naming(bad, TiktokenTokenizer, bad, match="not a tekken tokenizer")
    bad.write_text("{")
    _raises_naming(bad, TiktokenTokenizer, bad, match="not valid JSON")


def test_malformed_sentencepiece(tmp_path: Path) -> None:
    pytest.importorskip("sentencepiece")
    from ctxsieve.tokenizers.spm import SentencePieceTokenizer

    bad = tmp_path / "tokenizer.model"
    bad.write_bytes(b"\x00\x01garbage")
    _raises_naming(bad, SentencePieceTokenizer, bad, match="not a valid SentencePiece model")


def test_unknown_estimators() -> None:
    for name in ("bogus", "bytes/0", "bytes/x", "calibrated:", "wordpiece:/x", "calibrated:nonexistent"):
        with pytest.raises(ConfigError):
            get_estimator(name)


def test_non_str_texts_are_refused(load_family) -> None:  # type: ignore[no-untyped-def]
    tok = load_family("cl100k")
    with pytest.raises(TypeError, match=r"texts\[1\]: expected str, got int"):
        tok.count(["a", 1])
