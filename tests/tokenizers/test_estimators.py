"""get_estimator: every name resolves to a callable list[str] -> list[int]."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxsieve import kernels
from ctxsieve.errors import ConfigError
from ctxsieve.kernels.calibrated import FEATURES, KnownWords, estimate_reference
from ctxsieve.tokenizers import DEFAULT_ESTIMATOR, get_estimator, load_profile, shipped_profiles

TEXTS = ["", "hello", "héllo wörld", "你好", "👩‍💻 a1b2c3d4e5", "x\ud800y", "The cat sat on the mat, señor."]


def test_default_is_bytes_over_three() -> None:
    assert DEFAULT_ESTIMATOR == "bytes/3"
    assert get_estimator()(TEXTS) == kernels.estimate_tokens(TEXTS)
    assert get_estimator("bytes/4")(TEXTS) == kernels.estimate_tokens(TEXTS, 4)


def test_shipped_profiles() -> None:
    names = set(shipped_profiles())
    assert {"any", "cl100k", "o200k", "llama3", "qwen", "deepseek", "mistral-tekken", "mistral-sp"} <= names
    assert "claude-legacy" in names
    for name in names:
        profile = load_profile(name)
        assert len(profile.cost_vector()) == len(FEATURES)
        # every shipped profile knows the common English words of its tokenizer
        assert profile.known_words is not None and len(profile.known_words) // 4 > 20_000
        est = get_estimator(f"calibrated:{name}")
        out = est(TEXTS)
        tables = KnownWords(
            profile.known_words, profile.char_extra, profile.digit_group, profile.punct_pairs, None, profile.cjk_tokens
        )
        assert out == estimate_reference(TEXTS, profile.cost_vector(), tables)
        assert out != estimate_reference(TEXTS, profile.cost_vector())  # the known words are used
        # every shipped profile carries its tokenizer's character table, digit group and pairs
        assert profile.char_extra is not None and profile.punct_pairs is not None
        assert profile.digit_group == {
            "qwen": 1,
            "mistral-tekken": 1,
            "mistral-sp": 1,
            "claude-legacy": 4,
            "any": 1,
        }.get(name, 3)
        assert out[0] == 0 and all(n >= 1 for n in out[1:])
        assert est(tuple(TEXTS)) == out  # any sequence


def test_profile_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"name": "mine", "costs": {"doc": 1000, "lower": 500}}))
    assert get_estimator(f"calibrated:{path}")(["abcd", ""]) == [3, 0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not valid JSON"),
        ('{"costs": {"nope": 1}}', "unknown feature 'nope'"),
        ('{"costs": {"doc": -1}}', "must be an int"),
        ('{"costs": {"doc": 1.5}}', "must be an int"),
        ("[]", "expected an object"),
        ('{"costs": {}, "bounds": {"doc": 1}}', "'bounds' must be a list of at most 7 cost objects, got dict"),
        ('{"costs": {}, "bounds": [{}, {}, {}, {}, {}, {}, {}, {}]}', "at most 7 cost objects, got 8 objects"),
        ('{"costs": {}, "bounds": [{}, [1]]}', r"bounds\[1\]: expected an object \(feature -> cost\), got list"),
        ('{"costs": {}, "bounds": [{}, {"doc": -1}]}', r"bounds\[1\]: cost of 'doc' must be an int"),
        ('{"costs": {}, "bounds": [{"nope": 1}]}', r"bounds\[0\]: unknown feature 'nope'"),
    ],
)
def test_malformed_profiles(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_profile(path)


def test_a_profile_of_several_bounds_estimates_their_smallest(tmp_path: Path) -> None:
    """``bounds`` beside ``costs``: each text is estimated by the bound that prices it lower
    (hand-computed: doc 1 token; letters 0.2 or 0.7 a letter, digits 0.9 or 0.3 a digit), and
    the profile round-trips through its JSON."""
    path = tmp_path / "two.json"
    data = {
        "name": "two",
        "costs": {"doc": 1000, "lower": 200, "digit": 900},
        "bounds": [{"doc": 1000, "lower": 700, "digit": 300}],
    }
    path.write_text(json.dumps(data))
    profile = load_profile(path)
    assert len(profile.cost_vectors()) == 2 and profile.bounds[0]["digit"] == 300
    assert get_estimator(f"calibrated:{path}")(["abcdefghij", "0123456789", "abcde 01234", ""]) == [3, 4, 6, 0]
    again = tmp_path / "again.json"
    again.write_text(json.dumps(profile.to_json()))
    assert load_profile(again).cost_vectors() == profile.cost_vectors()
    assert profile.kernel_costs() == profile.cost_vectors()
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"name": "one", "costs": data["costs"], "bounds": None}))
    assert "bounds" not in load_profile(one).to_json()  # null is absent, as for every optional key
    assert load_profile(one).kernel_costs() == load_profile(one).cost_vector()  # one bound: flat
    assert get_estimator(f"calibrated:{one}")(["0123456789"]) == [10]


def test_missing_profile_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_profile(tmp_path / "absent.json")


def test_exact_estimators_are_flagged(load_family) -> None:  # type: ignore[no-untyped-def]
    from ctxsieve.tokenizers.packaged import packaged_path

    load_family("claude-legacy")
    est = get_estimator(f"hf:{packaged_path('claude-legacy')}")
    assert est.exact and est.one("hello world") == 2
    assert not get_estimator("calibrated:any").exact
