"""Plausible text that is hard to count: minified JavaScript, long URLs with percent-encoded
query strings, JWTs and base64 blobs, HTML full of no-break spaces and entities, styled
Unicode letters (full-width, mathematical bold), combining marks and zero-width characters,
regular expressions (CPython's own test patterns) and character tables from ``unicodedata``."""

# ruff: noqa: E501  (templates of tool output and sentences: one line of source is one line of output)

from __future__ import annotations

import base64
import json
import random
import unicodedata
from urllib.parse import quote, urlencode

from .common import STDLIB, fill, hexid, read, uuid4
from .phrases import NAMES, TICKETS
from .sources import english_sentences

IDENT = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$"


def gen_minified_js(rng: random.Random, target: int) -> tuple[str, str]:
    def name(rng: random.Random) -> str:
        return rng.choice(IDENT) + ("" if rng.random() < 0.6 else rng.choice(IDENT + "0123456789"))

    def stmt(rng: random.Random) -> str:
        a, b, c = name(rng), name(rng), name(rng)
        forms = [
            f"function {a}({b},{c}){{return {b}&&{c}.length>{rng.randint(0, 99)}?{b}[{c}]:void 0}}",
            f"var {a}={b}||{{}},{c}=!0;",
            f"{a}.prototype.{b}=function(){{this.{c}=[]}};",
            f'{a}=({b},{c})=>{b}.map(({name(rng)})=>({name(rng)}:{rng.randint(0, 1 << 30)},"{hexid(rng, 6)}":{c}));',
            f'if(!{a}){{throw new Error("{a} is not defined @{rng.randint(1, 9999)}")}}',
            f"for(var {a}=0,{b}={c}.length;{a}<{b};{a}++){c}[{a}]^=0x{hexid(rng, 4)};",
            '"use strict";Object.defineProperty(exports,"__esModule",{value:!0});',
            f"{a}=/^(?:[a-z0-9!#$%&'*+/=?^_`{{|}}~-]+)@{b}$/i.test({c});",
        ]
        return rng.choice(forms)

    return "minified-js", "!function(){" + fill(rng, target, stmt, sep="") + "}();\n//# sourceMappingURL=app." + hexid(
        rng, 8
    ) + ".js.map"


def gen_long_urls(rng: random.Random, target: int) -> tuple[str, str]:
    def one(rng: random.Random) -> str:
        q = {
            "q": rng.choice(TICKETS[rng.choice(["es", "zh", "ja", "ru"])]).split("{")[0],
            "utm_source": "google",
            "utm_medium": "cpc",
            "utm_campaign": f"spring_sale_{rng.randint(2020, 2026)}",
            "gclid": base64.urlsafe_b64encode(bytes(rng.randrange(256) for _ in range(30))).decode(),
            "redirect_uri": f"https://app.example.com/callback?state={uuid4(rng)}&nonce={hexid(rng, 16)}",
            "fbclid": "IwAR" + hexid(rng, 40),
            "filters[price][gte]": str(rng.randint(0, 500)),
            "sort": "-created_at,name",
        }
        keys = rng.sample(sorted(q), rng.randint(3, len(q)))
        host = rng.choice(
            ["www.example.com", "shop.example.co.uk", "xn--bcher-kva.example", "例え.テスト", "api.example.org:8443"]
        )
        path = "/" + "/".join(
            quote(rng.choice(["search", "products", "café", "商品", "détails", "v1", "items"]))
            for _ in range(rng.randint(1, 4))
        )
        u = f"https://{host}{path}?" + urlencode({k: q[k] for k in keys}, quote_via=quote)
        return rng.choice([u, f'GET {u} HTTP/1.1" 302 0 "-" "Mozilla/5.0"', f"[{u}]({u})", f"Redirecting to {u}"])

    return "long-urls", fill(rng, target, one)


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def gen_tokens_b64(rng: random.Random, target: int) -> tuple[str, str]:
    def one(rng: random.Random) -> str:
        kind = rng.randrange(4)
        if kind == 0:
            head = _b64url(
                json.dumps(
                    {"alg": rng.choice(["RS256", "HS256", "ES256"]), "typ": "JWT", "kid": hexid(rng, 16)}
                ).encode()
            )
            claims = {
                "sub": uuid4(rng),
                "iss": "https://auth.example.com/",
                "aud": ["api", "web"],
                "iat": rng.randint(1_700_000_000, 1_760_000_000),
                "exp": rng.randint(1_760_000_000, 1_800_000_000),
                "scope": "read:orders write:orders",
                "name": rng.choice(NAMES),
            }
            body = _b64url(json.dumps(claims, ensure_ascii=False).encode())
            return f"Authorization: Bearer {head}.{body}.{_b64url(bytes(rng.randrange(256) for _ in range(rng.choice([32, 64, 256]))))}"
        if kind == 1:
            blob = base64.b64encode(bytes(rng.randrange(256) for _ in range(rng.randint(100, 3000)))).decode()
            return json.dumps({"filename": f"scan_{hexid(rng, 6)}.pdf", "mime": "application/pdf", "data": blob})
        if kind == 2:
            return (
                "data:image/png;base64,"
                + base64.b64encode(
                    b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(rng.randint(50, 1500)))
                ).decode()
            )
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + "\n".join(
                base64.b64encode(bytes(rng.randrange(256) for _ in range(52))).decode()
                for _ in range(rng.randint(3, 20))
            )
            + "\n-----END OPENSSH PRIVATE KEY-----"
        )

    return "b64-jwt", fill(rng, target, one)


