"""The ``cjk_tokens`` field of a profile, and how a profile written before it is read: with
``cjk_pairs`` and its CJK tokens hashed into ``known_words``, as it was written (the same
estimates); without either, every CJK character is a piece (what it always was)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxsieve.errors import ConfigError
from ctxsieve.kernels import calibrated as ref
from ctxsieve.tokenizers import load_profile, shipped_profiles
from ctxsieve.tokenizers.profiles import Profile, profile_from_json
from ctxsieve.tokenizers.vocab_pieces import cjk_hashes, cjk_pair_table, encode_tokens

HELDOUT = Path(__file__).parents[2] / "benches" / "data" / "heldout.jsonl"


def tokens_of(p: Profile) -> list[str]:
    assert p.cjk_tokens is not None
    return p.cjk_tokens.decode().split("\n") if p.cjk_tokens else []


def legacy_of(p: Profile) -> Profile:
    """``p`` as the profiles before ``cjk_tokens`` held it."""
    words = p.known_words or b""
    held = {int.from_bytes(words[i : i + 4], "little") for i in range(0, len(words), 4)}
    tokens = tokens_of(p)
    return Profile(
        p.name,
        p.costs,
        p.family,
        p.tokenizer,
        p.meta,
        ref.pack_hashes(held | cjk_hashes(tokens)),
        p.char_extra,
        p.digit_group,
        p.punct_pairs,
        cjk_pair_table(tokens),
    )


def cjk_docs() -> list[str]:
    with open(HELDOUT, encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    return [d["text"] for d in docs if d["kind"] in ("zh", "ja")][:40]


@pytest.mark.parametrize("name", shipped_profiles())
def test_shipped_profiles_hold_their_cjk_tokens_apart(name: str) -> None:
    p = load_profile(name)
    assert p.cjk_pairs is None and p.cjk_tokens is not None
    tokens = tokens_of(p)
    assert tokens == sorted(set(tokens))
    words = p.known_words or b""
    held = {int.from_bytes(words[i : i + 4], "little") for i in range(0, len(words), 4)}
    # the old layout's hashes left the set (a few may stay: equal to a word candidate's hash)
    assert len(held & cjk_hashes(tokens)) <= 8


@pytest.mark.parametrize("name", ["o200k", "qwen"])
def test_a_legacy_profile_estimates_as_the_new_one(name: str, tmp_path: Path) -> None:
    new = load_profile(name)
    old = legacy_of(new)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old.to_json()), encoding="utf-8")
    loaded = load_profile(path)
    assert loaded.cjk_tokens is None and loaded.cjk_pairs is not None
    texts = [*cjk_docs(), "中文字典", "日本語です", "한국어"]
    costs = new.cost_vector()
    assert ref.estimate_calibrated(texts, costs, loaded.tables()) == ref.estimate_calibrated(texts, costs, new.tables())


def test_a_profile_without_cjk_tables_cuts_every_character() -> None:
    p = profile_from_json(
        {"costs": {"cjk_piece": 1000}, "known_words": load_profile("o200k").to_json()["known_words"]}, "mine.json"
    )
    assert ref.estimate_calibrated(["中文字典"], p.cost_vector(), p.tables()) == [4]


def _with(data: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**data, **fields}


def test_malformed_cjk_tokens_name_the_profile_and_the_field() -> None:
    base = {"costs": {"doc": 1}}
    good = {"count": 2, "encoding": "zlib-utf8-lines-base64", "data": encode_tokens("中文\n한국".encode())}
    p = profile_from_json(_with(base, cjk_tokens=good), "mine.json")
    assert p.cjk_tokens == "中文\n한국".encode()
    assert profile_from_json(p.to_json(), "again.json").cjk_tokens == p.cjk_tokens
    cases = [
        ({"encoding": "zlib-base64", "data": good["data"]}, "'cjk_tokens' must be an object with encoding"),
        ({**good, "data": "!!"}, "cjk_tokens: not zlib-utf8-lines-base64 data"),
        ({**good, "count": 3}, "cjk_tokens: 'count' says 3, the data holds 2"),
        ({**good, "data": encode_tokens("中文\nab".encode())}, "known words: cjk_tokens: token 1: expected 2 to 8"),
        ({**good, "data": encode_tokens(b"\xff")}, r"known words: cjk_tokens: not UTF-8 \(at byte 0\)"),
    ]
    for spec, match in cases:
        with pytest.raises(ConfigError, match=f"profile mine.json: .*{match}"):
            profile_from_json(_with(base, cjk_tokens=spec), "mine.json")
    pairs = load_profile("o200k").to_json()["punct_pairs"]  # any 2 KB table: cjk_pairs is 64 KB
    with pytest.raises(ConfigError, match=r"profile mine\.json: cjk_pairs: expected 65536 bytes"):
        profile_from_json(_with(base, cjk_tokens=good, cjk_pairs=pairs), "mine.json")
    legacy = legacy_of(load_profile("cl100k")).to_json()["cjk_pairs"]
    with pytest.raises(
        ConfigError, match=r"profile mine\.json: 'cjk_pairs' and 'cjk_tokens' together.*delete 'cjk_pairs'"
    ):
        profile_from_json(_with(base, cjk_tokens=good, cjk_pairs=legacy), "mine.json")
