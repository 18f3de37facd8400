"""JSON tool results as agents receive them: search APIs, SQL rows (as JSON and as psql/MySQL
tables), HTTP error bodies."""

# ruff: noqa: E501  (templates of tool output: one line of source is one line of output)

from __future__ import annotations

import json
import random
from urllib.parse import quote, urlencode

from .common import fill, grow_json, hexid, iso_time, uuid4
from .phrases import TICKETS
from .sources import english_sentences

DOMAINS = [
    "docs.python.org",
    "stackoverflow.com",
    "github.com",
    "developer.mozilla.org",
    "es.wikipedia.org",
    "zhuanlan.zhihu.com",
    "qiita.com",
    "news.ycombinator.com",
    "learn.microsoft.com",
]


def url(rng: random.Random) -> str:
    path = "/".join(
        rng.choice(
            [
                "api",
                "v2",
                "questions",
                str(rng.randint(10**6, 10**8)),
                "how-to",
                "ja",
                "zh-cn",
                "wiki",
                "Reference",
                "guides",
            ]
        )
        for _ in range(rng.randint(1, 5))
    )
    q = {
        "q": rng.choice(["python asyncio timeout", "为什么 docker 报错", "クエリ 最適化", "error 0x80070005"]),
        "utm_source": "newsletter",
        "page": str(rng.randint(1, 40)),
    }
    return (
        f"https://{rng.choice(DOMAINS)}/{path}?{urlencode(q, quote_via=quote)}"
        if rng.random() < 0.6
        else f"https://{rng.choice(DOMAINS)}/{path}"
    )


def snippet(rng: random.Random) -> str:
    if rng.random() < 0.25:
        lang = rng.choice(["es", "zh", "ja", "de", "ru"])
        return rng.choice(TICKETS[lang]).split("{")[0].strip() or rng.choice(english_sentences())
    return " ".join(rng.choice(english_sentences()) for _ in range(rng.randint(1, 2)))


def gen_search_api(rng: random.Random, target: int) -> tuple[str, str]:
    def hit(rng: random.Random, i: int) -> object:
        s = snippet(rng)
        return {
            "position": i + 1,
            "title": s[: rng.randint(30, 70)],
            "url": url(rng),
            "snippet": s,
            "score": round(rng.uniform(0, 30), rng.choice([2, 4, 8])),
            "published": iso_time(rng, frac=False) if rng.random() < 0.6 else None,
            "favicon": f"https://icons.example.net/{hexid(rng, 16)}.ico",
        }

    body = {
        "query": rng.choice(
            [
                "vector database pricing",
                "rust async trait object",
                "kubernetes OOMKilled exit code 137",
                "pandas merge on index",
            ]
        ),
        "search_id": uuid4(rng),
        "results": grow_json(rng, target, hit),
        "took_ms": rng.randint(20, 900),
    }
    return "search-api", json.dumps(body, ensure_ascii=False, indent=rng.choice([None, 2]))


COLUMNS = [
    ("id", "int"),
    ("user_id", "int"),
    ("email", "str"),
    ("amount", "dec"),
    ("currency", "cur"),
    ("created_at", "ts"),
    ("status", "enum"),
    ("notes", "text"),
    ("ratio", "float"),
    ("deleted_at", "null"),
]


def _value(rng: random.Random, kind: str) -> object:
    if kind == "int":
        return rng.randint(1, 10 ** rng.randint(2, 12))
    if kind == "str":
        return f"{rng.choice(['ana', 'wei', 'k.tanaka', 'oleg', 'fatima'])}{rng.randint(1, 999)}@{rng.choice(['example.com', 'corp.io'])}"
    if kind == "dec":
        return f"{rng.uniform(0, 99999):.{rng.choice([2, 4])}f}"
    if kind == "cur":
        return rng.choice(["USD", "EUR", "JPY", "CNY", "BRL"])
    if kind == "ts":
        return iso_time(rng).replace("T", " ")
    if kind == "enum":
        return rng.choice(["paid", "refunded", "pending", "failed"])
    if kind == "text":
        return rng.choice([None, "", snippet(rng)[:80]])
    if kind == "float":
        return rng.random() * 10 ** rng.randint(-6, 3)
    return None