def gen_html_nbsp(rng: random.Random, target: int) -> tuple[str, str]:
    """HTML as scraped from a CMS: inline styles, ``&nbsp;`` runs, literal U+00A0 and U+202F,
    entities, and table layout."""

    def block(rng: random.Random) -> str:
        s = rng.choice(english_sentences()) if rng.random() < 0.7 else rng.choice(TICKETS["fr"]).split("{")[0]
        words = s.split(" ")
        glue = rng.choice(["&nbsp;", "\u00a0", " ", "&#160;", "\u202f"])
        text = glue.join(words)
        price = str(rng.randint(1, 9999)) + rng.choice(["&nbsp;€", "\u00a0€", "&#8239;€", " &euro;"])
        return (
            f'<tr style="mso-yfti-irow:{rng.randint(0, 99)};height:{rng.uniform(10, 30):.1f}pt"><td width="{rng.randint(40, 400)}" valign="top" style="border:solid windowtext 1.0pt;padding:0cm 5.4pt 0cm 5.4pt">'
            f'<p class="MsoNormal"><span style="font-size:10.0pt;font-family:&quot;Arial&quot;,sans-serif">{text}&nbsp;&nbsp;&nbsp;</span></p></td><td>{price}</td></tr>'
        )

    return "html-nbsp", '<table class="MsoTableGrid" border="1" cellspacing="0" cellpadding="0">\n' + fill(
        rng, target, block
    ) + "\n</table>"


def _styled(text: str, base: int, digits: int | None) -> str:
    out = []
    for ch in text:
        if "A" <= ch <= "Z":
            out.append(chr(base + ord(ch) - 65))
        elif "a" <= ch <= "z":
            out.append(chr(base + 26 + ord(ch) - 97))
        elif digits is not None and "0" <= ch <= "9":
            out.append(chr(digits + ord(ch) - 48))
        else:
            out.append(ch)
    return "".join(out)


def gen_styled_unicode(rng: random.Random, target: int) -> tuple[str, str]:
    """Social-media posts in 'fonts': mathematical bold and sans letters, full-width forms,
    combining marks stacked on letters, zero-width joiners and spaces inside words."""

    def post(rng: random.Random) -> str:
        s = rng.choice(english_sentences())[:120]
        kind = rng.randrange(5)
        if kind == 0:
            return _styled(s, 0x1D400, 0x1D7CE)  # 𝐁𝐨𝐥𝐝
        if kind == 1:
            return _styled(s, 0x1D5D4, 0x1D7EC)  # 𝗦𝗮𝗻𝘀 𝗯𝗼𝗹𝗱
        if kind == 2:
            return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c for c in s)
        if kind == 3:
            return "".join(c + "".join(chr(rng.randint(0x300, 0x36F)) for _ in range(rng.randint(0, 3))) for c in s)
        return rng.choice(["\u200b", "\u200c", "\u2060", "\ufeff"]).join(s)

    return "styled-unicode", fill(rng, target, post)


def gen_regex(rng: random.Random, target: int) -> tuple[str, str]:
    """Regular expressions from CPython's regex tests, as a tool call or a config lists them."""
    lines = [
        ln.strip()
        for ln in read(STDLIB / "test" / "re_tests.py").splitlines()
        if ln.strip().startswith("(r'") or ln.strip().startswith("('")
    ]
    return "cpython-test:re_tests", fill(rng, target, lambda r: r.choice(lines))


def gen_unicode_table(rng: random.Random, target: int) -> tuple[str, str]:
    """A character inspector's output: code point, the character, its UTF-8 bytes and name."""
    blocks = [
        (0x0370, 0x03FF),
        (0x0400, 0x04FF),
        (0x0590, 0x05FF),
        (0x0600, 0x06FF),
        (0x0900, 0x097F),
        (0x0E00, 0x0E7F),
        (0x2190, 0x21FF),
        (0x2200, 0x22FF),
        (0x2500, 0x257F),
        (0x3040, 0x30FF),
        (0x4E00, 0x4FFF),
        (0xAC00, 0xAFFF),
        (0x1F300, 0x1F5FF),
        (0x1F900, 0x1F9FF),
    ]
    lo, hi = rng.choice(blocks)
    cp = rng.randint(lo, hi)

    def row(rng: random.Random) -> str:
        nonlocal cp
        cp = cp + 1 if cp < hi else lo
        ch = chr(cp)
        name = unicodedata.name(ch, "<unassigned>")
        return f"U+{cp:04X}\t{ch}\t{ch.encode('utf-8').hex(' ')}\t{unicodedata.category(ch)}\t{name}"

    return f"unicodedata:{lo:04X}", "code\tchar\tutf-8\tcat\tname\n" + fill(rng, target, row)
