"""Probe texts: synthetic text dominated by one feature, made by code, whose true counts come from
the tokenizer itself (``fit_groups.tokenizer_floors``).

A fold that never saw a kind of text can price the feature that text is made of below what the
tokenizer spends on it: without Caesar-shifted English a fold priced ``unknown_word`` at 0,
without Korean place names ``cjk_piece`` at 0.69 token, without Thai names ``u3_deva_thai`` at
0.44 token a character. What a tokenizer spends on such text does not depend on a corpus, so
each probe kind is text made of nothing else (random letters, random held CJK characters), and
its feature's cost is raised until the tokenizer's own count of every probe is bounded:

* ``latin_uniform``, ``latin_freq``: lines of words of 2-12 random ASCII letters (uniform, or at
  English letter frequencies), 30 % capitalised, 10 % upper case: unknown words, priced by
  ``unknown_word``.
* ``hangul_held``, ``hangul_any``, ``cjk_held``, ``kana_held``: random Hangul syllables (those
  the tokenizer holds as one token, or any), ideographs and kana the tokenizer holds as one token,
  in words of 1-8: every character is a piece of its own, priced by ``cjk_piece``.
* ``thai``, ``deva``: words of random Thai and Devanagari letters, priced by ``u3_deva_thai``.
* ``emoji_held``, ``emoji_any``: random emoji (U+1F300-U+1F6FF and U+1F900-U+1F9FF, those the
  tokenizer spends the fewest tokens on alone, one for a tokenizer that holds any, or any), one a
  word or in runs of up to 3, the words between spaces, on lines of their own or side by side, as
  chat sends them: priced by ``u4`` (the extra tokens of one not held are ``char_extra``'s, floored apart).
  Added 2026-12-04: a fold, and the full fit too, priced ``u4`` from the emoji the corpora
  happen to hold, at 0.21 token a character for DeepSeek, while 😂 is one token of its own; a
  chat line ``"alice: lol 😂😂 lol 😂😂\n"`` repeated 20 times was 240 tokens and estimated 165.

Held characters are read from the ``char_extra`` table (extra 0: one token alone), so the probes
follow the tokenizer. Twelve texts a kind, 200 to 4,000 characters, seeded: the same tables give
the same texts. (Random hexadecimal words were tried as a probe for ``word_start``; every fold
already bounded them.)

>>> [k for k, _ in probe_texts(bytes(32768), per_kind=1)][:3]
['latin_uniform', 'latin_freq', 'hangul_held']
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from ctxsieve.kernels.calibrated import CJK_PIECE, U3_DEVA_THAI, U4, UNKNOWN_WORD

# each probe kind and the feature whose cost it floors
PROBE_TARGETS = {
    "latin_uniform": UNKNOWN_WORD,
    "latin_freq": UNKNOWN_WORD,
    "hangul_held": CJK_PIECE,
    "hangul_any": CJK_PIECE,
    "cjk_held": CJK_PIECE,
    "kana_held": CJK_PIECE,
    "thai": U3_DEVA_THAI,
    "deva": U3_DEVA_THAI,
    "emoji_held": U4,
    "emoji_any": U4,
}
PROBE_SEED = 16
PER_KIND = 12
# English letter frequencies (per mille), most frequent first
EN_FREQ = dict(
    zip(
        "etaoinshrdlcumwfgypbvkjxqz",
        (127, 91, 82, 75, 70, 67, 63, 61, 60, 43, 40, 28, 28, 24, 24, 22, 20, 20, 19, 15, 10, 8, 2, 2, 1, 1),
    )
)
THAI = [chr(c) for c in (*range(0x0E01, 0x0E3A), *range(0x0E40, 0x0E4E))]
DEVANAGARI = [chr(c) for c in range(0x0905, 0x0950)]
EMOJI = ((0x1F300, 0x1F6FF), (0x1F900, 0x1F9FF))  # pictographs, emoticons, transport; supplemental


def _lines(rng: random.Random, word: Callable[[], str], size: int, sep: str = " ") -> str:
    out: list[str] = []
    n = 0
    while n < size:
        line = sep.join(word() for _ in range(rng.randint(4, 14)))
        out.append(line)
        n += len(line) + 1
    return "\n".join(out)


def _latin(rng: random.Random, freq: bool) -> Callable[[], str]:
    letters = list(EN_FREQ) if freq else [chr(c) for c in range(0x61, 0x7B)]
    weights = list(EN_FREQ.values()) if freq else None

    def word() -> str:
        w = "".join(rng.choices(letters, weights, k=rng.randint(2, 12)))
        r = rng.random()
        return w.capitalize() if r < 0.3 else w.upper() if r < 0.4 else w

    return word


def _chars(rng: random.Random, chars: list[str], lo: int, hi: int) -> Callable[[], str]:
    def word() -> str:
        return "".join(rng.choice(chars) for _ in range(rng.randint(lo, hi)))

    return word


def _held(extra: np.ndarray, lo: int, hi: int) -> list[str]:
    """The characters of ``lo..hi`` the table holds as one token (all of them when none is)."""
    cps = np.arange(lo, hi + 1)
    held = cps[extra[lo : hi + 1] == 0]
    return [chr(int(c)) for c in (held if len(held) else cps)]


def probe_texts(char_extra_table: bytes, *, seed: int = PROBE_SEED, per_kind: int = PER_KIND) -> list[tuple[str, str]]:
    """``(kind, text)`` for every kind of ``PROBE_TARGETS``, ``per_kind`` texts each, the held
    characters read from ``char_extra_table``."""
    from ctxsieve.tokenizers.vocab_chars import unpack_extra

    extra = unpack_extra(char_extra_table)
    out = []
    for kind in PROBE_TARGETS:
        rng = random.Random(f"{seed}:{kind}")
        for i in range(per_kind):
            size = int(200 * 20 ** (i / max(1, per_kind - 1)))  # 200 .. 4,000 characters
            if kind in ("latin_uniform", "latin_freq"):
                text = _lines(rng, _latin(rng, kind == "latin_freq"), size)
            elif kind == "hangul_held":
                text = _lines(rng, _chars(rng, _held(extra, 0xAC00, 0xD7A3), 1, 6), size)
            elif kind == "hangul_any":
                text = _lines(rng, _chars(rng, [chr(c) for c in range(0xAC00, 0xD7A4)], 1, 6), size)
            elif kind == "cjk_held":
                sep = rng.choice(["", " ", "\uff0c"])
                text = _lines(rng, _chars(rng, _held(extra, 0x4E00, 0x9FFF), 1, 8), size, sep)
            elif kind == "kana_held":
                text = _lines(rng, _chars(rng, _held(extra, 0x3041, 0x30FF), 1, 8), size, "")
            elif kind in ("emoji_held", "emoji_any"):
                cps = np.concatenate([np.arange(lo, hi + 1) for lo, hi in EMOJI])
                # the cheapest alone: a tokenizer's common emoji (what chat sends) are those
                held = cps[extra[cps] == extra[cps].min()] if kind == "emoji_held" else cps
                pool = [chr(int(c)) for c in held]
                # every shape a chat has: one emoji a word or runs, between spaces, on lines of
                # their own, or side by side (a text of runs between spaces alone left a line
                # of one emoji, or one between spaces, short: Llama 3, Mistral SentencePiece)
                sep, longest = ("", " ", "\n")[i % 3], (1, 3)[i % 2]
                # size + 1: `_lines` counts a newline after its last line, which the text does
                # not hold (a text of single emoji side by side came out 199 characters long)
                text = _lines(rng, _chars(rng, pool, 1, longest), size + 1, sep)
            elif kind == "thai":
                text = _lines(rng, _chars(rng, THAI, 2, 10), size)
            else:
                text = _lines(rng, _chars(rng, DEVANAGARI, 2, 8), size)
            out.append((kind, text))
    return out
