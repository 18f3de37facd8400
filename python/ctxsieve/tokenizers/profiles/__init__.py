"""Fitted cost profiles of the calibrated estimator, one JSON file per tokenizer family.

Each file holds ``name``, ``family``, ``tokenizer`` (the file it was fitted against),
``costs`` (feature name -> thousandths of a token, see ``ctxsieve.kernels.calibrated``),
``quantile`` and ``margin`` (how it was fitted) and ``fit`` (figures on the fitting corpus).
Features missing from ``costs`` cost 0. ``ctxsieve calibrate`` writes files of the same shape;
``load_profile`` accepts a shipped name or a path to such a file.

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

_HERE = Path(__file__).parent


@dataclass(frozen=True)
class Profile:
    name: str
    costs: dict[str, int]
    family: str = ""
    tokenizer: str = ""
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def cost_vector(self) -> list[int]:
        return [self.costs.get(f, 0) for f in FEATURES]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "family": self.family,
            "tokenizer": self.tokenizer,
            "costs": {f: self.costs.get(f, 0) for f in FEATURES},
            **self.meta,
        }


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
    meta = {k: v for k, v in data.items() if k not in ("name", "family", "tokenizer", "costs")}
    return Profile(
        str(data.get("name", where)), costs, str(data.get("family", "")), str(data.get("tokenizer", "")), meta
    )


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
