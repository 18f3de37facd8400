"""Fitted cost profiles of the calibrated estimator, one JSON file per tokenizer family.

Each file holds ``name``, ``family``, ``tokenizer`` (the file it was fitted against),
``costs`` (feature name -> thousandths of a token, see ``ctxsieve.kernels.calibrated``),
``margin`` (how it was fitted), ``fit`` (figures on the fitting corpus) and, optionally,
``bounds``: further cost objects of the same shape, each also an upper bound (the estimate is
the smallest of ``costs`` and each of them, ``fit_groups.fit_bounds``), at most
``MAX_BOUNDS`` in all;
``known_words``: the hashes of the words the tokenizer encodes as one token
(``{"count": n, "encoding": "zlib-delta-u32le-base64", "data": ...}``, see
``ctxsieve.tokenizers.vocab``), and the character tables ``char_extra``, ``digit_group``,
``punct_pairs`` and ``cjk_tokens`` (the tokenizer's CJK tokens of 2 to 8 characters, one a line:
``{"count": n, "encoding": "zlib-utf8-lines-base64", "data": ...}``, see
``ctxsieve.tokenizers.vocab_pieces``). A profile written before ``cjk_tokens`` may hold
``cjk_pairs`` instead, its CJK tokens hashed into ``known_words``: it is read as it was written
and estimates as before (at the old speed). Features missing from ``costs`` cost 0. ``ctxsieve calibrate``
writes files of the same shape; ``load_profile`` accepts a shipped name or a path to such a file.

>>> p = load_profile("any")
>>> p.name, len(p.cost_vector()) == len(FEATURES)
('any', True)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxsieve.errors import ConfigError
from ctxsieve.kernels.calibrated import (
    FEATURES,
    MAX_BOUNDS,
    MAX_COST,
    check_piece_tokens,
    check_tables,
    known_words,
)
from ctxsieve.tokenizers.vocab import ENCODING, decode_hashes, encode_hashes
from ctxsieve.tokenizers.vocab_chars import CJK_PAIRS, PAIRS, TABLE_ENCODING, decode_table, encode_table
from ctxsieve.tokenizers.vocab_pieces import TOKENS_ENCODING, decode_tokens, encode_tokens

_HERE = Path(__file__).parent


@dataclass(frozen=True)
class Profile:
    name: str
    costs: dict[str, int]
    family: str = ""
    tokenizer: str = ""
    meta: dict[str, Any] = field(default_factory=dict, compare=False)
    # packed little-endian u32 word hashes (``KnownWords`` input), or None: no known words
    known_words: bytes | None = field(default=None, compare=False, repr=False)
    # the tokenizer's extra tokens per character alone (``KnownWords.char_extra``), or None
    char_extra: bytes | None = field(default=None, compare=False, repr=False)
    digit_group: int = 0  # digits per pre-tokenizer piece (0: a whole run is one)
    # the pairs of ASCII marks some token holds side by side (``KnownWords.punct_pairs``), or None
    punct_pairs: bytes | None = field(default=None, compare=False, repr=False)
    # the hashed pairs of CJK characters that start a multi-character token (``cjk_pairs``) of a
    # profile written before ``cjk_tokens``, or None
    cjk_pairs: bytes | None = field(default=None, compare=False, repr=False)
    # the CJK tokens of 2 to 8 characters, UTF-8, one a line (``KnownWords.cjk_tokens``), or None
    cjk_tokens: bytes | None = field(default=None, compare=False, repr=False)
    # further cost vectors (feature -> thousandths), each an upper bound: the estimate is the
    # smallest of ``costs``' and each of these
    bounds: tuple[dict[str, int], ...] = ()

    def __post_init__(self) -> None:
        kw = self.known_words
        if kw is not None and (not isinstance(kw, bytes) or len(kw) % 4):
            raise ValueError("known_words: expected bytes of little-endian u32 hashes (a multiple of 4 long)")
        object.__setattr__(self, "bounds", tuple(self.bounds))  # a list given: compared as a tuple
        if len(self.bounds) + 1 > MAX_BOUNDS:
            raise ValueError(f"bounds: at most {MAX_BOUNDS - 1} beside costs, got {len(self.bounds)}")

    def tables(self) -> Any:
        """The live backend's ``KnownWords`` for this profile (words and character tables), or
        None when it has neither."""
        tables = (self.char_extra, self.punct_pairs, self.cjk_pairs, self.cjk_tokens)
        if self.known_words is None and all(t is None for t in tables) and not self.digit_group:
            return None
        kw = self.known_words or b""
        return known_words(kw, self.char_extra, self.digit_group, self.punct_pairs, self.cjk_pairs, self.cjk_tokens)

    def cost_vector(self) -> list[int]:
        """The first bound's costs, one a feature (``costs``)."""
        return [self.costs.get(f, 0) for f in FEATURES]

    def cost_vectors(self) -> list[list[int]]:
        """Every bound's costs (``costs``, then ``bounds``)."""
        return [self.cost_vector(), *([b.get(f, 0) for f in FEATURES] for b in self.bounds)]

    def kernel_costs(self) -> list[int] | list[list[int]]:
        """The costs as the estimate kernel takes them: one vector flat (the binding then checks
        one list of ints, not a list of lists), several as a list."""
        vectors = self.cost_vectors()
        return vectors[0] if len(vectors) == 1 else vectors

    def to_json(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "family": self.family,
            "tokenizer": self.tokenizer,
            "costs": {f: self.costs.get(f, 0) for f in FEATURES},
            **({"bounds": [{f: b.get(f, 0) for f in FEATURES} for b in self.bounds]} if self.bounds else {}),
            **self.meta,
        }
        if self.known_words is not None:
            kw = self.known_words
            hashes = {int.from_bytes(kw[i : i + 4], "little") for i in range(0, len(kw), 4)}
            out["known_words"] = {"count": len(hashes), "encoding": ENCODING, "data": encode_hashes(hashes)}
        if self.char_extra is not None:
            out["char_extra"] = {"encoding": TABLE_ENCODING, "data": encode_table(self.char_extra)}
        if self.digit_group:
            out["digit_group"] = self.digit_group
        if self.punct_pairs is not None:
            out["punct_pairs"] = {"encoding": TABLE_ENCODING, "data": encode_table(self.punct_pairs)}
        if self.cjk_pairs is not None:
            out["cjk_pairs"] = {"encoding": TABLE_ENCODING, "data": encode_table(self.cjk_pairs)}
        if self.cjk_tokens is not None:
            count = len(self.cjk_tokens.split(b"\n")) if self.cjk_tokens else 0
            out["cjk_tokens"] = {"count": count, "encoding": TOKENS_ENCODING, "data": encode_tokens(self.cjk_tokens)}
        return out