def gen_sql_json(rng: random.Random, target: int) -> tuple[str, str]:
    cols = rng.sample(COLUMNS, rng.randint(4, len(COLUMNS)))
    if rng.random() < 0.5:
        rows = grow_json(rng, target, lambda r, i: {c: _value(r, k) for c, k in cols}, indent=None)
        return "sql:records", json.dumps({"rows": rows, "rowCount": len(rows), "command": "SELECT"}, ensure_ascii=False)
    rows = grow_json(rng, target, lambda r, i: [_value(r, k) for _, k in cols], indent=None)
    return "sql:columns", json.dumps(
        {"columns": [c for c, _ in cols], "types": [k for _, k in cols], "data": rows}, ensure_ascii=False
    )


def gen_sql_table(rng: random.Random, target: int) -> tuple[str, str]:
    """psql's aligned output, and MySQL's boxed one."""
    cols = rng.sample(COLUMNS, rng.randint(3, 7))
    rows: list[list[str]] = []
    size = 0
    while size < target:
        rows.append(["" if (v := _value(rng, k)) is None else str(v) for _, k in cols])
        size += sum(len(c) + 3 for c in rows[-1])
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, (c, _) in enumerate(cols)]
    if rng.random() < 0.5:
        head = " | ".join(c.ljust(w) for (c, _), w in zip(cols, widths))
        lines = [" " + head, "-" + "-+-".join("-" * w for w in widths) + "-"]
        lines += [
            " " + " | ".join(v.rjust(w) if v[:1].isdigit() else v.ljust(w) for v, w in zip(r, widths)) for r in rows
        ]
        return "sql:psql", "\n".join(lines) + f"\n({len(rows)} rows)\n"
    bar = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [bar, "| " + " | ".join(c.ljust(w) for (c, _), w in zip(cols, widths)) + " |", bar]
    lines += ["| " + " | ".join(v.ljust(w) for v, w in zip(r, widths)) + " |" for r in rows] + [bar]
    return "sql:mysql", "\n".join(lines) + f"\n{len(rows)} rows in set (0.{rng.randint(0, 99):02d} sec)\n"


def gen_http_errors(rng: random.Random, target: int) -> tuple[str, str]:
    def body(rng: random.Random) -> str:
        kind = rng.randrange(4)
        if kind == 0:
            obj: object = {
                "type": "https://problems.example.com/"
                + rng.choice(["rate-limited", "validation-error", "out-of-credit"]),
                "title": rng.choice(english_sentences())[:60],
                "status": rng.choice([400, 409, 422, 429]),
                "detail": snippet(rng),
                "instance": f"/v1/orders/{uuid4(rng)}",
                "errors": [
                    {
                        "field": f"items[{rng.randint(0, 9)}].{rng.choice(['sku', 'qty', 'price'])}",
                        "code": rng.choice(["min", "type", "required"]),
                    }
                    for _ in range(rng.randint(1, 4))
                ],
            }
        elif kind == 1:
            obj = {
                "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                "message": "Rate of requests exceeds the allowed throughput.",
                "RequestId": hexid(rng, 32).upper(),
            }
        elif kind == 2:
            obj = {
                "error": {
                    "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in "
                    + str(rng.randint(128001, 400000))
                    + " tokens.",
                    "type": "invalid_request_error",
                    "param": "messages",
                    "code": "context_length_exceeded",
                }
            }
        else:
            trace = (
                'Traceback (most recent call last):\n  File "/srv/app/api.py", line '
                + str(rng.randint(10, 900))
                + ", in handler\n    return db.fetch(q)\npsycopg.errors.SerializationFailure: could not serialize access"
            )
            obj = {"detail": "Internal Server Error", "trace": trace, "request_id": uuid4(rng)}
        status = rng.choice(
            [
                "HTTP/1.1 429 Too Many Requests",
                "HTTP/2 422",
                "HTTP/1.1 500 Internal Server Error",
                "HTTP/1.1 400 Bad Request",
            ]
        )
        headers = f"{status}\ncontent-type: application/json\nx-request-id: {uuid4(rng)}\nretry-after: {rng.randint(1, 120)}\n"
        return headers + "\n" + json.dumps(obj, indent=rng.choice([None, 2]))

    return "http-errors", fill(rng, target, body, sep="\n\n")
