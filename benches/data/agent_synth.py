"""Generated non-JSON documents of the agent corpus (``agent_corpus.py``), seeded.

Logs (syslog, web access logs, Python ``logging``, JSON lines), stack traces (Python tracebacks
that quote real standard-library source lines, Java, Node and Rust panics), unified diffs of
real standard-library files with random edits (``difflib``), CSV and Markdown tables, shell
sessions (``ls -l``, ``git log``, ``grep -rn`` on real files, ``pip install``, ``pytest``,
``docker ps``, ``xxd`` of gzip files and compiled modules), emoji chat (emoji, skin tones, ZWJ
sequences and flags from ``unicodedata``)
and mixed text: Chinese, Japanese and Korean messages from gettext catalogs with command lines,
flags and paths between them.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import json
import random
import sysconfig
import unicodedata
import uuid
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

from agent_json import _iso, _names, _paths, _ts
from agent_text import catalog, english_messages, length

Doc = tuple[str, str]
STDLIB = Path(sysconfig.get_paths()["stdlib"])
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _fill(rng: random.Random, line: Callable[[], str]) -> str:
    out, target = [], length(rng)
    while sum(map(len, out)) < target:
        out.append(line())
    return "\n".join(out)


def _msg(rng: random.Random) -> str:
    msgs = english_messages()
    return rng.choice(msgs[rng.choice(sorted(msgs))]).split("\n")[0]


def _ip(rng: random.Random) -> str:
    return ".".join(str(rng.randint(1, 254)) for _ in range(4))


HOSTS = ("web-1", "db-2", "worker-7")
DAEMONS = ("sshd", "kernel", "systemd", "cron")
URL_PARTS = ("api", "v1", "users", "items", "static", "img")
LOGGERS = ("app.db", "urllib3.connectionpool", "celery.worker")
JAVA_METHODS = ("invoke", "run", "lambda$submit$0", "handle")
NODE_FRAMES = ("Object.<anonymous>", "processTicksAndRejections", "Module._compile", "async Promise.all")
NODE_FILES = ("cli.js", "npm.js", "commands/install.js")
RUST_FRAMES = ("core::panicking::panic_fmt", "std::rt::lang_start", "tokio::runtime::task::raw::poll")


def logs(rng: random.Random) -> Iterator[Doc]:
    while True:
        kind = rng.choice(("syslog", "access", "python", "jsonl"))
        if kind == "syslog":

            def line() -> str:
                return (
                    f"{_iso(rng)[:19]} {rng.choice(HOSTS)} {rng.choice(DAEMONS)}[{rng.randint(1, 65535)}]: {_msg(rng)}"
                )

        elif kind == "access":

            def line() -> str:
                return (
                    f'{_ip(rng)} - - [{_iso(rng)}] "{rng.choice(("GET", "POST", "PUT"))} '
                    f'/{"/".join(rng.sample(URL_PARTS, 3))}?id={rng.randint(1, 10**6)} HTTP/1.1" '
                    f"{rng.choice((200, 200, 304, 404, 500))} {rng.randint(0, 10**6)} "
                    f'"-" "Mozilla/5.0 (X11; Linux x86_64)" {rng.random():.3f}'
                )

        elif kind == "python":

            def line() -> str:
                return (
                    f"{_iso(rng)[:23].replace('T', ' ')} {rng.choice(LEVELS):<8} [{rng.choice(LOGGERS)}] {_msg(rng)} "
                    f"(request_id={uuid.UUID(int=rng.getrandbits(128))})"
                )

        else:

            def line() -> str:
                return json.dumps(
                    {
                        "ts": _ts(rng) + rng.random(),
                        "level": rng.choice(LEVELS).lower(),
                        "msg": _msg(rng),
                        "latency_ms": round(rng.uniform(0, 3000), 3),
                        "trace_id": f"{rng.getrandbits(128):032x}",
                    }
                )

        yield kind, _fill(rng, line)


@cache
def _py_sources() -> tuple[Path, ...]:
    return tuple(sorted(STDLIB.glob("*.py")))


def tracebacks(rng: random.Random) -> Iterator[Doc]:
    errors = (
        "KeyError: 'user_id'",
        "ValueError: invalid literal for int() with base 10: 'abc'",
        "TypeError: 'NoneType' object is not subscriptable",
        "ConnectionResetError: [Errno 104] Connection reset by peer",
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    )
    while True:
        kind = rng.choice(("python", "java", "node", "rust"))
        frames = []
        for _ in range(rng.randint(2, max(3, length(rng) // 120))):
            if kind == "python":
                path = rng.choice(_py_sources())
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines() or ["pass"]
                n = rng.randrange(len(lines))
                frames.append(
                    f'  File "{path}", line {n + 1}, in '
                    f"{rng.choice(('<module>', 'run', '_call', 'handle', '__init__'))}\n    "
                    f"{lines[n].strip()}"
                )
            elif kind == "java":
                pkg = ".".join(rng.sample(("com", "org", "acme", "service", "core", "http", "impl", "util"), 4))
                cls = rng.choice(("RequestHandler", "ConnectionPool", "AbstractBean", "Dispatcher"))
                frames.append(f"\tat {pkg}.{cls}.{rng.choice(JAVA_METHODS)}({cls}.java:{rng.randint(10, 2000)})")
            elif kind == "node":
                frames.append(
                    f"    at "
                    f"{rng.choice(NODE_FRAMES)} "
                    f"(/usr/lib/node_modules/npm/lib/{rng.choice(NODE_FILES)}:"
                    f"{rng.randint(1, 500)}:{rng.randint(1, 80)})"
                )
            else:
                frames.append(
                    f"  {len(frames)}: "
                    f"{rng.choice(RUST_FRAMES)}\n "
                    f"            at "
                    f"/rustc/{rng.getrandbits(160):040x}/library/core/src/panicking.rs:"
                    f"{rng.randint(50, 700)}:{rng.randint(1, 40)}"
                )
        if kind == "python":
            text = "Traceback (most recent call last):\n" + "\n".join(frames) + "\n" + rng.choice(errors)
        elif kind == "java":
            text = f'Exception in thread "main" java.lang.IllegalStateException: {_msg(rng)}\n' + "\n".join(frames)
        elif kind == "node":
            text = (
                f"TypeError: Cannot read properties of undefined (reading '{rng.choice(('map', 'length', 'id'))}')\n"
                + "\n".join(frames)
            )
        else:
            text = (
                f"thread 'main' panicked at "
                f"src/main.rs:{rng.randint(1, 400)}:{rng.randint(1, 60)}:\n{_msg(rng)}\nstack "
                f"backtrace:\n" + "\n".join(frames)
            )
        yield kind, text


def diffs(rng: random.Random) -> Iterator[Doc]:
    while True:
        path = rng.choice(_py_sources())
        old = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        if len(old) < 30:
            continue
        start = rng.randrange(len(old) - 20)
        chunk = old[start : start + max(20, length(rng) // 25)]
        new = list(chunk)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(new))
            op = rng.random()
            if op < 0.4:
                new[i] = new[i].replace("self", "this").replace("(", "( ", 1)
            elif op < 0.7:
                new.insert(i, "    # TODO: " + _msg(rng) + "\n")
            else:
                del new[i]
        rel = path.relative_to(STDLIB.parent)
        head = f"diff --git a/{rel} b/{rel}\nindex {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644\n"
        yield f"diff:{path.stem}", head + "".join(difflib.unified_diff(chunk, new, f"a/{rel}", f"b/{rel}", n=3))


def _table(rng: random.Random) -> tuple[list[str], list[list[object]]]:
    kind = rng.choice(("sales", "users", "sensor", "files"))
    n = max(2, length(rng) // 50)
    if kind == "sales":
        head = ["date", "region", "product", "units", "revenue_usd", "margin"]
        rows = [
            [
                _iso(rng)[:10],
                rng.choice(("EMEA", "APAC", "NA", "LATAM")),
                rng.choice(_names()),
                rng.randint(1, 9999),
                round(rng.uniform(10, 10**6), 2),
                f"{rng.uniform(-5, 60):.1f}%",
            ]
            for _ in range(n)
        ]
    elif kind == "users":
        head = ["id", "name", "email", "created", "active"]
        rows = [
            [
                rng.randint(1, 10**7),
                rng.choice(_names()),
                f"user{rng.randint(1, 99999)}@example.com",
                _iso(rng),
                rng.choice(("true", "false")),
            ]
            for _ in range(n)
        ]
    elif kind == "sensor":
        head = ["timestamp", "sensor_id", "temp_c", "humidity", "pressure_hpa"]
        rows = [
            [
                _ts(rng),
                f"S-{rng.randint(1, 999):03d}",
                round(rng.uniform(-30, 45), 2),
                round(rng.uniform(0, 1), 4),
                round(rng.uniform(950, 1050), 1),
            ]
            for _ in range(n)
        ]
    else:
        head = ["path", "bytes", "sha1"]
        i = rng.randrange(len(_paths()))
        rows = [[p, rng.randint(0, 10**8), hashlib.sha1(p.encode()).hexdigest()] for p in _paths()[i : i + n]]
    return head, rows


def csv_tables(rng: random.Random) -> Iterator[Doc]:
    while True:
        head, rows = _table(rng)
        buf = io.StringIO()
        w = csv.writer(buf, delimiter=rng.choice((",", ",", ";", "\t")), lineterminator="\n")
        w.writerow(head)
        w.writerows(rows)
        yield f"csv:{head[0]}", buf.getvalue()


def markdown_tables(rng: random.Random) -> Iterator[Doc]:
    while True:
        head, rows = _table(rng)
        lines = [
            "| " + " | ".join(head) + " |",
            "|" + "|".join(rng.choice((" --- ", "---", " ---: ")) for _ in head) + "|",
        ]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
        intro = _msg(rng) + "\n\n" if rng.random() < 0.5 else ""
        yield f"md:{head[0]}", intro + "\n".join(lines)


def shell(rng: random.Random) -> Iterator[Doc]:
    while True:
        kind = rng.choice(("ls", "git_log", "grep", "pip", "pytest", "docker", "xxd"))
        paths = _paths()
        i = rng.randrange(len(paths))
        n = max(2, length(rng) // 70)
        if kind == "ls":
            out = [f"$ ls -la {Path(paths[i]).parent}", f"total {rng.randint(8, 9999)}"]
            out += [
                f"{rng.choice(('-rw-r--r--', 'drwxr-xr-x', '-rwxr-xr-x'))} 1 root root "
                f"{rng.randint(0, 10**6):>8} {rng.choice(('Jan', 'Mar', 'Oct'))} "
                f"{rng.randint(1, 28):>2} 12:{rng.randint(0, 59):02d} {Path(p).name}"
                for p in paths[i : i + n]
            ]
        elif kind == "git_log":
            out = ["$ git log --oneline -n 20"] + [f"{rng.getrandbits(28):07x} {_msg(rng)}" for _ in range(n)]
        elif kind == "grep":
            path = rng.choice(_py_sources())
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            word = rng.choice(("def ", "import ", "return", "self.", "raise "))
            hits = [f"{path}:{k + 1}:{line}" for k, line in enumerate(lines) if word in line][:n]
            out = [f"$ grep -rn '{word.strip()}' {path.parent}", *hits]
        elif kind == "pip":
            pkgs = rng.sample(
                ("numpy", "requests", "urllib3", "idna", "certifi", "charset-normalizer", "pydantic", "httpx"), 3
            )
            out = [f"$ pip install {' '.join(pkgs)}"] + [
                f"Collecting {p}\n  Downloading "
                f"{p}-{rng.randint(0, 3)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}-py3-none-any.whl "
                f"({rng.uniform(10, 999):.1f} kB)\n     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ "
                f"{rng.uniform(10, 999):.1f}/{rng.uniform(10, 999):.1f} kB {rng.uniform(1, 30):.1f} "
                f"MB/s eta 0:00:00"
                for p in pkgs
            ]
            out.append(f"Successfully installed {' '.join(pkgs)}")
        elif kind == "pytest":
            out = ["$ python -m pytest -q tests/"] + [
                f"tests/test_{Path(p).stem}.py::test_{rng.choice(('parse', 'roundtrip', 'errors'))} "
                f"{rng.choice(('PASSED', 'PASSED', 'FAILED', 'SKIPPED'))} [{min(100, 5 * k)}%]"
                for k, p in enumerate(paths[i : i + n])
            ]
            out.append(
                f"===== {rng.randint(1, 999)} passed, {rng.randint(0, 9)} failed in {rng.uniform(0.1, 99):.2f}s ====="
            )
        elif kind == "xxd":
            path = rng.choice(_binaries())
            data = path.read_bytes()
            at = rng.randrange(max(1, len(data) - 16 * n)) & ~15
            canonical = rng.random() < 0.5  # hexdump -C: one byte a group; xxd: two
            out = [f"$ hexdump -C -s {at} -n {16 * n} {path}" if canonical else f"$ xxd -s {at} -l {16 * n} {path}"]
            for k in range(at, min(len(data), at + 16 * n), 16):
                chunk = data[k : k + 16]
                text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
                if canonical:
                    out.append(f"{k:08x}  {chunk[:8].hex(' ')}  {chunk[8:].hex(' '):<23}  |{text}|")
                else:
                    pairs = " ".join(chunk[j : j + 2].hex() for j in range(0, len(chunk), 2))
                    out.append(f"{k:08x}: {pairs:<40}  {text}")
        else:
            out = [
                "$ docker ps",
                "CONTAINER ID   IMAGE          COMMAND                  CREATED        STATUS        "
                "PORTS                    NAMES",
            ]
            out += [
                f"{rng.getrandbits(48):012x}   {rng.choice(('redis:7', 'postgres:16', 'nginx:1.27'))}   "
                f'"docker-entrypoint.s…"   {rng.randint(1, 59)} minutes ago   Up {rng.randint(1, 59)} '
                f"minutes   0.0.0.0:{rng.randint(1024, 65535)}->80/tcp   "
                f"{rng.choice(('web', 'db', 'cache'))}_{k}"
                for k in range(n)
            ]
        yield kind, "\n".join(out)


@cache
def _binaries() -> tuple[Path, ...]:
    """Compressed files (gzip, near-random bytes) and compiled modules (structured bytes)."""
    gz = sorted(Path("/usr/share/doc").glob("*/*.gz"))[:300]
    pyc = sorted(STDLIB.glob("__pycache__/*.pyc"))[:300]
    return tuple(gz + pyc)


@cache
def _emoji() -> tuple[str, ...]:
    out = []
    for cp in (
        list(range(0x1F300, 0x1F650))
        + list(range(0x1F680, 0x1F700))
        + list(range(0x1F900, 0x1FAFF))
        + list(range(0x2600, 0x27C0))
    ):
        try:
            unicodedata.name(chr(cp))
        except ValueError:
            continue
        out.append(chr(cp))
    return tuple(out)


def emoji_chat(rng: random.Random) -> Iterator[Doc]:
    tones = [chr(c) for c in range(0x1F3FB, 0x1F400)]
    flags = [
        "".join(chr(0x1F1E6 + ord(c) - 65) for c in cc)
        for cc in ("US", "ES", "JP", "CN", "KR", "DE", "FR", "BR", "IN", "UA")
    ]
    zwj = [
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        "\U0001f3f3\ufe0f\u200d\U0001f308",
        "\U0001f469\u200d\U0001f4bb",
        "\u2764\ufe0f\u200d\U0001f525",
    ]
    while True:
        lang = rng.choice(("en", "es", "ja", "ru", "ar", "emoji_only"))
        pool = (
            english_messages()
            if lang == "en"
            else catalog({"ja": "ja", "es": "es", "ru": "ru", "ar": "ar"}.get(lang, "es"))
        )

        def line(lang: str = lang, pool: dict[str, list[str]] = pool) -> str:
            e = "".join(
                rng.choice(_emoji()) + (rng.choice(tones) if rng.random() < 0.2 else "")
                for _ in range(rng.randint(1, 4))
            )
            e += rng.choice(flags) if rng.random() < 0.15 else rng.choice(zwj) if rng.random() < 0.1 else ""
            who = rng.choice(("alice", "bob", "Ana", "ユキ", "Дима"))
            if lang == "emoji_only":
                return f"{who}: {e * rng.randint(1, 3)}"
            msgs = pool[rng.choice(sorted(pool))]
            return f"{who}: {rng.choice(msgs).splitlines()[0]} {e}"

        yield f"chat_{lang}", _fill(rng, line)


COMMANDS = (
    "git rebase -i HEAD~3",
    "kubectl get pods -n prod -o wide",
    "pip install -U --no-deps ctxsieve==0.4.1",
    "docker run --rm -it -v $(pwd):/src python:3.12 bash",
    "cargo build --release --features native",
    "ls -la ~/.config/",
    "grep -rn --include='*.py' 'TODO' src/",
    "curl -sS -X POST https://api.example.com/v1/chat -H 'Content-Type: application/json'",
    "python -m pytest -q -k 'not slow' --maxfail=1",
    "ssh -p 2222 deploy@10.0.3.17",
    "npm ci --omit=dev",
    "tar -xzf backup-2025-03-01.tar.gz -C /var/lib/",
)


def mixed_cli(rng: random.Random) -> Iterator[Doc]:
    while True:
        lang = rng.choice(("zh_CN", "zh_TW", "ja", "ko"))
        cat = catalog(lang)
        dom = rng.choice(sorted(cat))
        msgs = cat[dom]

        def line(msgs: list[str] = msgs) -> str:
            m = rng.choice(msgs).splitlines()[0]
            r = rng.random()
            if r < 0.4:
                return f"{m}：`{rng.choice(COMMANDS)}`"
            if r < 0.6:
                return f"{m} {rng.choice(('--force', '-v', '--dry-run', '--help', '-n 5'))} {rng.choice(_paths())}"
            return m

        yield f"{lang}:{dom}", _fill(rng, line)
