"""Every shipped profile bounds its family's true counts on corpora it was not fitted on.

The held-out split of the mixed corpus (its fit and tune splits are in the fit corpus): at most 1 % of
documents under-counted, by at most 5 %, mean over-count at most 33 % (the profiles refitted for
issue 16 bound the agent corpus too, and over-count 19.6-29.1 % here with ``ws_word``; the limit
was 30 % until the floors from the tokenizer raised ``unknown_word``, ``cjk_piece`` and
``u3_deva_thai``: DeepSeek 24.0 to 30.8 %; 32 % until the emoji probes raised ``u4``: DeepSeek 30.8
to 32.1 %). The check corpus (``benches/data/check.jsonl``, written apart from the fit corpus,
adversarial shapes included): every under-count within 5 %, at most 5 % of documents under (cl100k
1.4 %, 3.5 % before ``ws_word``: brackets around every word, hex dumps, base64), mean over-count at
most 30 % (docs/tokenizers.md; 16-26 % with ``ws_word``). ``any`` against Mistral's SentencePiece
model is allowed 7 %: with the piece features of issue 16 it prices mixed alphanumeric runs lower,
and one base64 blob of random bytes (106 characters) is 6.4 % short (its own profile: 3.6 %)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxsieve.tokenizers import get_estimator, shipped_profiles
from ctxsieve.tokenizers.fit import measure
from ctxsieve.tokenizers.packaged import FAMILIES

# (max share of documents under-counted, max under-count, max mean over-count)
TARGETS = (0.01, 0.05, 0.33)
LIMITS = {family: TARGETS for family in FAMILIES}
# "any" must bound every family as tightly; it over-counts a lot (docs/tokenizers.md: 20-91 %,
# 16-85 % before the floors from the tokenizer)
ANY_LIMITS = (0.01, 0.05, 0.95)
CHECK = Path(__file__).resolve().parents[2] / "benches" / "data" / "check.jsonl"
CHECK_LIMITS = (0.05, 0.05, 0.30)
CHECK_ANY_LIMITS = (0.05, 0.07, 0.95)


def test_every_family_has_a_profile() -> None:
    assert set(FAMILIES) | {"any"} == set(shipped_profiles())


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_profile_bounds_its_family(family: str, heldout, load_family) -> None:  # type: ignore[no-untyped-def]
    texts = [d["text"] for d in heldout]
    truth = load_family(family).count(texts)
    for name, (share, worst, over) in ((family, LIMITS[family]), ("any", ANY_LIMITS)):
        m = measure(get_estimator(f"calibrated:{name}")(texts), truth)
        assert m["under_share"] <= share, (name, m)
        assert m["worst_under"] <= worst, (name, m)
        assert m["mean_over"] <= over, (name, m)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_profile_bounds_the_check_corpus(family: str, load_family) -> None:  # type: ignore[no-untyped-def]
    with open(CHECK, encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    truth = load_family(family).count(texts)
    for name, (share, worst, over) in ((family, CHECK_LIMITS), ("any", CHECK_ANY_LIMITS)):
        m = measure(get_estimator(f"calibrated:{name}")(texts), truth)
        assert m["under_share"] <= share, (name, m)
        assert m["worst_under"] <= worst, (name, m)
        assert m["mean_over"] <= over, (name, m)


# Chat of the common emoji, each a line repeated so the per-document cost cannot cover it. Until
# the emoji probes (``probes.emoji_held``) six profiles priced ``u4`` from the few emoji the
# corpora hold: DeepSeek's estimate of the first chat was 165 tokens where it is 240, Qwen's and
# Claude legacy's short too. Not a probe text: the probes are random emoji, these the usual ones.
EMOJI_CHATS = [
    "alice: lol 😂😂 lol 😂😂\n" * 20,
    "bob: 🔥🔥🔥 this is fire 🔥🔥🔥 this is fire\n" * 20,
    "carol: ok 👍 sad 😢 thanks 🙏 👀 looking into it\n" * 20,
    "😂\n" * 100,
    " ".join(["🎉", "😍", "🚀", "🤔", "😭", "💯", "👏", "🙌"] * 30),
]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_profile_bounds_emoji_chat(family: str, load_family) -> None:  # type: ignore[no-untyped-def]
    truth = load_family(family).count(EMOJI_CHATS)
    for name in (family, "any"):
        est = get_estimator(f"calibrated:{name}")(EMOJI_CHATS)
        # within the worst under-count the targets allow (5 %): Mistral SentencePiece's line
        # of single emoji between spaces is 3.5 % short (each is `▁` and the emoji, 2 tokens)
        short = [(t[:30], e, n) for t, e, n in zip(EMOJI_CHATS, est, truth) if e < 0.95 * n]
        assert not short, (name, short)
