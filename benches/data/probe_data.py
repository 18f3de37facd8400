"""Data-shaped tool results, seeded (probe corpus): SQL results (JSON rows with NULLs and
decimals, and psql's aligned tables), GeoJSON with 15-digit coordinates, OpenTelemetry OTLP/JSON
spans, Prometheus exposition text, and AWS API examples taken from botocore's installed
``examples-1.json`` files (real request/response examples written by AWS)."""

from __future__ import annotations

import json
import random
from decimal import Decimal

from probe_common import Sources
from probe_ids import CITIES, b62, epoch, hexs, iso, sentence, uid


def _jd(rng: random.Random, obj: object) -> str:
    return json.dumps(obj, indent=rng.choice([None, 2, 4]), ensure_ascii=rng.random() < 0.5)


def _value(rng: random.Random, col: str, t: int) -> object:
    if rng.random() < 0.18:
        return None
    if col.endswith("_id"):
        return uid(rng) if rng.random() < 0.5 else rng.randrange(1, 10**12)
    if col in ("amount", "balance", "unit_price"):
        return str(Decimal(rng.randrange(-(10**9), 10**11)).scaleb(-4))
    if col == "ratio":
        return rng.random() ** 3
    if col.endswith("_at"):
        return iso(t + rng.randrange(10**7), ms=True, z=False)
    if col == "meta":
        return {
            "ip": f"2001:db8:{hexs(rng, 4)}::{hexs(rng, 3)}",
            "ua": "Mozilla/5.0 (X11; Linux x86_64)",
            "tags": [b62(rng, 5) for _ in range(3)],
        }
    return rng.choice(
        ["Łódź", "García Márquez", "O'Brien", "Ørsted A/S", "株式会社テスト", "naïve café", "", "NULL", "n/a"]
    )


COLS = [
    "order_id",
    "customer_id",
    "amount",
    "unit_price",
    "ratio",
    "created_at",
    "shipped_at",
    "name",
    "city",
    "meta",
    "balance",
]


def sql_json(rng: random.Random, src: Sources) -> tuple[str, str]:
    cols = rng.sample(COLS, rng.randint(4, 9))
    t = epoch(rng)
    rows = [[_value(rng, c, t) for c in cols] for _ in range(rng.randint(5, 120))]
    if rng.random() < 0.5:
        body: object = {
            "columns": [
                {"name": c, "type": rng.choice(["numeric(18,4)", "uuid", "timestamptz", "text", "jsonb", "float8"])}
                for c in cols
            ],
            "rows": rows,
            "rowCount": len(rows),
            "command": "SELECT",
            "duration_ms": round(rng.random() * 900, 3),
        }
    else:
        body = [dict(zip(cols, r)) for r in rows]
    return _jd(rng, body), "sql:json"


def sql_psql(rng: random.Random, src: Sources) -> tuple[str, str]:
    cols = rng.sample([c for c in COLS if c != "meta"], rng.randint(3, 7))
    t = epoch(rng)
    rows = [["" if v is None else str(v) for v in (_value(rng, c, t) for c in cols)] for _ in range(rng.randint(5, 90))]
    w = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    lines = [" " + " | ".join(c.center(w[i]) for i, c in enumerate(cols)), "-" + "-+-".join("-" * x for x in w) + "-"]
    lines += [" " + " | ".join(v.ljust(w[i]) for i, v in enumerate(r)) for r in rows]
    return f"app=> SELECT {', '.join(cols)} FROM orders WHERE created_at > now() - interval '7 days';\n" + "\n".join(
        lines
    ) + f"\n({len(rows)} rows)\n", "sql:psql"


def geojson(rng: random.Random, src: Sources) -> tuple[str, str]:
    feats = []
    for _ in range(rng.randint(1, 8)):
        name, lon, lat = rng.choice(CITIES)
        kind = rng.choice(["Point", "LineString", "Polygon"])
        pts = [
            [lon + rng.uniform(-0.05, 0.05), lat + rng.uniform(-0.05, 0.05)]
            for _ in range(1 if kind == "Point" else rng.randint(4, 60))
        ]
        geom = pts[0] if kind == "Point" else pts if kind == "LineString" else [[*pts, pts[0]]]
        feats.append(
            {
                "type": "Feature",
                "id": rng.randrange(10**6, 10**10),
                "geometry": {"type": kind, "coordinates": geom},
                "properties": {
                    "name": name,
                    "osm_id": rng.randrange(10**8, 10**10),
                    "population": rng.randint(1000, 20_000_000),
                    "area_km2": rng.uniform(1, 3000),
                    "updated": iso(epoch(rng)),
                },
            }
        )
    return _jd(
        rng, {"type": "FeatureCollection", "bbox": [min(c[1] for c in CITIES), -90.0, 180.0, 90.0], "features": feats}
    ), "geojson"


