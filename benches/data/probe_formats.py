"""Wire formats agents paste into context (probe corpus): HTTP exchanges with JWTs and cookies,
PEM certificates (certifi's installed ``cacert.pem``) and kubeconfigs carrying them base64'd,
percent-encoded and signed URLs, data: URIs of matplotlib's installed toolbar icons (PNG as
base64, SVG percent-encoded), terminal logs with ANSI colour escapes and progress bars, tables
drawn with box-drawing characters by rich (installed), and Jupyter notebooks (nbformat 4 JSON)
with outputs. JWT claims, URLs and log lines are seeded here."""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import random
import urllib.parse

from probe_common import Sources
from probe_ids import TITLES, b62, epoch, hexs, iso, sentence, uid

QUERIES = [
    "café à Paris",
    "налоговый вычет 2024",
    "東京 天気 明日",
    "مطعم قريب مني",
    "naïve bayes sklearn",
    "Größe ändern PDF",
    "ऑनलाइन भुगतान",
    "สมัครงาน กรุงเทพ",
    "€ → $ kurs",
    '100% cotton "slim fit"',
    "ﬁle:///C:/Users/Zoë/Desktop",
    "한국어 맞춤법 검사기",
]


def _b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(rng: random.Random) -> str:
    t = epoch(rng)
    head = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT", "kid": hexs(rng, 40)}
    claims = {
        "iss": "https://login.example.com/" + uid(rng) + "/v2.0",
        "sub": b62(rng, 24),
        "aud": ["api://checkout", uid(rng)],
        "iat": t,
        "nbf": t,
        "exp": t + 3600,
        "jti": uid(rng),
        "scope": "openid profile email offline_access orders:read orders:write",
        "name": rng.choice(["Zoë Ångström", "José Núñez", "李小龙"]),
        "roles": ["admin", "billing"],
        "tid": uid(rng),
        "amr": ["pwd", "mfa"],
    }
    signing = (
        _b64u(json.dumps(head, separators=(",", ":")).encode())
        + "."
        + _b64u(json.dumps(claims, separators=(",", ":"), ensure_ascii=False).encode())
    )
    if head["alg"] == "HS256":
        sig = hmac.new(hexs(rng, 32).encode(), signing.encode(), hashlib.sha256).digest()
    else:
        sig = rng.randbytes(256 if head["alg"] == "RS256" else 64)
    return signing + "." + _b64u(sig)


def http_exchange(rng: random.Random, src: Sources) -> tuple[str, str]:
    token = jwt(rng)
    q = urllib.parse.urlencode(
        {"q": rng.choice(QUERIES), "page": rng.randint(1, 9), "cursor": _b64u(rng.randbytes(24))}
    )
    req = (
        f"> GET /v2/search?{q} HTTP/2\n> Host: api.example.com\n> User-Agent: curl/8.5.0\n> Accept: application/json\n"
        f"> Authorization: Bearer {token}\n> Cookie: session={_b64u(rng.randbytes(48))}; _ga=GA1.2."
        f"{rng.randrange(10**9)}.{epoch(rng)}; csrftoken={b62(rng, 32)}\n>\n"
    )
    resp = (
        f"< HTTP/2 {rng.choice([200, 401, 429])}\n< date: Tue, 01 Dec 2026 20:{rng.randint(10, 59)}:"
        f"{rng.randint(10, 59)} GMT\n< content-type: application/json; charset=utf-8\n"
        f'< etag: W/"{hexs(rng, 32)}"\n< x-request-id: {uid(rng)}\n< strict-transport-security: max-'
        "age=63072000; includeSubDomains; preload\n"
        f"< set-cookie: __Host-refresh={jwt(rng)}; Path=/; Secure; HttpOnly; SameSite=Strict\n< x-ratelimit-"
        f"remaining: {rng.randint(0, 5000)}\n<\n"
    )
    body = json.dumps(
        {
            "access_token": jwt(rng),
            "token_type": "Bearer",
            "expires_in": 3599,
            "refresh_token": b62(rng, 86),
            "id_token": jwt(rng),
        }
    )
    return req + resp + body + "\n", "http:jwt"


