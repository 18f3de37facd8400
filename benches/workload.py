"""Deterministic candidate sets for the kernel benchmarks: 150-word texts over a mixed-language
vocabulary, 20 % of them near-duplicates (a copy of an earlier text with three words changed)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

SYLLABLES = "ka lo mi re tu va ne si po da ri fe gu ho ja xe zu qui bra stel mon per tal vin dor".split()
EXTRA = ["niño", "über", "façade", "東京", "データ", "😀", "naïve", "Straße", "E-4217", "v2.3"]


@dataclass(frozen=True)
class Candidates:
    texts: list[str]
    ids: list[str]
    scores: list[float]
    tokens: list[int]
    sources: list[str]
    stability: list[str]
    pinned: list[bool]
    history: list[bool]

    @property
    def total_bytes(self) -> int:
        return sum(len(t.encode("utf-8")) for t in self.texts)


@cache
def vocabulary(size: int = 3000, seed: int = 7) -> tuple[str, ...]:
    rnd = random.Random(seed)
    words = {"".join(rnd.choice(SYLLABLES) for _ in range(rnd.randint(1, 4))) for _ in range(size * 2)}
    return tuple(sorted(words))[:size] + tuple(EXTRA)


@cache
def candidates(n: int, words_per_text: int = 150, near_dup_share: float = 0.2, seed: int = 42) -> Candidates:
    rnd = random.Random(seed)
    vocab = vocabulary()
    texts: list[str] = []
    for i in range(n):
        if i > 0 and rnd.random() < near_dup_share:
            ws = texts[rnd.randrange(len(texts))].split(" ")
            for _ in range(3):
                ws[rnd.randrange(len(ws))] = rnd.choice(vocab)
        else:
            ws = [rnd.choice(vocab) for _ in range(words_per_text)]
        texts.append(" ".join(ws))
    sources = ["rag", "okf", "memory", "history", "tools"]
    src = [sources[i % len(sources)] for i in range(n)]
    return Candidates(
        texts=texts,
        ids=[f"{src[i]}-{i:06d}" for i in range(n)],
        scores=[round(rnd.random(), 6) for _ in range(n)],
        tokens=[(len(t.encode("utf-8")) + 2) // 3 for t in texts],
        sources=src,
        stability=[("stable", "session", "volatile")[min(2, i % 7 // 2)] for i in range(n)],
        pinned=[i < 2 for i in range(n)],
        history=[s == "history" for s in src],
    )


# -- shared boilerplate (issue 15) ----------------------------------------------------------------

FOOTER = "this page is provided as is without warranty see our terms and the privacy notice".split()
assert len(FOOTER) == 15


def with_footer(c: Candidates) -> Candidates:
    """The same candidates, each text ending in the same 15-word footer (a page disclaimer)."""
    return _retexted(c, [f"{t} {' '.join(FOOTER)}" for t in c.texts])


def with_template(c: Candidates, share: float = 0.1, changed: tuple[int, int] = (4, 6), seed: int = 5) -> Candidates:
    """The same candidates, ``share`` of them replaced by one 150-word template with between
    ``changed[0]`` and ``changed[1]`` words replaced at random (a form letter). With 4 to 6
    words changed, two copies are mostly just below the 0.8 threshold of each other and some
    above it: the case prefix filtering cannot prune (with 3, nearly every copy is a duplicate
    of the first; with 8, each copy's own shingles alone rule it out)."""
    rnd = random.Random(seed)
    vocab = vocabulary()
    template = [rnd.choice(vocab) for _ in range(150)]
    texts = list(c.texts)
    for i in rnd.sample(range(len(texts)), int(share * len(texts))):
        ws = list(template)
        for _ in range(rnd.randint(*changed)):
            ws[rnd.randrange(len(ws))] = rnd.choice(vocab)
        texts[i] = " ".join(ws)
    return _retexted(c, texts)


def _retexted(c: Candidates, texts: list[str]) -> Candidates:
    return Candidates(
        texts=texts,
        ids=c.ids,
        scores=c.scores,
        tokens=[(len(t.encode("utf-8")) + 2) // 3 for t in texts],
        sources=c.sources,
        stability=c.stability,
        pinned=c.pinned,
        history=c.history,
    )
