"""What an image costs in input tokens, by the provider's documented formula.

With the image's ``width`` and ``height`` known (``ctxsieve.messages.Image``), each provider's
formula applies (sources and versions in docs/tokenizers.md, "Images"):

* ``anthropic``: about ``w*h/750``, after a downscale (aspect kept) so that the long edge is at
  most 1568 px and the image at most ~1,600 tokens (1.2 megapixels).
* ``openai``: tiles. ``detail="low"``: the base tokens. ``high`` (and ``auto``, counted as
  ``high``, its upper bound): fit within 2048x2048, then the shortest side down to 768, then
  base + per-tile tokens for each 512-px tile (85 + 170 for GPT-4o). ``model`` picks the
  documented variant: GPT-4o-mini (2833 + 5667), o3 (75 + 150), or the 32-px patch models
  (GPT-4.1-mini/nano, o4-mini: patches up to 1536, times a multiplier; ``detail`` does not
  apply). Any other model is priced as GPT-4o.
* ``gemini``: 258 when both sides are at most 384 px, else 258 per 768x768 tile.

Without both dimensions the cost is ``default``: Mesh's 8,192 per image, a deliberate
over-estimate. Every count is rounded up, so an estimate never falls below the formula.

>>> from ctxsieve.messages.model import Image
>>> img = Image(url="https://img.example/a.png", width=1024, height=1024)
>>> image_tokens(img, "openai"), image_tokens(img, "anthropic"), image_tokens(img, "gemini")
(765, 1399, 1032)
>>> image_tokens(Image(url="https://img.example/b.png"), "anthropic")
8192
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import isqrt

from ctxsieve.errors import ConfigError
from ctxsieve.messages.model import Image, Message, MessageError

UNKNOWN_IMAGE_TOKENS = 8_192  # Mesh's rate for an image whose size is not known
PROVIDERS = ("anthropic", "gemini", "openai")
DETAILS = ("auto", "high", "low")

ANTHROPIC_LONG_EDGE = 1568
ANTHROPIC_MAX_TOKENS = 1600  # "more than ~1,600 tokens ... it will first be scaled down"
ANTHROPIC_PIXELS_PER_TOKEN = 750
GEMINI_SMALL_SIDE = 384
GEMINI_TILE = 768
GEMINI_TILE_TOKENS = 258


@dataclass(frozen=True, slots=True)
class TileRule:
    """OpenAI's tile rule for one model family: ``base`` tokens, plus ``tile`` per 512-px tile."""

    base: int
    tile: int


@dataclass(frozen=True, slots=True)
class PatchRule:
    """OpenAI's patch rule: 32-px patches, at most 1536, times ``multiplier``."""

    multiplier: Fraction


# longest prefix first, so "gpt-4o-mini" is not read as "gpt-4o"
OPENAI_RULES: tuple[tuple[str, TileRule | PatchRule], ...] = (
    ("gpt-4.1-mini", PatchRule(Fraction("1.62"))),
    ("gpt-4.1-nano", PatchRule(Fraction("2.46"))),
    ("o4-mini", PatchRule(Fraction("1.72"))),
    ("gpt-4o-mini", TileRule(2833, 5667)),
    ("o3", TileRule(75, 150)),
)
OPENAI_DEFAULT_RULE = TileRule(85, 170)  # GPT-4o, GPT-4.1, GPT-4.5 and any model not listed


def openai_rule(model: str | None) -> TileRule | PatchRule:
    """The rule that prices images for OpenAI ``model`` (GPT-4o's for None or an unlisted one)."""
    name = (model or "").lower()
    for prefix, rule in OPENAI_RULES:
        if name == prefix or name.startswith(prefix + "-"):
            return rule
    return OPENAI_DEFAULT_RULE


