"""Seeded identifiers and values in the shapes real APIs print them (for the probe corpus)."""

from __future__ import annotations

import datetime as dt
import random
import string
import uuid

B62 = string.digits + string.ascii_letters
EPOCH0 = 1_690_000_000  # mid 2023; every timestamp is within ~2.5 years after it

# Hand-written, in the voice of bug reports and agent tool calls.
TITLES = [
    "Crash when the config file has a BOM",
    "Timeout after upgrading to 2.4.1 on ARM64",
    "`--dry-run` still writes the lock file",
    "Memory grows without bound with streaming responses",
    "Docs: the example for retries uses a removed argument",
    "Segfault in worker pool under Python 3.12",
    "Feature request: expose per-request timeouts",
    "Unicode filenames are double-encoded on Windows",
    "Race between shutdown and the last flush",
    "Regression: p99 latency doubled since 0.9",
    "Wrong status code (500 instead of 404) for missing keys",
    "Support for HTTP/2 push promises",
    "CI flaky: test_reconnect fails 1 in 20 runs",
    "Cannot install on Alpine (musl) without a compiler",
    "Deprecation warning spam from the legacy client",
    "Add a `--json` output mode to the `status` command",
]
WORDS = (
    "the request fails when retry budget is exhausted and the server closes the connection before "
    "headers arrive; we see it on staging with proxy enabled, after the cache warms, under load, "
    "only for large payloads, with TLS resumption, when the token expires mid-stream"
).split()
PEOPLE = [
    "octocat",
    "mona-lisa",
    "dependabot[bot]",
    "k8s-ci-robot",
    "renovate[bot]",
    "jdoe42",
    "a-kowalska",
    "zhang-wei",
    "yuki-tanaka",
    "o.ozturk",
    "lnguyen",
    "mfernandez",
    "github-actions[bot]",
]
CITIES = [
    ("San Francisco", -122.41941550000001, 37.77492950000000),
    ("São Paulo", -46.63330940000000, -23.55051990000000),
    ("Zürich", 8.54169400000000, 47.37688660000000),
    ("İstanbul", 28.97835890000000, 41.00823760000000),
    ("Hà Nội", 105.83415980000000, 21.02776440000000),
    ("Kraków", 19.94497990000000, 50.06465010000000),
    ("東京", 139.69170640000000, 35.68948750000000),
    ("Reykjavík", -21.89541430000000, 64.13548070000000),
]


def hexs(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def b62(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(B62) for _ in range(n))


def uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def epoch(rng: random.Random) -> int:
    return EPOCH0 + rng.randrange(80_000_000)


def iso(t: float, ms: bool = False, z: bool = True) -> str:
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    s = d.isoformat(timespec="milliseconds" if ms else "seconds")
    return s.replace("+00:00", "Z") if z else s


def sentence(rng: random.Random, lo: int = 6, hi: int = 18) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(lo, hi))]
    return " ".join(words).capitalize() + rng.choice([".", ".", "?", "!"])


def paragraph(rng: random.Random, n: int) -> str:
    return " ".join(sentence(rng) for _ in range(n))