def pem_bundle(rng: random.Random, src: Sources) -> tuple[str, str]:
    pem = src.text("site:certifi/cacert.pem")
    blocks = [b for b in pem.split("\n\n") if "BEGIN CERTIFICATE" in b]
    picked = rng.sample(blocks, rng.randint(1, 6))
    if rng.random() < 0.5:
        return "\n\n".join(picked) + "\n", "certifi:cacert.pem"
    ca = base64.b64encode("\n".join(b[b.index("-----BEGIN") :] for b in picked[:2]).encode()).decode()
    key = base64.b64encode(
        (
            "-----BEGIN EC PRIVATE KEY-----\n"
            + base64.encodebytes(rng.randbytes(121)).decode()
            + "-----END EC PRIVATE KEY-----\n"
        ).encode()
    ).decode()
    cfg = (
        f"apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: {ca}\n    server: https://"
        f"{hexs(rng, 32).upper()}.gr7.eu-west-1.eks.amazonaws.com\n"
        f"  name: arn:aws:eks:eu-west-1:{rng.randrange(10**11, 10**12)}:cluster/prod\ncontexts:\n- context:\n  "
        "  cluster: prod\n    user: admin\n  name: prod\n"
        f"current-context: prod\nkind: Config\nusers:\n- name: admin\n  user:\n    client-key-data: {key}\n    "
        f"token: {jwt(rng)}\n"
    )
    return cfg, "certifi:kubeconfig"


def urls(rng: random.Random, src: Sources) -> tuple[str, str]:
    out = []
    for _ in range(rng.randint(6, 40)):
        kind = rng.random()
        if kind < 0.3:
            u = "https://www.google.com/search?" + urllib.parse.urlencode(
                {"q": rng.choice(QUERIES), "oq": rng.choice(QUERIES), "sourceid": "chrome", "ie": "UTF-8"}
            )
        elif kind < 0.55:
            cred = urllib.parse.quote(f"AKIA{b62(rng, 16).upper()}/20261201/us-east-1/s3/aws4_request", safe="")
            u = (
                f"https://bucket-{hexs(rng, 6)}.s3.amazonaws.com/exports/{urllib.parse.quote(rng.choice(QUERIES))}."
                "csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                f"&X-Amz-Credential={cred}&X-Amz-Date=20261201T{rng.randint(0, 23):02d}0000Z&X-Amz-Expires=3600&X-Amz-"
                f"SignedHeaders=host&X-Amz-Signature={hexs(rng, 64)}"
            )
        elif kind < 0.75:
            inner = "https://example.org/r?" + urllib.parse.urlencode(
                {
                    "u": "https://shop.example.com/p/" + uid(rng),
                    "utm_source": "newsletter",
                    "utm_campaign": "black-friday-2026",
                }
            )
            u = "https://l.facebook.com/l.php?u=" + urllib.parse.quote(inner, safe="") + "&h=AT" + b62(rng, 40)
        else:
            title = rng.choice(["東京都", "ポケットモンスター", "日本語の文法", "量子コンピュータ"])
            u = f"https://ja.wikipedia.org/wiki/{urllib.parse.quote(title)}#{urllib.parse.quote('概要')}"
        out.append(f"{iso(epoch(rng))}  {rng.choice(['GET', 'GET', 'POST'])} {u}  {rng.choice([200, 301, 302, 404])}")
    return "\n".join(out) + "\n", "urls"


def data_uris(rng: random.Random, src: Sources) -> tuple[str, str]:
    pngs = src.glob("site:matplotlib/mpl-data/images/*.png")
    svgs = src.glob("site:matplotlib/mpl-data/images/*.svg")
    parts = ["<!doctype html><html><head><style>"]
    for name in rng.sample(svgs, rng.randint(1, 3)):
        svg = src.text(name)
        parts.append(
            f'.icon-{name.rsplit("/", 1)[1][:-4]}{{background:url("data:image/svg+xml,'
            f'{urllib.parse.quote(svg, safe=" =:/")}")}}'
        )
    parts.append("</style></head><body>")
    for name in rng.sample(pngs, rng.randint(1, 3)):
        parts.append(
            f'<img alt="{name.rsplit("/", 1)[1]}" src="data:image/png;base64,'
            f'{base64.b64encode(src.bytes(name)).decode()}">'
        )
    parts.append("</body></html>\n")
    return "\n".join(parts), "matplotlib:data-uri"


def _c(code: str, s: str) -> str:
    return f"\x1b[{code}m{s}\x1b[0m"