def otel_spans(rng: random.Random, src: Sources) -> tuple[str, str]:
    trace = hexs(rng, 32)
    spans = []
    t = epoch(rng) * 10**9 + rng.randrange(10**9)
    parent = ""
    for _ in range(rng.randint(2, 25)):
        sid = hexs(rng, 16)
        dur = rng.randrange(10**4, 10**10)
        attrs = [
            {"key": "http.request.method", "value": {"stringValue": rng.choice(["GET", "POST"])}},
            {
                "key": "url.full",
                "value": {"stringValue": f"https://api.example.com/v1/items/{uid(rng)}?fields=a%2Cb&ts={t}"},
            },
            {"key": "http.response.status_code", "value": {"intValue": str(rng.choice([200, 201, 429, 503]))}},
            {"key": "db.statement", "value": {"stringValue": f"SELECT * FROM t WHERE id = ${rng.randint(1, 9)}"}},
            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": str(rng.randint(1, 200_000))}},
        ]
        spans.append(
            {
                "traceId": trace,
                "spanId": sid,
                "parentSpanId": parent,
                "flags": 257,
                "name": rng.choice(["GET /v1/items/{id}", "chat gpt-4o", "pg.query", "redis.GET"]),
                "kind": rng.randint(1, 5),
                "startTimeUnixNano": str(t),
                "endTimeUnixNano": str(t + dur),
                "attributes": rng.sample(attrs, rng.randint(1, len(attrs))),
                "status": {"code": rng.choice([0, 1, 2])},
            }
        )
        parent, t = sid, t + rng.randrange(dur + 1)
    body = {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [
                        {"key": "service.name", "value": {"stringValue": "checkout"}},
                        {"key": "host.id", "value": {"stringValue": hexs(rng, 32)}},
                        {"key": "telemetry.sdk.version", "value": {"stringValue": "1.27.0"}},
                    ]
                },
                "scopeSpans": [
                    {"scope": {"name": "opentelemetry.instrumentation.httpx", "version": "0.48b0"}, "spans": spans}
                ],
            }
        ]
    }
    return _jd(rng, body), "otel:otlp-json"


def prometheus(rng: random.Random, src: Sources) -> tuple[str, str]:
    out = []
    for name, kind, help_ in rng.sample(
        [
            ("http_request_duration_seconds", "histogram", "Duration of HTTP requests."),
            ("process_resident_memory_bytes", "gauge", "Resident memory size in bytes."),
            ("go_gc_duration_seconds", "summary", "A summary of the pause duration of garbage collection cycles."),
            ("node_network_receive_bytes_total", "counter", "Network device statistic receive_bytes."),
            ("llm_tokens_total", "counter", "Tokens sent and received, by model."),
        ],
        rng.randint(1, 5),
    ):
        out += [f"# HELP {name} {help_}", f"# TYPE {name} {kind}"]
        for _ in range(rng.randint(1, 6)):
            labels = (
                f'method="{rng.choice(["GET", "POST"])}",route="/api/v1/{b62(rng, 5).lower()}",'
                f'pod="web-{hexs(rng, 10)}-{b62(rng, 5).lower()}"'
            )
            if kind == "histogram":
                acc = 0
                for le in ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]:
                    acc += rng.randint(0, 5000)
                    out.append(f'{name}_bucket{{{labels},le="{le}"}} {acc}')
                out += [f"{name}_sum{{{labels}}} {rng.random() * acc:.9g}", f"{name}_count{{{labels}}} {acc}"]
            elif kind == "summary":
                out += [
                    f'{name}{{quantile="{q}"}} {rng.random() * 1e-3:.6e}' for q in ("0", "0.25", "0.5", "0.75", "1")
                ]
            else:
                out.append(
                    f"{name}{{{labels}}} {rng.random() * 10 ** rng.randint(3, 12):.17g} "
                    f"{epoch(rng) * 1000 + rng.randrange(1000)}"
                )
    return "\n".join(out) + "\n", "prometheus"


def aws_examples(rng: random.Random, src: Sources) -> tuple[str, str]:
    names = src.glob("site:botocore/data/*/*/examples-1.json")
    while True:
        name = rng.choice(names)
        ex = json.loads(src.text(name)).get("examples", {})
        cases = [(op, e) for op, es in sorted(ex.items()) for e in es if e.get("output")]
        if cases:
            break
    op, e = rng.choice(cases)
    service = name.split("/")[2]
    body = {
        "operation": op,
        "service": service,
        "request": e.get("input", {}),
        "response": e["output"],
        "ResponseMetadata": {
            "RequestId": uid(rng),
            "HTTPStatusCode": 200,
            "HTTPHeaders": {"x-amzn-requestid": uid(rng), "date": "Tue, 01 Dec 2026 20:00:00 GMT"},
            "RetryAttempts": 0,
        },
    }
    return json.dumps(body, indent=rng.choice([None, 2]), default=str), f"botocore:{service}"


def log_lines(rng: random.Random, src: Sources) -> tuple[str, str]:
    """JSON lines from a structured logger (one object per line, as `kubectl logs` prints them)."""
    out = []
    for _ in range(rng.randint(10, 80)):
        out.append(
            json.dumps(
                {
                    "ts": epoch(rng) + rng.random(),
                    "level": rng.choice(["info", "warn", "error", "debug"]),
                    "logger": "app.http",
                    "msg": sentence(rng, 3, 9),
                    "trace_id": hexs(rng, 32),
                    "span_id": hexs(rng, 16),
                    "latency_ms": round(rng.random() * 3000, 2),
                    "user": {"id": b62(rng, 12), "email_sha": hexs(rng, 64)},
                    "path": f"/v1/{b62(rng, 8)}",
                }
            )
        )
    return "\n".join(out) + "\n", "jsonl_logs"
