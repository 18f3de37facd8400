"""Known words: found in a real vocabulary, checked by counting, stored in a profile."""

from __future__ import annotations

import base64
import json
import zlib
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


def test_only_words_that_count_as_one_token_are_kept(load_family) -> None:  # type: ignore[no-untyped-def]
    tok = load_family("cl100k")
    # " xqzvkj" is offered as if the vocabulary held it; counting finds it takes several tokens
    keys = one_token_keys(tok, [" the", " xqzvkj", "ACTIVE", " 42"])
    assert sorted(keys) == [b" ACTIVE", b" the", b"ACTIVE", b"the"]


@pytest.mark.parametrize(("family", "after_paren"), [("cl100k", 0.94), ("llama3", 0.94), ("mistral-sp", 0.99)])
def test_one_token_keys_hold_in_other_contexts(family: str, after_paren: float, load_family) -> None:  # type: ignore[no-untyped-def]
    tok = load_family(family)
    keys = one_token_keys(tok, tok.vocabulary())
    spaced = [k.decode() for k in keys if k.startswith(b" ")]
    bare = [k.decode() for k in keys if not k.startswith(b" ")]
    assert " the" in spaced and " information" in spaced and len(bare) > 10_000
    # a spaced word is one token after any word, not only after the "a" it was checked after
    (base,) = tok.count(["The"])
    assert all(n - base == 1 for n in tok.count(["The" + w for w in spaced]))
    # a bare one was checked after a newline; after "(" a byte-level BPE may merge the mark into
    # the word, and a few words then take more tokens (vocab.py: 5.1 % of cl100k's bare words)
    (base,) = tok.count(["("])
    longer = sum(n - base > 1 for n in tok.count(["(" + w for w in bare]))
    assert longer / len(bare) <= 1 - after_paren


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


def test_known_words_data_must_decode_exactly() -> None:
    def load(data: str, count: int | None = None) -> object:
        spec: dict[str, object] = {"encoding": "zlib-delta-u32le-base64", "data": data}
        if count is not None:
            spec["count"] = count
        return profile_from_json({"costs": {}, "known_words": spec}, "bad.json").known_words

    good = encode_hashes([5, 9])
    assert load(good, 2) == pack_hashes([5, 9])
    three_bytes = base64.b64encode(zlib.compress(b"abc")).decode()
    junk_after = base64.b64encode(zlib.compress(b"\0" * 8) + b"junk").decode()
    cut_short = base64.b64encode(zlib.compress(b"\1" * 400)[:-4]).decode()
    for data, message in (
        (three_bytes, "not a multiple of 4"),
        (junk_after, "bytes after the stream"),
        (cut_short, "truncated"),
        (good[:-6], "not zlib-delta-u32le-base64 data"),
    ):
        with pytest.raises(ConfigError, match=rf"bad\.json: known words: .*{message}"):
            load(data)
    with pytest.raises(ConfigError, match="'count' says 3, the data holds 2"):
        load(good, 3)
    for bad in (-1, 2**32, 1.5, True):
        with pytest.raises(ValueError, match="a hash must be an int"):
            encode_hashes([bad])  # type: ignore[list-item]


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
