"""Fitted cost profiles of the calibrated estimator, one JSON file per tokenizer family.

Each file holds ``name``, ``family``, ``tokenizer`` (the file it was fitted against),
``costs`` (feature name -> thousandths of a token, see ``ctxsieve.kernels.calibrated``),
``margin`` (how it was fitted), ``fit`` (figures on the fitting corpus) and, optionally,
``known_words``: the hashes of the words the tokenizer encodes as one token
(``{"count": n, "encoding": "zlib-delta-u32le-base64", "data": ...}``, see
``ctxsieve.tokenizers.vocab``). Features missing from ``costs`` cost 0. ``ctxsieve calibrate``
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
from ctxsieve.kernels.calibrated import FEATURES, MAX_COST
from ctxsieve.tokenizers.vocab import ENCODING, decode_hashes, encode_hashes

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

    def __post_init__(self) -> None:
        kw = self.known_words
        if kw is not None and (not isinstance(kw, bytes) or len(kw) % 4):
            raise ValueError("known_words: expected bytes of little-endian u32 hashes (a multiple of 4 long)")

    def cost_vector(self) -> list[int]:
        return [self.costs.get(f, 0) for f in FEATURES]

    def to_json(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "family": self.family,
            "tokenizer": self.tokenizer,
            "costs": {f: self.costs.get(f, 0) for f in FEATURES},
            **self.meta,
        }
        if self.known_words is not None:
            kw = self.known_words
            hashes = {int.from_bytes(kw[i : i + 4], "little") for i in range(0, len(kw), 4)}
            out["known_words"] = {"count": len(hashes), "encoding": ENCODING, "data": encode_hashes(hashes)}
        return out


def shipped_profiles() -> list[str]:
    """Names of the profiles shipped with ctxsieve."""
    return sorted(p.stem for p in _HERE.glob("*.json"))


def profile_from_json(data: Any, where: str) -> Profile:
    if not isinstance(data, dict) or not isinstance(data.get("costs"), dict):
        raise ConfigError(f"profile {where}: expected an object with a 'costs' object")
    costs: dict[str, int] = {}
    for key, value in data["costs"].items():
        if key not in FEATURES:
            raise ConfigError(f"profile {where}: unknown feature {key!r} (known: {', '.join(FEATURES)})")
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COST:
            raise ConfigError(f"profile {where}: cost of {key!r} must be an int in [0, {MAX_COST}], got {value!r}")
        costs[key] = value
    meta = {k: v for k, v in data.items() if k not in ("name", "family", "tokenizer", "costs", "known_words")}
    return Profile(
        str(data.get("name", where)),
        costs,
        str(data.get("family", "")),
        str(data.get("tokenizer", "")),
        meta,
        _known_words(data.get("known_words"), where),
    )


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