def shipped_profiles() -> list[str]:
    """Names of the profiles shipped with ctxsieve."""
    return sorted(p.stem for p in _HERE.glob("*.json"))


def profile_from_json(data: Any, where: str) -> Profile:
    if not isinstance(data, dict) or not isinstance(data.get("costs"), dict):
        raise ConfigError(f"profile {where}: expected an object with a 'costs' object")
    costs = _costs(data["costs"], where, "costs")
    more = data.get("bounds") or []  # null or [] as absent, like every optional key
    if not isinstance(more, list) or len(more) + 1 > MAX_BOUNDS:
        got = f"{len(more)} objects" if isinstance(more, list) else type(more).__name__
        raise ConfigError(
            f"profile {where}: 'bounds' must be a list of at most {MAX_BOUNDS - 1} cost objects, got {got}"
        )
    bounds = tuple(_costs(b, where, f"bounds[{i}]") for i, b in enumerate(more))
    own = (
        "name",
        "family",
        "tokenizer",
        "costs",
        "bounds",
        "known_words",
        "char_extra",
        "digit_group",
        "punct_pairs",
        "cjk_pairs",
        "cjk_tokens",
    )
    meta = {k: v for k, v in data.items() if k not in own}
    char_extra, digit_group, pairs, cjk_pairs = _tables(data, where)
    cjk_tokens = _cjk_tokens(data.get("cjk_tokens"), cjk_pairs, where)
    return Profile(
        str(data.get("name", where)),
        costs,
        str(data.get("family", "")),
        str(data.get("tokenizer", "")),
        meta,
        _known_words(data.get("known_words"), where),
        char_extra,
        digit_group,
        pairs,
        cjk_pairs,
        cjk_tokens,
        bounds,
    )


