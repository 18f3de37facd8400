"""One token count: every component that counts gives the same number for the same text and the
same message under the same non-default estimator (issue 13, item 2), and the offloader caps by
the count admission uses (with calibrated:o200k it capped by bytes/3 and let through results
admission counted over the cap)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from ctxsieve import ContextEngine
from ctxsieve.admission import DEFAULT_IMAGE_TOKENS, Accountant, Limits, Session, byte_estimator
from ctxsieve.eval import metrics
from ctxsieve.loop import Compactor, Offloader, OpenAIAdapter, adapter_for, message_tokens
from ctxsieve.sources import StaticSource
from ctxsieve.stores import open_store
from ctxsieve.tokenizers import Estimator, get_estimator, resolve_estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS, ContextItem


def words(texts: list[str]) -> list[int]:
    """A counter of the user's own: one token per word, one per punctuation mark."""
    return [len(t.split()) + sum(not ch.isalnum() and not ch.isspace() for ch in t) for t in texts]


words.name = "words"  # type: ignore[attr-defined]

ESTIMATORS = [pytest.param("calibrated:o200k", id="calibrated"), pytest.param(words, id="callable")]
rng = random.Random(13)
# ids and hashes: what bytes/3 under-counts most, so a wrong estimator shows in every count
TEXT = "\n".join(f'{{"id": {rng.randrange(10**12)}, "sha": "{rng.getrandbits(128):032x}"}}' for _ in range(30))


async def _summarize(request: Any) -> str:
    return "summary"


def test_the_old_names_are_the_one_estimator() -> None:
    est = resolve_estimator("bytes/3")
    assert isinstance(est, Estimator) and resolve_estimator(None) is est is get_estimator()
    assert byte_estimator is est  # ctxsieve.admission's public name, the same object
    assert resolve_estimator(est) is est
    wrapped = resolve_estimator(words)
    assert isinstance(wrapped, Estimator) and wrapped.name == "words"


@pytest.mark.parametrize("spec", ESTIMATORS)
def test_every_component_counts_a_text_alike(spec: Any, tmp_path: Path) -> None:
    want = resolve_estimator(spec).one(TEXT)
    assert want != get_estimator("bytes/3").one(TEXT)  # the estimator is really in use
    kb = StaticSource([ContextItem("doc", TEXT)], name="kb")
    engine = ContextEngine([kb], budget=100_000, estimator=spec)
    assert engine.estimator.one(TEXT) == want
    # the engine's budget counts the item as it renders (the text and its wrapper), at least the text
    assert engine.build_sync("q").trace.entry("doc").tokens >= want
    assert ContextEngine([kb], budget=100_000, tokenizer=spec).estimator.one(TEXT) == want  # older name
    assert Accountant(spec).texts([TEXT]) == [want]
    assert Session(estimator=spec).accountant.texts([TEXT]) == [want]
    assert Offloader(open_store(tmp_path / "o.db"), estimator=spec).tokens(TEXT) == want
    assert metrics.shared_prefix_tokens(None, TEXT, estimator=spec) == (0, want)
    assert metrics.shared_prefix_tokens(TEXT, TEXT, estimator=spec) == (want, want)


@pytest.mark.parametrize("spec", ESTIMATORS)
def test_every_component_counts_a_message_alike(spec: Any) -> None:
    msg = {"role": "user", "content": TEXT}
    (cost,) = Accountant(spec).messages([msg])
    admitted = cost.tokens(image_tokens=0)
    assert admitted == MESSAGE_FRAMING_TOKENS + resolve_estimator(spec).one(TEXT)
    assert message_tokens(OpenAIAdapter(), [msg], spec) == [admitted]
    assert Compactor(_summarize, threshold_tokens=10, estimator=spec).tokens([msg]) == admitted


@pytest.mark.parametrize("spec", ESTIMATORS)
def test_tool_exchanges_and_images_count_alike(spec: Any) -> None:
    # OpenAI and Anthropic shapes, parallel calls, results with an image, a user's text after
    # results: admission, message_tokens and the Compactor read them with the same codecs and
    # count every message they read as the same way
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    convs = [
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": TEXT[:300]},
            {
                "role": "assistant",
                "content": "looking",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"id": 42}'}},
                    {"id": "c2", "type": "function", "function": {"name": "grep", "arguments": '{"p": "x+"}'}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": TEXT[300:900]},
            {"role": "tool", "tool_call_id": "c2", "content": "no match"},
        ],
        [
            {"role": "user", "content": [{"type": "text", "text": "plot it"}, image]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "plot", "input": {"n": 3}}]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": TEXT[:500]}, image],
                    },
                    {"type": "text", "text": "and the legend?"},
                ],
            },
        ],
    ]
    for conv in convs:
        admitted = sum(c.tokens(DEFAULT_IMAGE_TOKENS) for c in Accountant(spec).messages(conv))
        adapter = adapter_for(conv)
        assert sum(message_tokens(adapter, conv, spec)) == admitted
        assert Compactor(_summarize, threshold_tokens=10, estimator=spec).tokens(conv) == admitted
        # with the image rate of the limits in use, as admission with those limits counts
        small = sum(c.tokens(85) for c in Accountant(spec).messages(conv))
        assert Compactor(_summarize, threshold_tokens=10, estimator=spec, image_tokens=85).tokens(conv) == small
    with pytest.raises(ValueError, match="image_tokens: expected an int >= 0, got -1"):
        Compactor(_summarize, threshold_tokens=10, image_tokens=-1)


def test_a_name_in_limits_reaches_the_session_as_the_same_estimator() -> None:
    session = Session(Limits(tokenizer="calibrated:o200k"))
    assert session.accountant.estimator is get_estimator("calibrated:o200k")


def test_the_offloader_caps_by_the_count_admission_uses(tmp_path: Path) -> None:
    # under bytes/3 this result is within 1000 tokens; admission with calibrated:o200k counts it
    # well over. Before the fix the offloader (fixed at bytes/3) let it through uncapped.
    spec = "calibrated:o200k"
    admission = Accountant(spec)
    big = TEXT
    bytes3 = get_estimator("bytes/3").one(big)
    (counted,) = admission.texts([big])
    limit = 1000
    assert bytes3 <= limit < counted
    off = Offloader(open_store(tmp_path / "o.db"), max_tokens=limit, preview_tokens=200, estimator=spec)
    assert off.over_limit(big)
    capped = off.cap(big)
    assert capped != big and admission.texts([capped])[0] <= limit
    assert admission.texts([capped.rsplit("\n", 1)[0]])[0] <= 200 + 1  # the preview is within preview_tokens
    # a read of the stored result stays within the limit as admission counts it, so offloading
    # the conversation again never turns a read into another handle
    handle = capped[capped.index("ctx_") : capped.index("ctx_") + 36]
    read = off.ctx_read(handle, 0, 2000)
    assert admission.texts([read])[0] <= limit and "more lines" in read
    grep = off.ctx_grep(handle, "sha", max_matches=1000)
    assert admission.texts([grep])[0] <= limit and "output cut" in grep


def test_a_huge_result_is_judged_by_its_beginning(tmp_path: Path) -> None:
    seen: list[int] = []

    def counting(texts: list[str]) -> list[int]:
        seen.extend(map(len, texts))
        return [len(t) // 4 for t in texts]

    off = Offloader(open_store(tmp_path / "o.db"), max_tokens=1000, preview_tokens=100, estimator=counting)
    assert off.over_limit("x" * 50_000_000)
    assert max(seen) < 100_000  # never the 50 MB text itself
    assert not off.over_limit("y" * 3999) and off.over_limit("y" * 4004)
