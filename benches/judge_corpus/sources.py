"""Material read from installed packages: the AWS CLI's example pages (real commands and their
JSON output), English sentences from them, Python sources of site-packages, licence texts,
CPython's e-mail test messages and number test files, certifi's CA bundle."""

from __future__ import annotations

import functools
import random
import re
from importlib import metadata
from pathlib import Path

from .common import SITE, STDLIB, chunk, fill, listing, read


@functools.lru_cache(maxsize=1)
def aws_examples() -> list[tuple[str, str]]:
    """(label, text) of every AWS CLI example page."""
    root = SITE / "awscli" / "examples"
    return [(f"awscli:{p.parent.name}/{p.stem}", read(p)) for p in listing(root, "*.rst")]


def aws_outputs(rng: random.Random) -> tuple[str, str]:
    """A random example page's ``Output::`` block, dedented (what the command printed)."""
    pages = aws_examples()
    while True:
        label, text = pages[rng.randrange(len(pages))]
        blocks = re.findall(r"Output::\n\n((?:    .*\n|\n)+)", text)
        blocks = [b for b in blocks if len(b) > 120]
        if blocks:
            block = rng.choice(blocks)
            return label, "\n".join(line[4:] for line in block.rstrip().splitlines())


@functools.lru_cache(maxsize=1)
def english_sentences() -> list[str]:
    """Sentences of the AWS CLI example pages' prose (lines that are not code or markup)."""
    out: list[str] = []
    for _, text in aws_examples()[::7]:
        for line in text.splitlines():
            if line and not line.startswith((" ", "*", "-", "=", "`", "..")) and len(line) > 40 and "::" not in line:
                out.extend(s.strip() for s in re.split(r"(?<=\.) ", line) if len(s) > 30)
    return out


def prose(rng: random.Random, target: int) -> str:
    sents = english_sentences()
    return fill(rng, target, lambda r: " ".join(r.choice(sents) for _ in range(r.randint(2, 5))), sep="\n\n")


PY_PACKAGES = ("requests", "click", "jinja2", "werkzeug", "rich", "httpx", "yaml", "pydantic", "networkx", "attr")


@functools.cache
def py_files(package: str) -> list[str]:
    return [str(p) for p in listing(SITE / package, "*.py")]


def python_chunk(rng: random.Random, target: int) -> tuple[str, str]:
    package = rng.choice(PY_PACKAGES)
    files = py_files(package)
    path = files[rng.randrange(len(files))]
    rel = path.split("site-packages/")[1]
    return f"py:{package}", f"# {rel}\n" + chunk(rng, read(Path(path)), target)


LICENCE_DISTS = (
    "awscli",
    "botocore",
    "certifi",
    "matplotlib",
    "pygments",
    "sympy",
    "requests",
    "click",
    "jinja2",
    "werkzeug",
    "rich",
    "httpx",
    "pydantic",
    "networkx",
    "attrs",
)


@functools.lru_cache(maxsize=1)
def licence_texts() -> list[tuple[str, str]]:
    """The licence files of the distributions in ``LICENCE_DISTS`` (a fixed list: the set of
    installed distributions changes whenever anyone installs one)."""
    out = []
    for dist in LICENCE_DISTS:
        for f in metadata.files(dist) or []:
            name = f.name.upper()
            if ".dist-info" in str(f) and (name.startswith(("LICENSE", "LICENCE", "COPYING", "AUTHORS"))):
                p = Path(str(f.locate()))
                if p.is_file() and p.stat().st_size > 500:
                    out.append((dist, read(p)))
    return sorted(out)


@functools.lru_cache(maxsize=1)
def email_messages() -> list[tuple[str, str]]:
    return [
        (f"cpython-test:email/{p.name}", read(p)) for p in listing(STDLIB / "test" / "test_email" / "data", "msg_*.txt")
    ]


NUMBER_FILES = (
    "math_testcases.txt",
    "cmath_testcases.txt",
    "floating_points.txt",
    "formatfloat_testcases.txt",
    "ieee754.txt",
)


def number_test_chunk(rng: random.Random, target: int) -> tuple[str, str]:
    name = rng.choice(NUMBER_FILES)
    text = "\n".join(line for line in read(STDLIB / "test" / name).splitlines() if line and not line.startswith("--"))
    return f"cpython-test:{name}", chunk(rng, text, target)


def decimal_test_chunk(rng: random.Random, target: int) -> tuple[str, str]:
    files = listing(STDLIB / "test" / "decimaltestdata", "*.decTest")
    p = files[rng.randrange(len(files))]
    text = "\n".join(line for line in read(p).splitlines() if line and not line.startswith("--"))
    return f"cpython-test:decimal/{p.stem}", chunk(rng, text, target)


def certificates(rng: random.Random, target: int) -> tuple[str, str]:
    import certifi

    pem = read(Path(certifi.where()))
    blocks = re.findall(r"# Issuer:.*?-----END CERTIFICATE-----", pem, flags=re.S)
    return "certifi:cacert.pem", fill(rng, target, lambda r: r.choice(blocks), sep="\n\n")