def ansi_log(rng: random.Random, src: Sources) -> tuple[str, str]:
    out = []
    lv = {"INFO": "32", "WARN": "33", "ERROR": "1;31", "DEBUG": "38;5;244"}
    for _ in range(rng.randint(15, 120)):
        r = rng.random()
        if r < 0.6:
            level = rng.choice(list(lv))
            out.append(
                f"{_c('2', iso(epoch(rng), ms=True))} {_c(lv[level], level.ljust(5))} "
                f"{_c('36', 'worker-' + str(rng.randint(1, 8)))}{_c('90', ':')} {sentence(rng, 4, 12)}"
            )
        elif r < 0.8:
            done = rng.randint(0, 40)
            out.append(
                f"\x1b[2K\r{_c('38;2;95;175;255', '━' * done)}{_c('38;5;237', '━' * (40 - done))} "
                f"{_c('35', f'{done * 2.5:5.1f}%')} • "
                f"{rng.randint(1, 999)}.{rng.randint(0, 9)}/{rng.randint(1000, 4000)} MB • "
                f"{_c('33', f'{rng.random() * 90:.1f} MB/s')} • eta 0:0{rng.randint(0, 9)}:{rng.randint(10, 59)}"
            )
        else:
            out.append(
                f"{_c('1;32', 'PASSED')} tests/test_{b62(rng, 6).lower()}.py::"
                f"test_{rng.choice(['roundtrip', 'retry', 'timeout'])}[{rng.choice(['utf8', 'latin1', 'ｆｕｌｌ'])}-"
                f"{rng.randint(0, 99)}] {_c('32', '✓')}"
            )
    return "\n".join(out) + "\n", "ansi:log"


def box_table(rng: random.Random, src: Sources) -> tuple[str, str]:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    style = rng.choice(["ROUNDED", "HEAVY", "DOUBLE", "SQUARE", "MINIMAL_DOUBLE_HEAD", "HEAVY_HEAD"])
    table = Table(title=rng.choice(TITLES), box=getattr(box, style), show_lines=rng.random() < 0.3)
    cols = rng.sample(["Name", "名前", "Status", "CPU %", "Memory", "Latency p99", "Région", "Δ"], 5)
    for c in cols:
        table.add_column(c, justify=rng.choice(["left", "right", "center"]))
    for _ in range(rng.randint(4, 40)):
        table.add_row(
            *(
                rng.choice(
                    [
                        b62(rng, rng.randint(3, 12)),
                        f"{rng.random() * 100:.2f}",
                        "✔ ok",
                        "✘ failed",
                        "東京-1",
                        "São Paulo",
                        "—",
                        f"{rng.randint(1, 999)} MiB",
                    ]
                )
                for _ in cols
            )
        )
    color = rng.random() < 0.4
    console = Console(
        file=io.StringIO(),
        width=rng.choice([80, 100, 120]),
        force_terminal=color,
        color_system="256" if color else None,
        legacy_windows=False,
    )
    console.print(table)
    return console.file.getvalue(), f"rich:{style.lower()}" + (":ansi" if color else "")  # type: ignore[attr-defined]


def notebook(rng: random.Random, src: Sources) -> tuple[str, str]:
    cells = []
    pngs = src.glob("site:matplotlib/mpl-data/images/*.png")
    for k in range(rng.randint(2, 8)):
        code = [
            "import numpy as np\n",
            f"x = np.linspace(0, {rng.randint(1, 9)}, {rng.randint(5, 12)})\n",
            "x ** 2 / 3",
        ]
        nums = ", ".join(f"{rng.random() * 30:.8f}" for _ in range(rng.randint(5, 12)))
        outputs: list[dict[str, object]] = [
            {
                "data": {"text/plain": [f"array([{nums}])"]},
                "execution_count": k + 1,
                "metadata": {},
                "output_type": "execute_result",
            }
        ]
        if rng.random() < 0.3:
            outputs = [
                {
                    "ename": "KeyError",
                    "evalue": "'price'",
                    "output_type": "error",
                    "traceback": [
                        "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
                        "\x1b[0;31mKeyError\x1b[0m                                  Traceback (most recent call last)",
                        f"Cell \x1b[0;32mIn[{k + 1}], line 3\x1b[0m\n\x1b[1;32m----> 3\x1b[0m df[\x1b[38;5;"
                        "124m'\x1b[39m\x1b[38;5;124mprice\x1b[39m\x1b[38;5;124m'\x1b[39m]\n",
                        "\x1b[0;31mKeyError\x1b[0m: 'price'",
                    ],
                }
            ]
        elif rng.random() < 0.3:
            outputs.append(
                {
                    "data": {
                        "image/png": base64.encodebytes(src.bytes(rng.choice(pngs))).decode(),
                        "text/plain": ["<Figure size 640x480 with 1 Axes>"],
                    },
                    "metadata": {},
                    "output_type": "display_data",
                }
            )
        cells.append(
            {
                "cell_type": "code",
                "execution_count": k + 1,
                "id": hexs(rng, 8),
                "metadata": {},
                "outputs": outputs,
                "source": code,
            }
        )
        cells.append(
            {
                "cell_type": "markdown",
                "id": hexs(rng, 8),
                "metadata": {},
                "source": [f"## {rng.choice(TITLES)}\n", "\n", sentence(rng)],
            }
        )
    nb = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.11.7"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n", "jupyter:nbformat4"
