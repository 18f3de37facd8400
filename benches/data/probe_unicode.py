"""Text shaped to break an upper bound (probe corpus). The base prose is the licence texts in
``/usr/share/common-licenses`` (English, installed by base-files) and the hand-written sentences
of ``probe_phrases``; every character added is built from ``unicodedata`` names: dense emoji
chat (ZWJ families and professions, skin tones, keycaps, country and subdivision-tag flags),
"fancy" mathematical-alphanumeric letters as social posts use them, zero-width characters and
soft hyphens between letters, combining marks (strike-through, underline, zalgo), bidi controls
around numbers and English words in Arabic and Hebrew, NFD-decomposed text (as macOS file
names and clipboards hold it; Korean becomes conjoining jamo), upper-cased text, spaced-out
letters, repeated characters, long single words and Cyrillic homoglyphs."""

from __future__ import annotations

import random
import re
import unicodedata

from probe_common import Sources
from probe_phrases import PHRASES

L = unicodedata.lookup
SKIN = [L(f"EMOJI MODIFIER FITZPATRICK TYPE-{t}") for t in ("1-2", "3", "4", "5", "6")]
ZWJ, VS16 = "\u200d", "\ufe0f"
BASE = [
    "GRINNING FACE",
    "FACE WITH TEARS OF JOY",
    "ROLLING ON THE FLOOR LAUGHING",
    "SMILING FACE WITH HEART-SHAPED EYES",
    "THINKING FACE",
    "FIRE",
    "ROCKET",
    "PARTY POPPER",
    "THUMBS UP SIGN",
    "CLAPPING HANDS SIGN",
    "SKULL",
    "SPARKLES",
    "PILE OF POO",
    "EYES",
    "FACE SCREAMING IN FEAR",
    "PERSON WITH FOLDED HANDS",
    "FLEXED BICEPS",
    "WAVING HAND SIGN",
    "HUNDRED POINTS SYMBOL",
    "WHITE HEAVY CHECK MARK",
    "CROSS MARK",
    "HOT BEVERAGE",
]
HANDS = [
    "THUMBS UP SIGN",
    "CLAPPING HANDS SIGN",
    "WAVING HAND SIGN",
    "FLEXED BICEPS",
    "PERSON WITH FOLDED HANDS",
    "OK HAND SIGN",
]
JOBS = [
    "PERSONAL COMPUTER",
    "ROCKET",
    "MICROSCOPE",
    "FIRE ENGINE",
    "COOKING",
    "SCHOOL",
    "ARTIST PALETTE",
    "WRENCH",
    "AIRPLANE",
]