def _ceil(x: Fraction) -> int:
    return -(-x.numerator // x.denominator)


def _anthropic(w: int, h: int) -> int:
    # the downscale keeps the aspect ratio: the area is capped by the long edge and by the token
    # limit, whichever binds first; counted on the exact area (the API's whole-pixel resize only
    # makes it smaller), so the estimate grows with the image and never falls below the formula
    area = Fraction(w * h)
    long_edge = max(w, h)
    if long_edge > ANTHROPIC_LONG_EDGE:
        area = area * Fraction(ANTHROPIC_LONG_EDGE, long_edge) ** 2
    area = min(area, Fraction(ANTHROPIC_MAX_TOKENS * ANTHROPIC_PIXELS_PER_TOKEN))
    return _ceil(area / ANTHROPIC_PIXELS_PER_TOKEN)


def _openai_tiles(w: int, h: int, rule: TileRule, detail: str) -> int:
    if detail == "low":
        return rule.base
    fw, fh = Fraction(w), Fraction(h)
    # both steps only scale down: a small image is not enlarged to 768 px (a 128x64 image is
    # billed one tile, as measured against the API)
    scale = min(Fraction(1), Fraction(2048) / max(fw, fh))
    fw, fh = fw * scale, fh * scale
    scale = min(Fraction(1), Fraction(768) / min(fw, fh))
    fw, fh = fw * scale, fh * scale
    return rule.base + rule.tile * _ceil(fw / 512) * _ceil(fh / 512)


def _openai_patches(w: int, h: int, rule: PatchRule) -> int:
    patches = -(-w // 32) * -(-h // 32)
    if patches > 1536:
        # the documented shrink: scale to fit 1536 patches, then down to a whole number of
        # patches across; floor(sqrt(x)) == isqrt(floor(x)) keeps this exact
        cols = max(1, isqrt(1536 * w // h))
        rows = -(-(h * cols) // w)
        patches = min(1536, cols * rows)
    return _ceil(patches * rule.multiplier)


def _gemini(w: int, h: int) -> int:
    if w <= GEMINI_SMALL_SIDE and h <= GEMINI_SMALL_SIDE:
        return GEMINI_TILE_TOKENS
    return GEMINI_TILE_TOKENS * -(-w // GEMINI_TILE) * -(-h // GEMINI_TILE)


def _side(value: object, name: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise MessageError(f"image.{name}: expected a positive int of pixels or None, got {value!r}")
    return value


def image_tokens(
    image: Image,
    provider: str,
    *,
    default: int = UNKNOWN_IMAGE_TOKENS,
    model: str | None = None,
    detail: str = "auto",
) -> int:
    """Input tokens ``image`` costs at ``provider`` (``"anthropic"``, ``"openai"``, ``"gemini"``).
    ``default`` when its width or height is unknown. ``model`` and ``detail`` matter to OpenAI
    only (see the module doc)."""
    if provider not in PROVIDERS:
        raise ConfigError(f"image_tokens: provider {provider!r} is not one of {', '.join(map(repr, PROVIDERS))}")
    if detail not in DETAILS:
        raise ConfigError(f"image_tokens: detail {detail!r} is not one of {', '.join(map(repr, DETAILS))}")
    if not isinstance(default, int) or isinstance(default, bool) or default < 0:
        raise ConfigError(f"image_tokens: default must be a non-negative int, got {default!r}")
    if not isinstance(image, Image):
        raise MessageError(f"image_tokens: expected an Image, got {type(image).__name__}")
    w, h = _side(image.width, "width"), _side(image.height, "height")
    if w is None or h is None:
        return default
    if provider == "anthropic":
        return _anthropic(w, h)
    if provider == "gemini":
        return _gemini(w, h)
    rule = openai_rule(model)
    return _openai_patches(w, h, rule) if isinstance(rule, PatchRule) else _openai_tiles(w, h, rule, detail)


def message_image_tokens(
    message: Message,
    provider: str,
    default: int = UNKNOWN_IMAGE_TOKENS,
    *,
    model: str | None = None,
    detail: str = "auto",
) -> int:
    """The tokens of every image ``message`` carries, those inside its tool results included."""
    if not isinstance(message, Message):
        raise MessageError(f"message_image_tokens: expected a Message, got {type(message).__name__}")
    return sum(image_tokens(i, provider, default=default, model=model, detail=detail) for i in message.images)


__all__ = [
    "OPENAI_DEFAULT_RULE",
    "OPENAI_RULES",
    "PROVIDERS",
    "UNKNOWN_IMAGE_TOKENS",
    "PatchRule",
    "TileRule",
    "image_tokens",
    "message_image_tokens",
    "openai_rule",
]
