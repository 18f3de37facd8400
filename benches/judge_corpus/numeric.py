"""Numbers-heavy material: timestamp arrays, floats in exponent notation, model price tables
(genai-prices' real data), embedding vectors, coordinates, financial tables in two locales'
formats, sensor logs, hex dumps of real files."""

# ruff: noqa: E501  (templates of tool output and sentences: one line of source is one line of output)

from __future__ import annotations

import functools
import json
import math
import random

from .common import SITE, epoch, fill, grow_json, hexid, iso_time, listing


def gen_timestamps(rng: random.Random, target: int) -> tuple[str, str]:
    unit = rng.choice(["s", "ms", "us", "ns"])
    start = epoch(rng, unit)
    step = rng.choice([1, 15, 60, 300]) * {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}[unit]
    n = max(8, target // (len(str(start)) + 2))
    if rng.random() < 0.5:
        ts = [start + i * step + (rng.randint(0, step // 10) if rng.random() < 0.3 else 0) for i in range(n)]
        return f"timestamps:{unit}", json.dumps(
            {"metric": "cpu.util", "unit": unit, "timestamps": ts}, separators=(",", rng.choice([":", ": "]))
        )
    n = max(4, n // 3)
    pts = [[start + i * step, round(rng.uniform(0, 100), rng.choice([1, 3, 6]))] for i in range(n)]
    return f"series:{unit}", json.dumps(
        {
            "status": "success",
            "data": {
                "resultType": "matrix",
                "result": [{"metric": {"__name__": "http_requests_total", "job": "api"}, "values": pts}],
            },
        }
    )


def _exp(rng: random.Random) -> str:
    mant = rng.uniform(1, 10) * rng.choice([1, -1])
    e = rng.randint(-30, 30)
    style = rng.randrange(4)
    if style == 0:
        return repr(mant * 10.0**e)
    if style == 1:
        return f"{mant:.{rng.randint(1, 8)}e}"
    if style == 2:
        return f"{mant:.{rng.randint(1, 6)}f}E{e:+03d}"
    return f"{mant:.3f}e{e}"


def gen_exponent_floats(rng: random.Random, target: int) -> tuple[str, str]:
    """Scientific results as an API sends them: bare floats in every exponent spelling."""
    sep = rng.choice([", ", ","])

    def row(rng: random.Random) -> str:
        res = sep.join(_exp(rng) for _ in range(rng.randint(2, 8)))
        return f'{{"step": {rng.randint(0, 10**6)}, "loss": {_exp(rng)}, "lr": {_exp(rng)}, "grad_norm": {_exp(rng)}, "residuals": [{res}]}}'

    return "exp-floats", "[" + fill(rng, target, row, sep=sep) + "]"


@functools.lru_cache(maxsize=1)
def price_models() -> list[dict[str, object]]:
    """Every model price in genai-prices' data, as plain values."""
    from genai_prices import data

    out: list[dict[str, object]] = []
    for prov in data.providers:
        for model in prov.models:
            prices = model.prices
            if not hasattr(prices, "input_mtok"):
                continue
            row: dict[str, object] = {"provider": prov.id, "model": model.id, "name": model.name or model.id}
            for field in ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok"):
                v = getattr(prices, field, None)
                if v is not None and not hasattr(v, "tiers"):
                    row[field] = v
            out.append(row)
    return out


def gen_price_table(rng: random.Random, target: int) -> tuple[str, str]:
    models = price_models()
    style = rng.randrange(3)

    def item(rng: random.Random, i: int) -> object:
        m = dict(models[rng.randrange(len(models))])
        for k in ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok"):
            if k in m:
                per_token = float(m.pop(k)) / 1e6
                m[k.replace("_mtok", "_cost_per_token")] = per_token if style != 1 else f"{per_token:.2e}"
        if style == 2:
            m["context_window"] = rng.choice([8192, 32768, 128000, 200000, 1048576])
            m["updated"] = iso_time(rng, frac=False)
        return m

    return "genai-prices", json.dumps({"data": grow_json(rng, target, item, indent=None)}, indent=rng.choice([None, 2]))


def gen_embeddings(rng: random.Random, target: int) -> tuple[str, str]:
    dim = rng.choice([8, 64, 256, 384, 768, 1536])
    digits = rng.choice([None, 4, 6, 8])

    def vec(rng: random.Random, i: int) -> object:
        v = [rng.gauss(0, 0.05) for _ in range(dim)]
        norm = math.sqrt(sum(x * x for x in v))
        v = [x / norm for x in v]
        return {"object": "embedding", "index": i, "embedding": [round(x, digits) if digits else x for x in v]}

    data = grow_json(rng, target, vec, indent=None)
    return f"embeddings:{dim}", json.dumps(
        {
            "object": "list",
            "data": data,
            "model": "text-embedding-3-small",
            "usage": {"prompt_tokens": rng.randint(5, 8000)},
        }
    )


def gen_geo(rng: random.Random, target: int) -> tuple[str, str]:
    lat0, lon0 = rng.uniform(-60, 70), rng.uniform(-170, 170)

    def pt(rng: random.Random) -> list[float]:
        return [
            round(lon0 + rng.uniform(-0.5, 0.5), rng.choice([5, 6, 7, 14])),
            round(lat0 + rng.uniform(-0.5, 0.5), rng.choice([5, 6, 7, 14])),
        ]

    if rng.random() < 0.5:
        feats = grow_json(
            rng,
            target,
            lambda r, i: {
                "type": "Feature",
                "properties": {"id": i, "elev_m": round(r.uniform(-20, 3000), 1)},
                "geometry": {"type": "LineString", "coordinates": [pt(r) for _ in range(r.randint(3, 30))]},
            },
            indent=None,
        )
        return "geojson", json.dumps({"type": "FeatureCollection", "features": feats})
    return "wkt", fill(
        rng,
        target,
        lambda r: "POLYGON((" + ", ".join(f"{x} {y}" for x, y in (pt(r) for _ in range(r.randint(4, 20)))) + "))",
    )


def _money(rng: random.Random, euro: bool) -> str:
    v = rng.uniform(-2e6, 9e7) if rng.random() < 0.8 else rng.uniform(-99, 99)
    s = f"{abs(v):,.2f}"
    if euro:
        s = s.replace(",", " ").replace(".", ",").replace(" ", ".")
    return ("-" if v < 0 else "") + s if rng.random() < 0.7 else f"({s})" if v < 0 else s


def gen_financial(rng: random.Random, target: int) -> tuple[str, str]:
    euro = rng.random() < 0.4
    periods = rng.sample(["Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY2023", "FY2024", "H1 2025"], 4)
    lines = ["| Line item | " + " | ".join(periods) + " | YoY % |", "| --- |" + " ---: |" * (len(periods) + 1)]
    items = [
        "Revenue",
        "Cost of revenue",
        "Gross profit",
        "R&D",
        "SG&A",
        "EBITDA",
        "Depreciation",
        "Net income",
        "EPS (diluted)",
        "Free cash flow",
        "Umsatzerlöse",
        "Chiffre d’affaires",
    ]
    while sum(len(x) for x in lines) < target:
        pct = f"{rng.uniform(-60, 300):+.1f}%"
        lines.append(f"| {rng.choice(items)} | " + " | ".join(_money(rng, euro) for _ in periods) + f" | {pct} |")
    return "financial:" + ("eu" if euro else "us"), "\n".join(lines)


def gen_sensor_log(rng: random.Random, target: int) -> tuple[str, str]:
    dev = f"{rng.choice(['th', 'pm', 'vib', 'gps'])}-{hexid(rng, 6)}"
    t = epoch(rng, "ms")
    fmt = rng.randrange(3)

    def line(rng: random.Random) -> str:
        nonlocal t
        t += rng.randint(200, 5000)
        vals = {
            "temp_c": round(rng.gauss(21, 4), 2),
            "rh": round(rng.uniform(20, 90), 1),
            "p_hpa": round(rng.gauss(1013, 8), 2),
            "vbat": round(rng.uniform(3.1, 4.2), 3),
            "rssi": rng.randint(-110, -40),
        }
        if fmt == 0:
            return f"{t},{dev}," + ",".join(str(v) for v in vals.values())
        if fmt == 1:
            return json.dumps({"ts": t, "dev": dev, **vals}, separators=(",", ":"))
        return f"{iso_time(rng)} {dev} " + " ".join(f"{k}={v}" for k, v in vals.items())

    return f"sensor:{fmt}", fill(rng, target, line)


@functools.lru_cache(maxsize=1)
def _binaries() -> list[str]:
    root = SITE / "matplotlib" / "mpl-data"
    return [
        str(p) for p in listing(root, "*.png")[:200] + listing(root, "*.afm")[:20] + listing(root / "sample_data", "*")
    ]


def gen_hexdump(rng: random.Random, target: int) -> tuple[str, str]:
    """``xxd`` and ``od`` style dumps of images and data files matplotlib ships."""
    files = _binaries()
    path = files[rng.randrange(len(files))]
    with open(path, "rb") as f:
        raw = f.read()
    start = rng.randrange(max(1, len(raw) - 64)) if rng.random() < 0.5 else 0
    rows = []
    off = start
    xxd = rng.random() < 0.5
    while sum(len(r) for r in rows) < target and off < len(raw):
        b = raw[off : off + 16]
        if xxd:
            hexes = " ".join(b[i : i + 2].hex() for i in range(0, len(b), 2))
            rows.append(f"{off:08x}: {hexes:<39}  " + "".join(chr(c) if 32 <= c < 127 else "." for c in b))
        else:
            rows.append(f"{off:07o} " + " ".join(f"{c:03o}" for c in b))
        off += 16
    return "hexdump:" + path.split("mpl-data/")[1].split("/")[0], "\n".join(rows) or hexid(rng, 64)
