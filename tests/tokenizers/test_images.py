"""Image costs: the providers' own worked examples, growth with size, the caps each formula
implies, and Mesh's 8,192 when the size is unknown; images inside tool results count too."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.errors import ConfigError
from ctxsieve.messages import Image, Message, MessageError, Text, ToolResult
from ctxsieve.tokenizers.images import (
    OPENAI_RULES,
    UNKNOWN_IMAGE_TOKENS,
    PatchRule,
    TileRule,
    image_tokens,
    message_image_tokens,
    openai_rule,
)


def img(w: int | None, h: int | None) -> Image:
    return Image(url="https://img.example/x.png", width=w, height=h)


def cost(w: int, h: int, provider: str, **kw: object) -> int:
    return image_tokens(img(w, h), provider, **kw)  # type: ignore[arg-type]


# -- OpenAI, "Images and vision", calculating costs: the guide's own examples


def test_openai_worked_examples_of_the_tile_rule():
    assert cost(1024, 1024, "openai", detail="high") == 765  # 768x768, 4 tiles: 170*4 + 85
    assert cost(2048, 4096, "openai", detail="high") == 1105  # 1024x2048, then 768x1536: 6 tiles
    assert cost(4096, 8192, "openai", detail="low") == 85  # low detail: a fixed cost
    assert cost(1024, 1024, "openai") == 765  # auto is counted as high, its upper bound


def test_openai_does_not_enlarge_a_small_image():
    # the API bills a 128x64 image one tile under detail high (85 + 170), not the six tiles an
    # enlargement to a 768-px short side would give
    assert cost(128, 64, "openai", detail="high") == 255


def test_openai_patch_models_follow_the_guides_examples():
    # 1024x1024: 32x32 = 1024 patches; 1800x2400: 4275 patches, shrunk to 33x44 = 1452
    assert cost(1024, 1024, "openai", model="gpt-4.1-mini") == 1659  # ceil(1024 * 1.62)
    assert cost(1800, 2400, "openai", model="gpt-4.1-mini") == 2353  # ceil(1452 * 1.62)
    assert cost(1800, 2400, "openai", model="gpt-4.1-nano") == 3572  # ceil(1452 * 2.46)
    assert cost(1800, 2400, "openai", model="o4-mini") == 2498  # ceil(1452 * 1.72)
    # detail does not apply to the patch models
    assert cost(1800, 2400, "openai", model="o4-mini", detail="low") == 2498


def test_openai_model_variants_and_dated_names():
    assert cost(128, 64, "openai", model="gpt-4o-mini", detail="high") == 2833 + 5667
    assert cost(128, 64, "openai", model="gpt-4o-mini-2024-07-18", detail="low") == 2833
    assert cost(1024, 1024, "openai", model="o3") == 75 + 4 * 150
    assert cost(128, 64, "openai", model="o3-2025-04-16", detail="high") == 75 + 150
    assert cost(1024, 1024, "openai", model="gpt-4o-2024-08-06") == 765
    assert cost(1024, 1024, "openai", model="gpt-4.1") == 765  # GPT-4.1 itself is a tile model
    assert openai_rule("o3") == TileRule(75, 150) and openai_rule("gpt-4o") == TileRule(85, 170)
    assert openai_rule(None) == openai_rule("some-future-model") == TileRule(85, 170)
    assert openai_rule("o30") == TileRule(85, 170)  # a prefix matches whole name parts only


# -- Anthropic, "Vision", evaluate image size / calculate image costs


def test_anthropic_table_of_costs():
    assert cost(200, 200, "anthropic") == 54
    assert cost(1000, 1000, "anthropic") == 1334
    assert cost(1092, 1092, "anthropic") == 1590


@pytest.mark.parametrize("w,h", [(1092, 1092), (951, 1268), (896, 1344), (819, 1456), (784, 1568)])
def test_anthropic_largest_sizes_cost_about_1600_and_a_larger_image_no_more(w, h):
    # the guide's largest sizes per aspect ratio cost "~1,600 tokens"; anything larger is scaled
    # down to them, so doubling the image adds nothing
    assert abs(cost(w, h, "anthropic") - 1600) <= 0.025 * 1600
    assert cost(2 * w, 2 * h, "anthropic") == cost(4 * w, 4 * h, "anthropic") <= 1600


def test_anthropic_long_edge_cap_applies_before_the_area_cap():
    # 3000x100 is far under 1.2 MP but its long edge goes to 1568: 1568 x 52.27 px
    assert cost(3000, 100, "anthropic") == 110
    assert cost(1568, 100, "anthropic") == 210  # at the cap: not scaled


# -- Gemini, "Understand and count tokens": 258 per image up to 384 px, else per 768-px tile


def test_gemini_small_images_and_tiles():
    assert cost(384, 384, "gemini") == 258
    assert cost(100, 384, "gemini") == 258
    assert cost(768, 768, "gemini") == 258
    assert cost(769, 768, "gemini") == 516
    assert cost(1920, 1080, "gemini") == 6 * 258  # 3 x 2 tiles


# -- properties

sides = st.integers(1, 9000)
variants = st.sampled_from(
    [("anthropic", None, "auto"), ("gemini", None, "auto"), ("openai", None, "high"), ("openai", None, "low")]
    + [("openai", prefix, "high") for prefix, rule in OPENAI_RULES if isinstance(rule, TileRule)]
)


@given(sides, sides, st.integers(1, 8), variants)
def test_a_larger_image_of_the_same_shape_never_costs_less(w, h, k, variant):
    # the patch rule is left out: the guide's own steps are not monotonic (next test)
    provider, model, detail = variant
    assert cost(k * w, k * h, provider, model=model, detail=detail) >= cost(w, h, provider, model=model, detail=detail)


def test_the_patch_rule_follows_the_guide_even_where_a_larger_image_costs_less():
    # 129x7926 needs no scaling: ceil(129/32) * ceil(7926/32) = 5 * 248 = 1240 patches. Twice
    # the size is 4464 patches, over 1536: the guide scales by sqrt(32*32*1536 / (w*h)), then
    # down to a whole number of patches across (258 * 0.62015 / 32 = 4.9999 -> 4), so
    # 128 x 7865 px, 4 * 246 = 984 patches. Found by the property above (hypothesis).
    assert cost(129, 7926, "openai", model="gpt-4.1-mini") == -(-1240 * 162 // 100)
    assert cost(258, 15852, "openai", model="gpt-4.1-mini") == -(-984 * 162 // 100)


@given(sides, sides, sides, sides)
def test_gemini_grows_with_each_side(w, h, dw, dh):
    assert cost(w + dw, h, "gemini") >= cost(w, h, "gemini") <= cost(w, h + dh, "gemini")


@given(sides, sides)
def test_each_formula_is_bounded_by_its_downscale(w, h):
    exact = -(-(w * h) // 750)
    if max(w, h) <= 1568 and w * h <= 1_200_000:
        assert cost(w, h, "anthropic") == exact  # within the limits: w*h/750 itself
    assert cost(w, h, "anthropic") <= min(exact, 1600)
    assert cost(w, h, "openai") <= 85 + 170 * 8  # at most 2048x768 after scaling: 4 x 2 tiles
    for prefix, rule in OPENAI_RULES:
        if isinstance(rule, PatchRule):
            assert cost(w, h, "openai", model=prefix) <= -(
                -(1536 * rule.multiplier.numerator) // rule.multiplier.denominator
            )


# -- unknown sizes, messages, bad input


@pytest.mark.parametrize("w,h", [(None, None), (640, None), (None, 480)])
def test_without_both_sides_the_cost_is_the_default(w, h):
    for provider in ("anthropic", "openai", "gemini"):
        assert image_tokens(img(w, h), provider) == UNKNOWN_IMAGE_TOKENS == 8192
        assert image_tokens(img(w, h), provider, default=1000) == 1000


def test_a_messages_images_count_those_in_tool_results_too():
    known, unknown = img(1024, 1024), img(None, None)
    tool = Message("tool", (ToolResult("c1", (Text("chart"), known)), ToolResult("c2", (unknown,))))
    asked = Message("user", (Text("compare"), known))
    assert message_image_tokens(tool, "openai") == 765 + 8192
    assert message_image_tokens(tool, "anthropic", 500) == 1399 + 500
    assert message_image_tokens(asked, "gemini") == 1032
    assert message_image_tokens(tool, "openai", model="gpt-4o-mini", detail="low") == 2833 + 8192
    assert message_image_tokens(Message("user", (Text("no image"),)), "openai") == 0


@pytest.mark.parametrize("bad", [0, -3, True, 12.5, "640"])
def test_a_side_that_is_not_a_positive_int_is_refused(bad):
    with pytest.raises(MessageError, match=r"image\.width: expected a positive int of pixels or None"):
        image_tokens(Image(url="u", width=bad, height=10), "openai")


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ConfigError, match=r"provider 'claude' is not one of 'anthropic', 'gemini', 'openai'"):
        image_tokens(img(10, 10), "claude")
    with pytest.raises(ConfigError, match=r"detail 'medium'"):
        image_tokens(img(10, 10), "openai", detail="medium")
    with pytest.raises(ConfigError, match=r"default must be a non-negative int, got -1"):
        image_tokens(img(10, 10), "openai", default=-1)
    with pytest.raises(MessageError, match=r"expected an Image, got str"):
        image_tokens("x.png", "openai")  # type: ignore[arg-type]
    with pytest.raises(MessageError, match=r"expected a Message, got Image"):
        message_image_tokens(img(1, 1), "openai")  # type: ignore[arg-type]