def emoji(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.3:
        return L(rng.choice(BASE))
    if r < 0.45:
        return L(rng.choice(HANDS)) + rng.choice(SKIN)
    if r < 0.6:
        return L(rng.choice(["MAN", "WOMAN"])) + rng.choice(SKIN) + ZWJ + L(rng.choice(JOBS))
    if r < 0.7:
        people = [L(rng.choice(["MAN", "WOMAN"])), L(rng.choice(["MAN", "WOMAN"]))] + [
            L(rng.choice(["GIRL", "BOY"])) for _ in range(rng.randint(1, 2))
        ]
        return ZWJ.join(people)
    if r < 0.8:
        cc = rng.choice(["JP", "BR", "DE", "TR", "VN", "PL", "UA", "IN", "KR", "US", "MX"])
        return "".join(L(f"REGIONAL INDICATOR SYMBOL LETTER {c}") for c in cc)
    if r < 0.85:
        tag = rng.choice(["gbeng", "gbsct", "gbwls"])
        return L("WAVING BLACK FLAG") + "".join(chr(0xE0000 + ord(c)) for c in tag) + "\U000e007f"
    if r < 0.9:
        return rng.choice("0123456789#*") + VS16 + "\u20e3"
    return rng.choice(
        [
            L("HEAVY BLACK HEART") + VS16 + ZWJ + L("FIRE"),
            L("WAVING WHITE FLAG") + VS16 + ZWJ + L("RAINBOW"),
            L("HEAVY BLACK HEART") + VS16,
        ]
    )


def emoji_chat(rng: random.Random, src: Sources) -> tuple[str, str]:
    langs = ["es", "ko", "ja_kana", "ar", "th", "hi", "zh_mixed"]
    out = []
    for _ in range(rng.randint(10, 80)):
        who = rng.choice(["@yuki", "@carla", "@omar", "@minji", "@dev-bot", "@priya"])
        r = rng.random()
        if r < 0.3:
            msg = "".join(emoji(rng) for _ in range(rng.randint(1, 12)))
        elif r < 0.7:
            msg = rng.choice(PHRASES[rng.choice(langs)]) + " " + "".join(emoji(rng) for _ in range(rng.randint(1, 5)))
        else:
            word = ["lgtm", "ship it", "who broke main??", "brb", "omg", "nice!!"]
            msg = f"{emoji(rng)} {rng.choice(word)} {emoji(rng) * rng.randint(1, 6)}"
        out.append(f"[{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}] {who}: {msg}")
    return "\n".join(out) + "\n", "unicodedata:emoji_chat"


STYLES = [
    "BOLD",
    "ITALIC",
    "BOLD ITALIC",
    "SCRIPT",
    "BOLD SCRIPT",
    "FRAKTUR",
    "DOUBLE-STRUCK",
    "SANS-SERIF BOLD",
    "SANS-SERIF ITALIC",
    "MONOSPACE",
]


def fancy_letter(c: str, style: str) -> str:
    if c.isascii() and c.isalpha():
        case = "CAPITAL" if c.isupper() else "SMALL"
        try:
            return L(f"MATHEMATICAL {style} {case} {c.upper()}")
        except KeyError:
            return c  # the holes of the block (e.g. italic h is U+210E), left as ASCII
    if c.isdigit() and style in ("BOLD", "DOUBLE-STRUCK", "SANS-SERIF BOLD", "MONOSPACE"):
        return L(f"MATHEMATICAL {style} DIGIT {unicodedata.name(c).split()[-1]}")
    return c


def _license_text(rng: random.Random, src: Sources) -> tuple[str, str]:
    name = rng.choice(
        [
            "usr:share/common-licenses/Apache-2.0",
            "usr:share/common-licenses/GPL-3",
            "usr:share/common-licenses/MPL-2.0",
            "usr:share/common-licenses/LGPL-2.1",
        ]
    )
    text = src.text(name)
    at = text.index("\n", rng.randrange(len(text) - 3000)) + 1
    return text[at : at + rng.randint(400, 2500)], name.rsplit("/", 1)[1]


def fancy_post(rng: random.Random, src: Sources) -> tuple[str, str]:
    base, lic = _license_text(rng, src)
    style = rng.choice(STYLES)
    lines = []
    for line in base.splitlines():
        if rng.random() < 0.5:
            line = "".join(fancy_letter(c, style) for c in line)
        lines.append(line + (" " + emoji(rng) if rng.random() < 0.3 else ""))
    return "\n".join(lines) + "\n", f"{lic}:fancy:{style.lower()}"


def invisible(rng: random.Random, src: Sources) -> tuple[str, str]:
    base, lic = _license_text(rng, src)
    kind = rng.choice(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"])
    rate = rng.choice([0.1, 0.3, 1.0])
    text = "".join(c + kind if c.isalpha() and rng.random() < rate else c for c in base)
    return text, f"{lic}:invisible:U+{ord(kind):04X}"


def combining(rng: random.Random, src: Sources) -> tuple[str, str]:
    base, lic = _license_text(rng, src)
    kind = rng.choice(["strike", "underline", "zalgo"])
    if kind == "zalgo":
        marks = [chr(c) for c in range(0x300, 0x370)]
        text = "".join(
            c + "".join(rng.choice(marks) for _ in range(rng.randint(1, 6))) if c.isalpha() else c for c in base
        )
    else:
        mark = "\u0336" if kind == "strike" else "\u0332"
        text = "".join(c + mark if not c.isspace() else c for c in base)
    return text, f"{lic}:combining:{kind}"


BIDI = ["\u200e", "\u200f", "\u202b", "\u202a", "\u202c", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u061c"]


def bidi(rng: random.Random, src: Sources) -> tuple[str, str]:
    lang = rng.choice(["ar", "he", "fa"])
    out = []
    for _ in range(rng.randint(5, 40)):
        s = rng.choice(PHRASES[lang])
        term = rng.choice(
            ["iPhone 15 Pro", "v3.2.1", "user@example.com", "SKU-88231", "+1 (415) 555-0100", "2026/12/01", "42.5%"]
        )
        iso_open, iso_close = rng.choice(
            [("\u2066", "\u2069"), ("\u200e", "\u200e"), ("\u202a", "\u202c"), ("\u2068", "\u2069")]
        )
        out.append(
            "\u200f" + s + " " + iso_open + term + iso_close + rng.choice(BIDI) + " " + str(rng.randint(1, 10**6))
        )
    return "\n".join(out) + "\n", f"handwritten:bidi:{lang}"


def nfd(rng: random.Random, src: Sources) -> tuple[str, str]:
    lang = rng.choice(["vi", "fr", "ko", "pl", "de", "ja"])
    text = src.text(f"usr:share/vim/vim90/tutor/tutor.{lang}.utf-8")
    at = rng.randrange(len(text) - 3000)
    piece = text[at : at + rng.randint(300, 3000)]
    if rng.random() < 0.5:  # as a file listing: macOS hands NFD names to every tool
        words = [w for w in re.split(r"\s+", piece) if w][:60]
        piece = "\n".join(f"/Users/zoë/Documents/{w}/{rng.choice(words)}.pdf" for w in words)
    return unicodedata.normalize("NFD", piece), f"vim_tutor:{lang}:nfd"


HOMO = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і"}


def shapes(rng: random.Random, src: Sources) -> tuple[str, str]:
    base, lic = _license_text(rng, src)
    kind = rng.choice(["upper", "upper_tutor", "spaced", "repeated", "homoglyph"])
    if kind == "upper":
        text = base.upper()
    elif kind == "upper_tutor":
        lang = rng.choice(["de", "es", "ru", "tr", "el", "pl"])
        t = src.text(f"usr:share/vim/vim90/tutor/tutor.{lang}.utf-8")
        at = rng.randrange(len(t) - 3000)
        return t[at : at + rng.randint(300, 3000)].upper(), f"vim_tutor:{lang}:upper"
    elif kind == "spaced":
        text = "\n".join(
            " ".join(line) if rng.random() < 0.7 else "  ".join(line.split()) for line in base.splitlines()
        )
    elif kind == "repeated":
        reps = ["a", "!", "?", ".", "ha", "lol", "ㅋ", "w", "5", "😂", "ー", "o", "z", "-", "*", "~", "—", "♥"]
        text = " ".join(w + (rng.choice(reps) * rng.randint(3, 40) if rng.random() < 0.4 else "") for w in base.split())
    else:
        text = "".join(HOMO[c] if c in HOMO and rng.random() < 0.3 else c for c in base)
    return text, f"{lic}:{kind}"


LONG = [
    "Donaudampfschifffahrtsgesellschaftskapitänswitwe",
    "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz",
    "lentokonesuihkuturbiinimoottoriapumekaanikkoaliupseerioppilas",
    "Muvaffakiyetsizleştiricileştiriveremeyebileceklerimizdenmişsinizcesine",
    "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch",
    "pneumonoultramicroscopicsilicovolcanoconiosis",
    "1-[(2S,3R)-3-hydroxy-2-methyl-4-oxo-azetidin-1-yl]-N,N-dimethyl-pyrrolidine-2-carboxamide",
    "AbstractSingletonProxyFactoryBean",
    "nieprzeciwrzeczywistościowymi",
    "противоестественнейшими",
    "#throwbackthursdayvibesonlynofilter",
    "bestcheapflightdealsonlinetoday",
]


def long_words(rng: random.Random, src: Sources) -> tuple[str, str]:
    base, lic = _license_text(rng, src)
    words = base.split()
    out = []
    for w in words:
        out.append(w)
        if rng.random() < 0.15:
            out.append(
                rng.choice(LONG) if rng.random() < 0.6 else "".join(rng.sample(words, rng.randint(3, 9))).lower()
            )
    return " ".join(out), f"{lic}:long_words"


def legal_prose(rng: random.Random, src: Sources) -> tuple[str, str]:
    return _license_text(rng, src)
