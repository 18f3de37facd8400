"""Small builders shared by the engine tests."""

from __future__ import annotations

import zlib

from ctxsieve import ContextItem, Signals

# A text of n distinct words, so no two texts made here are near-duplicates by accident;
# with bytes/3 its token cost is ceil(len / 3).
_VOCAB = [f"w{i}x" for i in range(100000)]


def text(seed: int, words: int = 12) -> str:
    return " ".join(_VOCAB[(seed * 37 + k * 101) % len(_VOCAB)] + str(seed) for k in range(words))


def item(
    id: str,
    score: float = 0.5,
    *,
    tokens: int | None = 10,
    source: str = "",
    content: str | None = None,
    stability: str = "volatile",
    kind: str = "knowledge",
    pinned: bool = False,
    stale: bool = False,
    deprecated: bool = False,
    trust: str | None = None,
    citation: str | None = None,
    order_key: str | None = None,
) -> ContextItem:
    return ContextItem(
        id,
        content if content is not None else f"{id}: " + text(zlib.crc32(id.encode()) % 9973),
        source,
        kind,  # type: ignore[arg-type]
        stability,  # type: ignore[arg-type]
        score=score,
        tokens=tokens,
        signals=Signals(trust=trust, stale=stale, deprecated=deprecated, citation=citation),
        pinned=pinned,
        order_key=order_key,
    )


def only_given_tokens(texts: list[str]) -> list[int]:
    """An estimator that counts every text the engine renders around an item (its wrapper, the
    separator, a history message's body) as 0 tokens: an item given ``tokens=`` then costs
    exactly that (a history item adds MESSAGE_FRAMING_TOKENS per message), so a test can work
    the fill out by hand. What the engine charges for rendering is tested in test_budget.py."""
    return [0] * len(texts)
