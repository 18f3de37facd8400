"""Strings written to break the calibrated bound: random text of shapes no fit corpus holds.

    PYTHONPATH=python python benches/probe_adversarial.py [family ...]

Thirteen shapes, five seeded documents each (about 1-3 KB): random ASCII marks, pairs of marks
some token holds in random order, gibberish in lowercase Cyrillic and uppercase Greek, random
Hangul syllables, CJK ideographs and katakana, Arabic-Indic digits, digits between commas,
ZWJ emoji, Latin letters with random combining marks, uppercase hex words, words joined by
U+00A0. Prints, per family, the shapes whose worst document the shipped profile under-counts,
with that worst under-count (docs/tokenizers.md, "Written to break it").
"""

from __future__ import annotations

import random
import sys

from ctxsieve.tokenizers import get_estimator
from ctxsieve.tokenizers.packaged import available_families, packaged_tokenizer

MARKS = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"


def shapes(rng: random.Random) -> dict[str, object]:
    def chars(lo: int, hi: int, n: int) -> str:
        return "".join(chr(rng.randrange(lo, hi)) for _ in range(n))

    def words(lo: int, hi: int, a: int, b: int, n: int) -> str:
        return " ".join(chars(lo, hi, rng.randrange(a, b)) for _ in range(n))

    held = ["=>", "->", "::", "()", "[]", "{}", "</", "/>", "**", "--"]
    emoji = ["\U0001f469\u200d\U0001f4bb", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f44d\U0001f3fd"]
    nbsp_words = ["the", "system", "which", "license", "author"]
    return {
        "random_marks": lambda: "".join(rng.choice(MARKS) for _ in range(800)),
        "mark_pairs_held": lambda: "".join(rng.choice(held) for _ in range(400)),
        "cyrillic_gibberish": lambda: words(0x430, 0x450, 3, 9, 200),
        "greek_upper_gibberish": lambda: words(0x391, 0x3A9, 3, 9, 200),
        "random_hangul": lambda: words(0xAC00, 0xD7A4, 2, 6, 200),
        "random_cjk": lambda: chars(0x4E00, 0x9FFF, 600),
        "random_kana": lambda: chars(0x30A1, 0x30FA, 600),
        "arabic_indic_digits": lambda: words(0x660, 0x66A, 5, 20, 80),
        "comma_digits": lambda: ",".join(str(rng.randrange(10)) for _ in range(600)),
        "zwj_emoji": lambda: "".join(rng.choice(emoji) for _ in range(200)),
        "combining_marks": lambda: "".join("a" + chr(rng.randrange(0x300, 0x36F)) for _ in range(400)),
        "upper_hex_words": lambda: " ".join("".join(rng.choice("ABCDEF") for _ in range(8)) for _ in range(200)),
        "nbsp_words": lambda: "\xa0".join(rng.choice(nbsp_words) for _ in range(400)),
    }


def main(argv: list[str]) -> int:
    rng = random.Random(7)
    texts, kinds = [], []
    for kind, make in shapes(rng).items():
        for _ in range(5):
            texts.append(make())  # type: ignore[operator]
            kinds.append(kind)
    for family in argv or available_families():
        truth = packaged_tokenizer(family).count(texts)
        est = get_estimator(f"calibrated:{family}")(texts)
        worst: dict[str, float] = {}
        for kind, e, t in zip(kinds, est, truth):
            worst[kind] = min(worst.get(kind, 0.0), (e - t) / t)
        print(family, ", ".join(f"{k} {v:+.0%}" for k, v in worst.items() if v < 0) or "none under")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
