"""The Redis store's usage-ratio state (``UsageRatioStore``): one hash, ``{ns}:usage``, whose
field is a pair's identity key (ASCII JSON: Redis fields are binary-safe, so any name fits) and
whose value is the state as JSON.

A merge is one Lua script: Redis runs a script alone, so concurrent merges from any number of
workers each keep their samples. Ratios travel and are kept as the decimal strings Python's
``repr`` gives, so every reader gets back exactly the floats written (Lua's numbers would
print them to 14 digits).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ctxsieve.stores._handles import RedisHandle
from ctxsieve.tokenizers.usage_ratios import UsageRatios, checked_merge, identity_key

# KEYS[1]: the hash; ARGV: field, window, now, ratio...
MERGE = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
local window = tonumber(ARGV[2])
local state
if old then state = cjson.decode(old) else state = {r = {}, n = 0, u = ARGV[3]} end
local all = {}
for _, v in ipairs(state.r) do all[#all + 1] = v end
for i = 4, #ARGV do all[#all + 1] = ARGV[i] end
local kept = {}
for i = math.max(1, #all - window + 1), #all do kept[#kept + 1] = all[i] end
state.r = kept
state.n = state.n + (#ARGV - 3)
if tonumber(ARGV[3]) > tonumber(state.u) then state.u = ARGV[3] end
local out = cjson.encode(state)
redis.call('HSET', KEYS[1], ARGV[1], out)
return out
"""


def _key(store: RedisHandle) -> str:
    return f"{store.ns}:usage"


def _state(estimator: str, model: str, raw: str) -> UsageRatios:
    d = json.loads(raw)
    ratios = d["r"] if isinstance(d["r"], list) else []  # cjson writes an empty list as {}
    return UsageRatios(estimator, model, tuple(float(r) for r in ratios), int(d["n"]), float(d["u"]))


def load(store: RedisHandle, estimator: str, model: str) -> UsageRatios | None:
    raw = store.r.hget(_key(store), identity_key(estimator, model))
    return None if raw is None else _state(estimator, model, raw)


def merge(
    store: RedisHandle, estimator: str, model: str, ratios: Sequence[float], window: int, now: float
) -> UsageRatios:
    key, checked, window, now = checked_merge(estimator, model, ratios, window, now)
    script = store.r.register_script(MERGE)
    raw = script(keys=[_key(store)], args=[key, window, repr(now), *map(repr, checked)])
    return _state(estimator, model, raw)
