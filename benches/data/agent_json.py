"""JSON tool results for the agent corpus (``agent_corpus.py``), generated with a seeded RNG.

Shapes an agent's tools return, each a source label of its own: metric series with epoch
timestamps (seconds and milliseconds), integer id arrays, histograms, geo points; model price
tables whose per-token prices are floats in exponent notation (``1.5e-06``), stock quotes, FX
rates, invoices; embedding vectors; base64 attachments (bytes of installed gzip files and
compiled modules); file listings (paths of the installed standard library,
sizes, modes, SHA-256 digests), HTTP responses (URLs, headers, base64 bodies), issue-tracker
records (UUIDs, ISO timestamps, names in many scripts), database rows, Kubernetes pod lists;
deeply nested configuration trees and AST dumps. Each is dumped compact, with ``indent=2`` or
``indent=4``, with ``ensure_ascii`` on or off (``\\u`` escapes are what some tools send).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import sysconfig
import uuid
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

from agent_text import catalog, length

Doc = tuple[str, str]
WORDS = """id name status value count total items data result type created updated user owner
path size score label price cost input output tokens model region zone node pod image tag
version message level time duration latency error code url method headers body meta page next
parent children config enabled limit offset query filter sort amount currency rate""".split()
LANGS = ("es", "fr", "de", "ru", "el", "ar", "he", "hi", "th", "zh_CN", "ja", "ko", "pl", "tr", "vi", "uk")


@cache
def _names() -> tuple[str, ...]:
    """Short translated labels (at most three words) in many scripts: what names, titles and
    status strings of real records look like."""
    out = []
    for lang in LANGS:
        for msgs in catalog(lang).values():
            out += [m for m in msgs if len(m) <= 30 and m.count(" ") <= 2 and "%" not in m and "\n" not in m]
    return tuple(sorted(set(out)))


@cache
def _paths() -> tuple[str, ...]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return tuple(str(p) for p in sorted(stdlib.rglob("*"))[:20000])


FAMILIES = ("gpt", "claude", "gemini", "llama", "qwen", "mistral")


def _ts(rng: random.Random) -> int:
    return rng.randint(1_500_000_000, 1_800_000_000)


def _iso(rng: random.Random) -> str:
    t = _ts(rng)
    frac = rng.choice(("", f".{rng.randint(0, 999):03d}", f".{rng.randint(0, 999999):06d}"))
    import datetime as dt

    s = dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return s + frac + rng.choice(("Z", "+00:00", "+02:00", "-07:00"))


def _float(rng: random.Random) -> float:
    kind = rng.random()
    if kind < 0.3:
        return rng.uniform(-1, 1)
    if kind < 0.6:
        return round(rng.uniform(0, 10 ** rng.randint(1, 6)), rng.randint(1, 4))
    if kind < 0.8:
        return rng.uniform(0, 1) * 10 ** rng.randint(-12, -4)
    return rng.uniform(1, 9) * 10 ** rng.randint(7, 20)


def metrics(rng: random.Random) -> object:
    ms = rng.random() < 0.5
    t0, step = _ts(rng) * (1000 if ms else 1), rng.choice((1, 10, 15, 60, 300)) * (1000 if ms else 1)
    n = max(2, length(rng) // 30)
    series = [[t0 + i * step, round(rng.uniform(0, 100), rng.randint(0, 6))] for i in range(n)]
    return {"metric": rng.choice(WORDS) + "_" + rng.choice(WORDS), "unit": "ms" if ms else "s", "values": series}


def int_arrays(rng: random.Random) -> object:
    n = max(2, length(rng) // 8)
    digits = rng.randint(1, 19)
    return {rng.choice(WORDS): [rng.randint(0, 10**digits) for _ in range(n)], "next_cursor": rng.randint(0, 10**12)}


def histogram(rng: random.Random) -> object:
    n = max(2, length(rng) // 40)
    return {"buckets": [{"le": round(0.005 * 2**i, 6), "count": rng.randint(0, 10**6)} for i in range(n)]}


def geo(rng: random.Random) -> object:
    n = max(1, length(rng) // 60)
    return {
        "type": "FeatureCollection",
        "features": [
            {"type": "Point", "coordinates": [round(rng.uniform(-180, 180), 6), round(rng.uniform(-90, 90), 6)]}
            for _ in range(n)
        ],
    }


def model_prices(rng: random.Random) -> object:
    out = {}
    for _ in range(max(1, length(rng) // 200)):
        name = f"{rng.choice(FAMILIES)}-{rng.randint(1, 5)}-{rng.choice(WORDS)}"
        out[name] = {
            "input_cost_per_token": rng.choice((1, 1.5, 2.5, 3, 5, 0.15, 0.075)) * 10 ** -rng.randint(6, 8),
            "output_cost_per_token": rng.uniform(1, 9) * 10 ** -rng.randint(5, 7),
            "cache_read_input_token_cost": rng.uniform(1, 9) * 1e-8,
            "max_input_tokens": rng.choice((8192, 32768, 128000, 200000, 1048576)),
            "max_output_tokens": rng.choice((4096, 8192, 16384, 65536)),
            "litellm_provider": rng.choice(("openai", "anthropic", "vertex_ai", "bedrock", "azure")),
            "supports_function_calling": rng.random() < 0.7,
        }
    return out


def quotes(rng: random.Random) -> object:
    rows = []
    for _ in range(max(1, length(rng) // 90)):
        p = rng.uniform(1, 2000)
        rows.append(
            {
                "symbol": "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(rng.randint(2, 5))),
                "bid": round(p, 2),
                "ask": round(p * 1.001, 2),
                "volume": rng.randint(0, 10**9),
                "change_pct": round(rng.uniform(-12, 12), 4),
                "ts": _iso(rng),
            }
        )
    return {"quotes": rows}


def fx(rng: random.Random) -> object:
    codes = ["USD", "EUR", "JPY", "GBP", "CNY", "INR", "BRL", "KRW", "CHF", "MXN", "THB", "ILS", "RUB", "TRY"]
    return {
        "base": rng.choice(codes),
        "date": _iso(rng)[:10],
        "rates": {c: rng.uniform(0.001, 1500) for c in rng.sample(codes, rng.randint(3, len(codes)))},
    }


def invoice(rng: random.Random) -> object:
    lines = [
        {
            "sku": f"{rng.choice(WORDS).upper()}-{rng.randint(100, 99999)}",
            "qty": rng.randint(1, 50),
            "unit_price": round(rng.uniform(0.5, 999), 2),
            "tax_rate": rng.choice((0.0, 0.07, 0.19, 0.21)),
        }
        for _ in range(max(1, length(rng) // 100))
    ]
    return {
        "invoice": f"INV-{rng.randint(10**5, 10**7)}",
        "customer": rng.choice(_names()),
        "lines": lines,
        "total": round(sum(x["qty"] * x["unit_price"] for x in lines), 2),
    }


def embeddings(rng: random.Random) -> object:
    dim = max(4, length(rng) // 12)
    digits = rng.randint(4, 9)
    vec = [round(rng.gauss(0, 0.08), digits) for _ in range(dim)]
    if rng.random() < 0.3:
        vec = [rng.gauss(0, 0.05) for _ in range(dim)]  # full repr, some in exponent notation
    return {
        "object": "list",
        "data": [{"object": "embedding", "index": 0, "embedding": vec}],
        "model": rng.choice(("text-embedding-3-small", "bge-m3", "e5-large")),
        "usage": {"prompt_tokens": rng.randint(1, 8000)},
    }


def vector_matches(rng: random.Random) -> object:
    dim = rng.choice((8, 16, 32, 64))
    return {
        "matches": [
            {
                "id": f"doc-{rng.getrandbits(32):08x}#{rng.randint(0, 99)}",
                "score": rng.uniform(0.2, 1),
                "values": [round(rng.uniform(-1, 1), rng.randint(3, 8)) for _ in range(dim)],
            }
            for _ in range(max(1, length(rng) // (dim * 10)))
        ],
        "namespace": rng.choice(WORDS),
    }


def file_listing(rng: random.Random) -> object:
    paths = _paths()
    i = rng.randrange(len(paths))
    return {
        "cwd": str(Path(paths[i]).parent),
        "entries": [
            {
                "path": p,
                "size": rng.randint(0, 10**7),
                "mode": oct(rng.choice((0o100644, 0o100755, 0o40755))),
                "mtime": _ts(rng) + rng.random(),
                "sha256": hashlib.sha256(p.encode()).hexdigest(),
            }
            for p in paths[i : i + max(1, length(rng) // 160)]
        ],
    }


def http_response(rng: random.Random) -> object:
    host = rng.choice(("api.github.com", "example.org", "s3.eu-west-1.amazonaws.com", "internal.corp:8443"))
    body = base64.b64encode(rng.randbytes(max(3, length(rng) // 3))).decode()
    return {
        "url": (
            f"https://{host}/v{rng.randint(1, 3)}/{rng.choice(WORDS)}/{uuid.UUID(int=rng.getrandbits(128))}"
            f"?page={rng.randint(1, 99)}&per_page=100"
        ),
        "status": rng.choice((200, 201, 301, 404, 429, 500)),
        "headers": {
            "content-type": "application/json",
            "etag": f'W/"{hashlib.md5(body.encode()).hexdigest()}"',
            "x-request-id": str(uuid.UUID(int=rng.getrandbits(128))),
            "date": _iso(rng),
        },
        "body_base64": body,
    }


def attachment(rng: random.Random) -> object:
    """A file sent as base64, as mail, chat and storage APIs return it: gzip files (near-random
    bytes) and compiled modules from the installed system."""
    from agent_synth import _binaries

    path = rng.choice(_binaries())
    data = path.read_bytes()
    at = rng.randrange(max(1, len(data) - 64))
    chunk = data[at : at + max(8, length(rng) * 3 // 4)]
    return {
        "filename": path.name,
        "size": len(chunk),
        "encoding": "base64",
        "content": base64.b64encode(chunk).decode(),
        "sha1": hashlib.sha1(chunk).hexdigest(),
    }


def issues(rng: random.Random) -> object:
    return [
        {
            "id": str(uuid.UUID(int=rng.getrandbits(128))),
            "number": rng.randint(1, 60000),
            "title": rng.choice(_names()),
            "author": rng.choice(_names()),
            "labels": rng.sample(_names(), 2),
            "created_at": _iso(rng),
            "comments": rng.randint(0, 300),
            "html_url": f"https://github.com/{rng.choice(WORDS)}/{rng.choice(WORDS)}/issues/{rng.randint(1, 9999)}",
        }
        for _ in range(max(1, length(rng) // 250))
    ]


def db_rows(rng: random.Random) -> object:
    cols = rng.sample(WORDS, rng.randint(3, 7))
    gens: list[Callable[[], object]] = [
        lambda: rng.randint(0, 10**9),
        lambda: rng.choice(_names()),
        _float_fn(rng),
        lambda: _iso(rng),
        lambda: None,
        lambda: rng.random() < 0.5,
    ]
    kinds = [rng.choice(gens) for _ in cols]
    return {"columns": cols, "rows": [[g() for g in kinds] for _ in range(max(1, length(rng) // 80))]}


def _float_fn(rng: random.Random) -> Callable[[], object]:
    return lambda: _float(rng)


def pods(rng: random.Random) -> object:
    items = []
    for _ in range(max(1, length(rng) // 300)):
        app = rng.choice(WORDS)
        items.append(
            {
                "metadata": {
                    "name": f"{app}-{rng.getrandbits(40):x}-{rng.getrandbits(20):05x}",
                    "namespace": rng.choice(("default", "prod", "kube-system")),
                    "uid": str(uuid.UUID(int=rng.getrandbits(128))),
                    "creationTimestamp": _iso(rng)[:19] + "Z",
                },
                "status": {
                    "phase": rng.choice(("Running", "Pending", "Failed")),
                    "podIP": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
                    "containerStatuses": [
                        {
                            "image": (
                                f"registry.k8s.io/{app}:v1.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
                                f"@sha256:{rng.getrandbits(256):064x}"
                            ),
                            "restartCount": rng.randint(0, 40),
                        }
                    ],
                },
            }
        )
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _tree(rng: random.Random, depth: int) -> object:
    if depth <= 0 or rng.random() < 0.2:
        return rng.choice(
            (
                lambda: rng.randint(-(10**6), 10**6),
                lambda: _float(rng),
                lambda: rng.choice(_names()),
                lambda: rng.choice((True, False, None)),
                lambda: rng.choice(_paths()),
            )
        )()
    if rng.random() < 0.3:
        return [_tree(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    return {
        rng.choice(WORDS) + rng.choice(("", "_id", "Count", "-name", "")): _tree(rng, depth - 1)
        for _ in range(rng.randint(1, 3))
    }


def nested(rng: random.Random) -> object:
    return {"config": _tree(rng, rng.randint(4, 9))}


def openapi(rng: random.Random) -> object:
    def schema(depth: int) -> object:
        if depth <= 0 or rng.random() < 0.3:
            return {"type": rng.choice(("string", "integer", "number", "boolean")), "example": _tree(rng, 0)}
        return {
            "type": "object",
            "required": rng.sample(WORDS, 2),
            "properties": {rng.choice(WORDS): schema(depth - 1) for _ in range(rng.randint(1, 4))},
        }

    paths = {
        f"/v1/{rng.choice(WORDS)}/{{{rng.choice(WORDS)}_id}}": {
            m: {
                "operationId": f"{m}{rng.choice(WORDS).title()}",
                "responses": {"200": {"content": {"application/json": {"schema": schema(rng.randint(2, 5))}}}},
            }
            for m in rng.sample(("get", "post", "put", "delete"), rng.randint(1, 3))
        }
        for _ in range(rng.randint(1, 4))
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": rng.choice(_names()), "version": f"{rng.randint(0, 9)}.{rng.randint(0, 20)}"},
        "paths": paths,
    }


SHAPES: dict[str, dict[str, Callable[[random.Random], object]]] = {
    "json_numeric": {"metrics": metrics, "int_arrays": int_arrays, "histogram": histogram, "geo": geo},
    "json_prices": {"model_prices": model_prices, "quotes": quotes, "fx": fx, "invoice": invoice},
    "json_embeddings": {"embeddings": embeddings, "vector_matches": vector_matches},
    "json_records": {
        "file_listing": file_listing,
        "http_response": http_response,
        "issues": issues,
        "db_rows": db_rows,
        "pods": pods,
        "attachment": attachment,
    },
    "json_nested": {"config_tree": nested, "openapi": openapi},
}


def json_docs(category: str) -> Callable[[random.Random], Iterator[Doc]]:
    shapes = SHAPES[category]

    def gen(rng: random.Random) -> Iterator[Doc]:
        while True:
            name = rng.choice(sorted(shapes))
            value = shapes[name](rng)
            indent = rng.choice((None, None, 2, 4))
            text = json.dumps(value, indent=indent, ensure_ascii=rng.random() < 0.25)
            yield name, text

    return gen