def _costs(spec: Any, where: str, key: str) -> dict[str, int]:
    if not isinstance(spec, dict):
        raise ConfigError(f"profile {where}: {key}: expected an object (feature -> cost), got {type(spec).__name__}")
    costs: dict[str, int] = {}
    for name, value in spec.items():
        if name not in FEATURES:
            raise ConfigError(f"profile {where}: {key}: unknown feature {name!r} (known: {', '.join(FEATURES)})")
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COST:
            raise ConfigError(
                f"profile {where}: {key}: cost of {name!r} must be an int in [0, {MAX_COST}], got {value!r}"
            )
        costs[name] = value
    return costs


def _table(data: dict[str, Any], key: str, where: str, *size: Any) -> bytes | None:
    spec = data.get(key)
    if spec is None:
        return None
    if not isinstance(spec, dict) or spec.get("encoding") != TABLE_ENCODING or not isinstance(spec.get("data"), str):
        raise ConfigError(f"profile {where}: {key!r} must be an object with encoding {TABLE_ENCODING!r} and 'data'")
    try:
        return decode_table(spec["data"], *size)
    except ValueError as exc:
        raise ConfigError(f"profile {where}: {exc}") from None


def _tables(data: dict[str, Any], where: str) -> tuple[bytes | None, int, bytes | None, bytes | None]:
    extra, pairs = _table(data, "char_extra", where), _table(data, "punct_pairs", where, *PAIRS)
    cjk = _table(data, "cjk_pairs", where, *CJK_PAIRS)
    try:
        return check_tables(extra, data.get("digit_group", 0), pairs, cjk)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"profile {where}: {exc}") from None


def _cjk_tokens(spec: Any, cjk_pairs: bytes | None, where: str) -> bytes | None:
    if spec is None:
        return None
    if not isinstance(spec, dict) or spec.get("encoding") != TOKENS_ENCODING or not isinstance(spec.get("data"), str):
        raise ConfigError(
            f"profile {where}: 'cjk_tokens' must be an object with encoding {TOKENS_ENCODING!r} and 'data'"
        )
    try:
        packed = decode_tokens(spec["data"])
        tokens = check_piece_tokens(packed)
    except ValueError as exc:
        raise ConfigError(f"profile {where}: {exc}") from None
    count = spec.get("count")
    if count is not None and count != len(tokens):
        raise ConfigError(f"profile {where}: cjk_tokens: 'count' says {count!r}, the data holds {len(tokens)}")
    if cjk_pairs is not None:
        raise ConfigError(
            f"profile {where}: 'cjk_pairs' and 'cjk_tokens' together: cjk_pairs is the CJK table of profiles "
            "written before cjk_tokens (the pair table is now built from the tokens); delete 'cjk_pairs'"
        )
    return packed


def _known_words(spec: Any, where: str) -> bytes | None:
    if spec is None:
        return None
    if not isinstance(spec, dict) or spec.get("encoding") != ENCODING or not isinstance(spec.get("data"), str):
        raise ConfigError(f"profile {where}: 'known_words' must be an object with encoding {ENCODING!r} and 'data'")
    try:
        packed = decode_hashes(spec["data"])
    except ValueError as exc:
        raise ConfigError(f"profile {where}: {exc}") from None
    count = spec.get("count")
    if count is not None and count != len(packed) // 4:
        raise ConfigError(f"profile {where}: known words: 'count' says {count!r}, the data holds {len(packed) // 4}")
    return packed


def load_profile(name_or_path: str | os.PathLike[str]) -> Profile:
    """A shipped profile by name (``"o200k"``), or a profile JSON file by path."""
    text = os.fspath(name_or_path)
    shipped = _HERE / f"{text}.json"
    if os.sep not in text and "/" not in text and not text.endswith(".json"):
        if not shipped.is_file():
            raise ConfigError(f"no calibrated profile {text!r}; shipped: {', '.join(shipped_profiles())}")
        path = shipped
    else:
        path = Path(text).expanduser()
        if not path.is_file():
            raise ConfigError(f"profile file {text}: no such file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"profile file {path}: not valid JSON ({exc})") from None
    return profile_from_json(data, str(path) if path != shipped else text)
