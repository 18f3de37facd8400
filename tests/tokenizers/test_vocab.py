"""Known words: found in a real vocabulary, checked by counting, stored in a profile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxsieve import cli
from ctxsieve.errors import ConfigError
from ctxsieve.kernels.calibrated import KnownWords, pack_hashes, word_hash
from ctxsieve.tokenizers import load_profile
from ctxsieve.tokenizers.profiles import Profile, profile_from_json
from ctxsieve.tokenizers.vocab import candidates, decode_hashes, encode_hashes, known_word_hashes, one_token_keys


def test_candidates_are_words_without_their_space() -> None:
    vocab = [" the", "the", "ing", " señor", " 42", "a1", "\ufffd", " ", "", ".com", " Ωμέγα", "中文"]
    assert candidates(vocab) == ["ing", "señor", "the", "Ωμέγα"]


@pytest.mark.parametrize("family", ["cl100k", "llama3", "mistral-sp"])
def test_one_token_keys_match_the_tokenizer(family: str, load_family) -> None:  # type: ignore[no-untyped-def]
    tok = load_family(family)
    keys = set(one_token_keys(tok, tok.vocabulary()))
    assert b" the" in keys and b" information" in keys
    assert b" xqzvkj" not in keys
    # each key really is one token where the estimator meets it (the check counts in context)
    sample = sorted(keys)[:: max(1, len(keys) // 300)]
    spaced = [k.decode() for k in sample if k.startswith(b" ")]
    assert [n - 1 for n in tok.count(["a" + w for w in spaced])] == [1] * len(spaced)


def test_known_word_hashes_intersect(load_family) -> None:  # type: ignore[no-untyped-def]
    a, b = load_family("cl100k"), load_family("mistral-sp")
    one, other, both = (known_word_hashes(t) for t in ([a], [b], [a, b]))
    assert one is not None and other is not None and both is not None
    as_set = [set(KnownWords(x)._set) for x in (one, other, both)]
    assert as_set[2] == as_set[0] & as_set[1] and 0 < len(as_set[2]) < len(as_set[1])
    assert known_word_hashes([object()]) is None  # a tokenizer that cannot list its vocabulary


def test_hashes_round_trip() -> None:
    hashes = [word_hash(w.encode()) for w in ("the", " the", "señor", "x")] + [0, 0xFFFFFFFF]
    assert decode_hashes(encode_hashes(hashes)) == pack_hashes(hashes)
    assert decode_hashes(encode_hashes([])) == b""
    for bad in ("not base64!", "aGVsbG8=", encode_hashes([1])[:-4]):
        with pytest.raises(ValueError, match="known words"):
            decode_hashes(bad)


def test_profile_json_keeps_known_words() -> None:
    packed = pack_hashes([word_hash(b" the"), word_hash(b"cat")])
    profile = Profile("p", {"doc": 1000, "known_word": 700}, known_words=packed)
    again = profile_from_json(json.loads(json.dumps(profile.to_json())), "p")
    assert again.known_words == packed and again.cost_vector() == profile.cost_vector()
    assert profile_from_json({"costs": {}}, "q").known_words is None


@pytest.mark.parametrize(
    "spec",
    [[1, 2], {"encoding": "raw", "data": ""}, {"encoding": "zlib-delta-u32le-base64"}, {"data": "x"}],
)
def test_malformed_known_words(spec: object) -> None:
    with pytest.raises(ConfigError, match="known_words"):
        profile_from_json({"costs": {}, "known_words": spec}, "bad.json")
    with pytest.raises(ConfigError, match=r"bad\.json: known words"):
        profile_from_json(
            {"costs": {}, "known_words": {"encoding": "zlib-delta-u32le-base64", "data": "eJwrAQB1AHY="}}, "bad.json"
        )


def test_calibrate_writes_known_words(tmp_path: Path, load_family) -> None:  # type: ignore[no-untyped-def]
    load_family("cl100k")
    corpus = tmp_path / "c.jsonl"
    texts = ["The quick brown fox jumps over the lazy dog.", "Information about the weather.", "日本語", "x = 1"]
    corpus.write_text("\n".join(json.dumps({"text": t}) for t in texts) + "\n")
    outs = {}
    for flag in ([], ["--no-known-words"]):
        out = tmp_path / f"p{len(flag)}.json"
        args = [
            "calibrate",
            "--tokenizer",
            "packaged:cl100k",
            "--corpus",
            str(corpus),
            "--name",
            "p",
            "--out",
            str(out),
        ]
        assert cli.main(args + flag) == 0
        outs[bool(flag)] = load_profile(out)
    assert outs[True].known_words is None
    known = outs[False].known_words
    assert known is not None and word_hash(b" quick") in KnownWords(known)
