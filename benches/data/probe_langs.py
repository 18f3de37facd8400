"""Natural languages (probe corpus): vim's installed tutors (real prose by their translators:
Spanish, Portuguese, German, French, Turkish, Vietnamese, Polish, Czech, Hungarian, Russian,
Ukrainian, Bulgarian, Serbian, Greek, Chinese simplified and traditional, Japanese, Korean),
CPython's ``test/cjkencodings`` sample texts, the Rust by Example translations in the Rust
toolchain's docs (Chinese, Japanese, Korean, Spanish prose around English identifiers and code),
and the hand-written sentences of ``probe_phrases`` assembled into paragraphs; Japanese also as
half-width katakana and full-width ASCII (mapped with ``unicodedata``'s compatibility
decompositions)."""

from __future__ import annotations

import html.parser
import random
import unicodedata

from probe_common import Sources, chunks
from probe_phrases import INSERTS, PHRASES

TUTORS = {
    "es": "es",
    "pt": "pt",
    "de": "de",
    "fr": "fr",
    "tr": "tr",
    "vi": "vi",
    "pl": "pl",
    "cs": "cs",
    "hu": "hu",
    "ru": "ru",
    "uk": "uk",
    "bg": "bg",
    "sr": "sr",
    "el": "el",
    "zh_cn": "zh_cn",
    "zh_tw": "zh_tw",
    "ja": "ja",
    "ko": "ko",
}
GROUPS = {
    "lang_latin": ["es", "pt", "de", "fr", "tr", "vi", "pl", "cs", "hu"],
    "lang_cyrillic_greek": ["ru", "uk", "bg", "sr", "el"],
    "lang_cjk_tutor": ["zh_cn", "zh_tw", "ja", "ko"],
}


def tutors(rng: random.Random, src: Sources, group: str, n: int) -> list[tuple[str, str]]:
    langs = GROUPS[group]
    out: list[tuple[str, str]] = []
    per = -(-n // len(langs))
    for lang in langs:
        text = src.text(f"usr:share/vim/vim90/tutor/tutor.{TUTORS[lang]}.utf-8")
        out += [(p, f"vim_tutor:{lang}") for p in chunks(rng, text, per, 500, 8000)]
    rng.shuffle(out)
    return out[:n]


def cjk_samples(rng: random.Random, src: Sources) -> list[tuple[str, str]]:
    out = []
    for name in src.glob("stdlib:test/cjkencodings/*-utf8.txt"):
        text = src.text(name)
        if len(text.encode()) >= 200:
            out.append((text, "cjkencodings:" + name.rsplit("/", 1)[1][: -len("-utf8.txt")]))
    return out


class _Text(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.inside = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "main":
            self.inside += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "main":
            self.inside -= 1
        elif tag in ("p", "pre", "h1", "h2", "li") and self.inside:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.parts.append(data)


def rust_by_example(rng: random.Random, src: Sources, lang: str, n: int) -> list[tuple[str, str]]:
    names = src.glob(f"rustup:rust-by-example/{lang}/**/*.html")
    rng.shuffle(names)
    out = []
    for name in names:
        p = _Text()
        p.feed(src.text(name))
        text = "".join(p.parts).strip()
        if len(text.encode()) >= 400:
            out.append((text[: rng.randint(800, 6000)], f"rust_by_example:{lang}"))
        if len(out) >= n:
            break
    return out


def phrases(rng: random.Random, lang: str, mix: float) -> str:
    """A few paragraphs of ``lang``'s sentences (sampled with replacement, so repeats happen as in
    chat logs), with English terms and numbers dropped in at rate ``mix``."""
    paras = []
    for _ in range(rng.randint(1, 8)):
        sent = []
        for _ in range(rng.randint(2, 9)):
            s = rng.choice(PHRASES[lang])
            if rng.random() < mix:
                s = f"{s} ({rng.choice(INSERTS)})" if rng.random() < 0.5 else f"{rng.choice(INSERTS)}: {s}"
            sent.append(s)
        paras.append((" " if lang not in ("zh_classical", "ja_kanji", "zh_mixed", "th") else "").join(sent))
    return "\n\n".join(paras) + "\n"


def _narrow_table() -> dict[int, str]:
    """Full-width katakana (and the prolonged sound mark) to their half-width forms, built from
    U+FF61-FF9F's ``<narrow>`` decompositions; voiced kana become base + half-width dakuten."""
    table: dict[int, str] = {}
    for cp in range(0xFF61, 0xFFA0):
        dec = unicodedata.decomposition(chr(cp))
        if dec.startswith("<narrow>"):
            table[int(dec.split()[1], 16)] = chr(cp)
    for cp in range(0x30A0, 0x3100):
        base = unicodedata.normalize("NFD", chr(cp))
        if len(base) == 2 and ord(base[0]) in table and base[1] in "\u3099\u309a":
            table[cp] = table[ord(base[0])] + ("\uff9e" if base[1] == "\u3099" else "\uff9f")
    return table


NARROW = _narrow_table()
WIDE = {c: chr(c + 0xFEE0) for c in range(0x21, 0x7F)} | {0x20: "\u3000"}


def halfwidth(rng: random.Random) -> tuple[str, str]:
    lines = []
    for _ in range(rng.randint(4, 30)):
        s = rng.choice(PHRASES["ja_katakana"] + PHRASES["ja_kana"])
        kata = "".join(chr(ord(c) + 0x60) if 0x3041 <= ord(c) <= 0x3096 else c for c in s)  # hiragana -> katakana
        lines.append(
            f"{rng.randint(1, 9999):04d} ｶﾌﾞｼｷｶﾞｲｼｬ " + kata.translate(NARROW) + f" ¥{rng.randint(100, 99999):,}"
        )
    return "\n".join(lines) + "\n", "handwritten:ja_halfwidth"


def fullwidth(rng: random.Random) -> tuple[str, str]:
    lines = []
    for _ in range(rng.randint(4, 25)):
        ascii_part = rng.choice(
            [*INSERTS, "ABC-123", "Tel: 03-1234-5678", "Email: info@example.co.jp", "Windows 11 Pro"]
        )
        lines.append(rng.choice(PHRASES["ja_kanji"] + PHRASES["ja_kana"])[:60] + "　" + ascii_part.translate(WIDE))
    return "\n".join(lines) + "\n", "handwritten:ja_fullwidth"
