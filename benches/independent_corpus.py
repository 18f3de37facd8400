"""A second check corpus for the token estimators, from sources no fit, probe or judge corpus reads.

    python benches/independent_corpus.py OUT.jsonl
    python benches/judge_report.py --corpus OUT.jsonl --categories

Written on 2026-12-02 (issue 16, sixth session) apart from the fit corpus (`benches/data/
agent_corpus.py`), the probe corpus (`benches/data/probe_*.py`) and the judge corpus
(`benches/judge_corpus/`), and after the shipped profiles were fitted, to judge them on text
nobody chose them on. The rule that keeps it worth something: **nothing is fitted, tuned or
chosen on it** — a change is judged on it after the change is made, and a change that moved
because of it is reported as such. The data is made on the machine that runs it (its
installed files), not committed, so it is not in the repository for a fit to pick up.

Categories (each from files the machine image installs; one missing is left out):

* ``man_en``, ``man_latin``, ``man_cyrillic``, ``man_cjk``: troff sources of installed man
  pages, English and translated (``/usr/share/man/<lang>``): prose with ``.TH``/``.B`` macros,
  escapes (``\\fB``, ``\\-``) and option lists.
* ``java``: JDK sources (``lib/src.zip`` of an installed JDK): javadoc and generic code.
* ``mime_xml``: freedesktop's MIME database (``/usr/share/mime/packages``): XML whose
  ``<comment xml:lang=..>`` elements are in ~60 languages side by side.
* ``iso_json``: iso-codes' JSON (``/usr/share/iso-codes/json``), random entries re-serialised
  compact or indented, as a tool would return them.
* ``dpkg_status``: Debian's package database (``/var/lib/dpkg/status``): RFC-822 records with
  long descriptions, version strings and dependency lists.
* ``pem``: CA certificates (``/etc/ssl/certs/*.pem``): base64 in 64-column lines.
* ``syslogs``: dpkg, apt and alternatives logs (``/var/log``).
* ``tab_tables``: tzdata's tables (``zone1970.tab``, ``iso3166.tab``): ISO 6709 coordinates.
* ``records``: the ``RECORD`` files of installed wheels: paths, urlsafe-base64 SHA-256, sizes.
* ``metadata_md``: the ``METADATA`` of installed wheels: headers and Markdown/reST descriptions.
* ``locale_defs``: glibc's locale sources (``/usr/share/i18n/locales``): ``<U0041>`` escapes.
* ``stat_json``: ``os.stat`` of installed files as JSON (inode numbers, nanosecond times,
  modes), lists of 3-40 such objects, as a file tool returns them.
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import random
import sys
import sysconfig
import zipfile
from pathlib import Path

SEED = 20261202
PER_CATEGORY = 40
SITE = Path(sysconfig.get_paths()["purelib"])


def chunks(rng: random.Random, text: str, count: int, lo: int = 300, hi: int = 6000) -> list[str]:
    """``count`` pieces of ``text`` of random length, starting at line starts."""
    if len(text) < lo:
        return [text] if text.strip() else []
    out = []
    for _ in range(count):
        size = rng.randint(lo, min(hi, len(text)))
        at = rng.randint(0, len(text) - size)
        nl = text.rfind("\n", 0, at)
        at = nl + 1 if nl >= 0 else 0
        piece = text[at : at + size]
        if piece.strip():
            out.append(piece)
    return out


def read(path: str) -> str:
    data = Path(path).read_bytes()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace")


def from_files(rng: random.Random, paths: list[str], count: int) -> list[tuple[str, str]]:
    """``count`` chunks, each of a random one of ``paths`` (source: the file's name)."""
    paths = [p for p in paths if os.path.isfile(p)]
    out: list[tuple[str, str]] = []
    tries = 0
    while paths and len(out) < count and tries < count * 20:
        tries += 1
        p = rng.choice(paths)
        try:
            text = read(p)
        except OSError:
            continue
        out += [(c, os.path.basename(p)) for c in chunks(rng, text, 1)]
    return out


def man(rng: random.Random, langs: list[str]) -> list[tuple[str, str]]:
    paths = [p for lang in langs for p in glob.glob(f"/usr/share/man/{lang}/man*/*.gz")]
    return from_files(rng, paths, PER_CATEGORY)


def java(rng: random.Random) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for z in sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip")):
        try:
            arc = zipfile.ZipFile(z)
        except (OSError, zipfile.BadZipFile):
            continue
        names = [n for n in arc.namelist() if n.endswith(".java")]
        for n in rng.sample(names, min(len(names), PER_CATEGORY)):
            text = arc.read(n).decode("utf-8", "replace")
            out += [(c, n) for c in chunks(rng, text, 1)]
        break
    return out[:PER_CATEGORY]


def iso_json(rng: random.Random) -> list[tuple[str, str]]:
    tables = []
    for p in sorted(glob.glob("/usr/share/iso-codes/json/*.json")):
        data = json.loads(Path(p).read_text(encoding="utf-8"))
        tables += [(p, k, v) for k, v in data.items() if isinstance(v, list) and v]
    out: list[tuple[str, str]] = []
    for _ in range(PER_CATEGORY if tables else 0):
        p, key, entries = rng.choice(tables)
        pick = rng.sample(entries, min(len(entries), rng.randint(3, 60)))
        doc = {"query": key, "count": len(pick), "results": pick}
        text = json.dumps(doc, ensure_ascii=rng.random() < 0.3, indent=rng.choice([None, 2]))
        out.append((text, os.path.basename(p)))
    return out


def records(rng: random.Random) -> list[tuple[str, str]]:
    return from_files(rng, sorted(glob.glob(str(SITE / "*.dist-info" / "RECORD"))), PER_CATEGORY)


def metadata(rng: random.Random) -> list[tuple[str, str]]:
    return from_files(rng, sorted(glob.glob(str(SITE / "*.dist-info" / "METADATA"))), PER_CATEGORY)


def stat_json(rng: random.Random) -> list[tuple[str, str]]:
    files = [p for p in glob.glob("/usr/share/**/*", recursive=True)[:200_000] if os.path.isfile(p)]
    out: list[tuple[str, str]] = []
    for _ in range(PER_CATEGORY if files else 0):
        rows = []
        for p in rng.sample(files, rng.randint(3, 40)):
            st = os.stat(p)
            rows.append(
                {
                    "path": p,
                    "mode": oct(st.st_mode),
                    "ino": st.st_ino,
                    "dev": st.st_dev,
                    "nlink": st.st_nlink,
                    "size": st.st_size,
                    "atime_ns": st.st_atime_ns,
                    "mtime": st.st_mtime,
                    "uid": st.st_uid,
                }
            )
        out.append((json.dumps({"files": rows}, indent=rng.choice([None, 1, 2])), "os.stat"))
    return out


def categories(rng: random.Random) -> dict[str, list[tuple[str, str]]]:
    latin = [
        "cs",
        "da",
        "de",
        "es",
        "fi",
        "fr",
        "hr",
        "hu",
        "id",
        "it",
        "nl",
        "pl",
        "pt",
        "pt_BR",
        "ro",
        "sl",
        "sv",
        "tr",
    ]
    return {
        "man_en": man(rng, [""]),
        "man_latin": man(rng, latin),
        "man_cyrillic": man(rng, ["ru", "sr"]),
        "man_cjk": man(rng, ["ja", "ko"]),
        "java": java(rng),
        "mime_xml": from_files(rng, sorted(glob.glob("/usr/share/mime/packages/*.xml")), PER_CATEGORY),
        "iso_json": iso_json(rng),
        "dpkg_status": from_files(rng, ["/var/lib/dpkg/status"], PER_CATEGORY),
        "pem": from_files(rng, sorted(glob.glob("/etc/ssl/certs/*.pem")), PER_CATEGORY),
        "syslogs": from_files(
            rng,
            ["/var/log/dpkg.log", "/var/log/apt/history.log", "/var/log/apt/term.log", "/var/log/alternatives.log"],
            PER_CATEGORY,
        ),
        "tab_tables": from_files(rng, sorted(glob.glob("/usr/share/zoneinfo/*.tab")), PER_CATEGORY),
        "records": records(rng),
        "metadata_md": metadata(rng),
        "locale_defs": from_files(rng, sorted(glob.glob("/usr/share/i18n/locales/*")), PER_CATEGORY),
        "stat_json": stat_json(rng),
    }


def main(out: str) -> None:
    from ctxsieve.tokenizers.packaged import available_families, packaged_tokenizer

    rng = random.Random(SEED)
    docs = []
    for cat, pieces in categories(rng).items():
        for k, (text, source) in enumerate(pieces):
            docs.append({"id": f"{cat}-{k}", "category": cat, "source": source, "text": text})
    texts = [d["text"] for d in docs]
    counts = {family: packaged_tokenizer(family).count(texts) for family in available_families()}
    with open(out, "w", encoding="utf-8") as f:
        for i, d in enumerate(docs):
            d["tokens"] = {family: c[i] for family, c in counts.items()}
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    print(f"{len(docs)} documents, {sum(map(len, texts)) / 1e6:.1f} M characters -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "independent.jsonl")
