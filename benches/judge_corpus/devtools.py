"""What developer tools print into an agent's context: directory listings (``ls -la``,
``tree`` with box-drawing characters), ``git log``, unified diffs of site-packages files,
pytest runs, compiler and type-checker errors, coloured logs with ANSI escapes, and crash
dumps from other runtimes (Go, the JVM, .NET, AddressSanitizer)."""

# ruff: noqa: E501  (templates of tool output and sentences: one line of source is one line of output)

from __future__ import annotations

import difflib
import random
from pathlib import Path

from .common import SITE, fill, hexid, iso_time, read
from .phrases import NAMES
from .sources import PY_PACKAGES, english_sentences, py_files

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _some_files(rng: random.Random, n: int) -> list[Path]:
    files = py_files(rng.choice(PY_PACKAGES))
    return [Path(files[rng.randrange(len(files))]) for _ in range(n)]


def gen_listing(rng: random.Random, target: int) -> tuple[str, str]:
    package = rng.choice(PY_PACKAGES)
    files = [Path(p) for p in py_files(package)]
    style = rng.randrange(3)
    out: list[str] = []
    i = rng.randrange(len(files))
    while sum(len(x) + 1 for x in out) < target:
        p = files[i % len(files)]
        i += 1
        rel = p.relative_to(SITE)
        size = p.stat().st_size
        if style == 0:
            out.append(
                f"-rw-r--r-- 1 {rng.choice(['root', 'runner', 'ubuntu'])} {rng.choice(['root', 'docker', 'staff'])} {size:>8} {rng.choice(MONTHS)} {rng.randint(1, 28):>2} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {rel}"
            )
        elif style == 1:
            depth = len(rel.parts) - 1
            out.append(
                "│   " * (depth - 1)
                + rng.choice(["├── ", "└── "])
                + rel.name
                + (f"  [{size:,} bytes]" if rng.random() < 0.3 else "")
            )
        else:
            out.append(f"{size}\t{iso_time(rng, frac=False)}\t./{rel}")
    head = {
        0: f"$ ls -la {package}/",
        1: f"{package}\n",
        2: f"$ find {package} -name '*.py' -printf '%s\\t%TY-%Tm-%TdT%TT\\t%p\\n'",
    }[style]
    return f"listing:{package}", head + "\n" + "\n".join(out)


def gen_git_log(rng: random.Random, target: int) -> tuple[str, str]:
    def entry(rng: random.Random) -> str:
        who = rng.choice(NAMES)
        files = _some_files(rng, rng.randint(1, 4))
        stat = "\n".join(
            f" {f.relative_to(SITE)} | {rng.randint(1, 120)} {'+' * rng.randint(0, 20)}{'-' * rng.randint(0, 10)}"
            for f in files
        )
        subject = rng.choice(english_sentences())[:72]
        return (
            f"commit {hexid(rng, 40)}\nAuthor: {who} <{hexid(rng, 6)}@users.noreply.github.com>\nDate:   {rng.choice(['Mon', 'Tue', 'Wed', 'Thu', 'Fri'])} {rng.choice(MONTHS)} {rng.randint(1, 28)} "
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} 2025 {rng.choice(['+0100', '-0700', '+0900', '+0530'])}\n\n    {subject}\n\n"
            f"    Signed-off-by: {who}\n\n{stat}\n {len(files)} files changed, {rng.randint(1, 400)} insertions(+), {rng.randint(0, 200)} deletions(-)\n"
        )

    return "git-log", fill(rng, target, entry)


def _edit(rng: random.Random, lines: list[str]) -> list[str]:
    out = list(lines)
    for _ in range(rng.randint(1, 6)):
        if not out:
            break
        i = rng.randrange(len(out))
        op = rng.randrange(3)
        if op == 0:
            del out[i : i + rng.randint(1, 4)]
        elif op == 1:
            out.insert(i, out[i].replace("self", "this").replace("return", "yield") + "  # changed")
        else:
            out[i] = out[i].upper() if rng.random() < 0.2 else out[i] + "  # TODO"
    return out


def gen_git_diff(rng: random.Random, target: int) -> tuple[str, str]:
    parts: list[str] = []
    size = 0
    while size < target:
        (path,) = _some_files(rng, 1)
        rel = str(path.relative_to(SITE))
        old = read(path).splitlines()
        a = rng.randrange(max(1, len(old) - 80))
        old = old[a : a + rng.randint(20, 120)]
        diff = "\n".join(difflib.unified_diff(old, _edit(rng, old), f"a/{rel}", f"b/{rel}", lineterm=""))
        head = f"diff --git a/{rel} b/{rel}\nindex {hexid(rng, 7)}..{hexid(rng, 7)} 100644\n"
        parts.append(head + diff)
        size += len(parts[-1])
    return "git-diff", "\n".join(parts)


def gen_pytest(rng: random.Random, target: int) -> tuple[str, str]:
    names = [f"tests/test_{w}.py" for w in ["api", "models", "cache", "auth", "export", "sync"]]
    head = f"============================= test session starts ==============================\nplatform linux -- Python 3.11.7, pytest-8.3.4, pluggy-1.5.0\nrootdir: /home/runner/work/app\nplugins: hypothesis-6.112.0, asyncio-0.24.0, cov-5.0.0\ncollected {rng.randint(50, 3000)} items\n\n"
    prog = "\n".join(
        f"{n} "
        + "".join(rng.choice("....................FsEx") for _ in range(rng.randint(5, 60)))
        + f" [{rng.randint(1, 100):>3}%]"
        for n in names
    )

    def failure(rng: random.Random) -> str:
        (path,) = _some_files(rng, 1)
        src = [ln for ln in read(path).splitlines() if ln.strip()][: rng.randint(3, 12)]
        test = f"test_{rng.choice(['roundtrip', 'retry', 'unicode', 'limits'])}[{rng.choice(['case0', 'utf-8-中文', 'emoji-🎉', 'big-10**6'])}]"
        body = "\n".join("    " + s for s in src)
        got, want = rng.randint(0, 10**6), rng.randint(0, 10**6)
        return (
            f"_____________________________ {test} _____________________________\n\n{body}\n>       assert result == expected\nE       AssertionError: assert {got} == {want}\nE        +  where {got} = len(result)\n\n"
            f"{path.relative_to(SITE)}:{rng.randint(1, 900)}: AssertionError\n----------------------------- Captured log call ------------------------------\nWARNING  app.sync:sync.py:{rng.randint(1, 400)} retrying in {rng.random():.3f}s"
        )

    fails = fill(rng, target, failure)
    tail = f"=========================== short test summary info ============================\nFAILED tests/test_api.py::test_roundtrip - AssertionError\n======= {rng.randint(1, 9)} failed, {rng.randint(50, 3000)} passed, {rng.randint(0, 20)} skipped in {rng.uniform(1, 300):.2f}s ======="
    return (
        "pytest",
        head
        + prog
        + "\n\n=================================== FAILURES ===================================\n"
        + fails
        + "\n"
        + tail,
    )


def gen_compiler_errors(rng: random.Random, target: int) -> tuple[str, str]:
    def err(rng: random.Random) -> str:
        kind = rng.randrange(4)
        n = rng.randint(1, 2000)
        col = rng.randint(1, 60)
        if kind == 0:
            return (
                f"error[E0{rng.randint(100, 799)}]: mismatched types\n  --> src/{rng.choice(['lib', 'main', 'kernel', 'store'])}.rs:{n}:{col}\n   |\n{n:>3} |     let x: u32 = compute(&buf[..len]);\n"
                f"    |                  ^^^^^^^^^^^^^^^^^^^^^^^ expected `u32`, found `Result<u64, Error>`\n    |\n    = note: expected type `u32`\n               found enum `Result<u64, std::io::Error>`\nhelp: consider using `?`: `compute(&buf[..len])?`"
            )
        if kind == 1:
            return f"src/engine/{hexid(rng, 4)}.cpp:{n}:{col}: error: no matching function for call to 'std::vector<std::pair<int, std::string>>::push_back(const char [6])'\n   {n} |     items.push_back(\"hello\");\n      |     ~~~~~~~~~~~~~~~^~~~~~~~~\nIn file included from /usr/include/c++/12/vector:64:\nnote: candidate: 'void std::vector<_Tp, _Alloc>::push_back(const value_type&) [with _Tp = std::pair<int, std::__cxx11::basic_string<char> >]'"
        if kind == 2:
            return f"src/components/{rng.choice(['Table', 'Modal', 'useFetch'])}.tsx({n},{col}): error TS2345: Argument of type '{{ id: number; name?: string | undefined; }}' is not assignable to parameter of type 'Row'.\n  Property 'name' is optional in type '{{ id: number; name?: string | undefined; }}' but required in type 'Row'."
        return f'python/app/{rng.choice(["models", "views", "tasks"])}.py:{n}: error: Argument 1 to "fetch" has incompatible type "str | None"; expected "str"  [arg-type]\npython/app/tasks.py:{n + 3}: note: Revealed type is "builtins.dict[builtins.str, builtins.list[tuple[builtins.int, builtins.float]]]"'

    return "compiler", fill(rng, target, err, sep="\n\n")


ANSI = [
    "\x1b[0m",
    "\x1b[1m",
    "\x1b[31m",
    "\x1b[32m",
    "\x1b[33m",
    "\x1b[34m",
    "\x1b[2m",
    "\x1b[38;5;208m",
    "\x1b[38;2;255;128;0m",
    "\x1b[1;31m",
]


def gen_ansi_logs(rng: random.Random, target: int) -> tuple[str, str]:
    """Coloured output: log lines with level colours, and source highlighted by pygments'
    terminal formatters (as ``bat``/``rich`` print files)."""
    if rng.random() < 0.4:
        from pygments import highlight
        from pygments.formatters import Terminal256Formatter, TerminalFormatter
        from pygments.lexers import PythonLexer

        (path,) = _some_files(rng, 1)
        lines = read(path).splitlines()
        a = rng.randrange(max(1, len(lines) - 10))
        code, size = [], 0
        for ln in lines[a:]:
            code.append(ln)
            size += len(ln) * 3
            if size > target:
                break
        fmt = Terminal256Formatter(style="monokai") if rng.random() < 0.5 else TerminalFormatter()
        return "ansi:pygments", highlight("\n".join(code), PythonLexer(), fmt)

    def line(rng: random.Random) -> str:
        level, color = rng.choice(
            [("INFO", "\x1b[32m"), ("WARN", "\x1b[33m"), ("ERROR", "\x1b[1;31m"), ("DEBUG", "\x1b[2m")]
        )
        return f"\x1b[2m{iso_time(rng)}\x1b[0m {color}{level:<5}\x1b[0m \x1b[34m{rng.choice(['api', 'worker-3', 'sched'])}\x1b[0m {rng.choice(english_sentences())[:100]} {rng.choice(ANSI)}latency={rng.randint(1, 9000)}ms\x1b[0m"

    return "ansi:log", fill(rng, target, line)


def gen_crash_dumps(rng: random.Random, target: int) -> tuple[str, str]:
    def dump(rng: random.Random) -> str:
        kind = rng.randrange(4)
        addr = lambda: "0x" + hexid(rng, 12)  # noqa: E731
        if kind == 0:
            frames = "\n".join(
                f"main.(*Server).handle{rng.choice(['Conn', 'Req', 'Batch'])}(0xc000{hexid(rng, 6)}, {{0x{hexid(rng, 6)}, 0xc00{hexid(rng, 7)}}})\n\t/go/src/app/server.go:{rng.randint(10, 900)} +0x{hexid(rng, 3)}"
                for _ in range(rng.randint(3, 10))
            )
            return f"panic: runtime error: index out of range [{rng.randint(1, 99)}] with length {rng.randint(0, 9)}\n\ngoroutine {rng.randint(1, 9999)} [running]:\n{frames}"
        if kind == 1:
            frames = "\n".join(
                f"\tat com.example.{rng.choice(['billing', 'orders'])}.{rng.choice(['Service', 'Repo', 'Handler'])}$$Lambda${rng.randint(1, 99)}/0x{hexid(rng, 16)}.apply(Unknown Source)"
                for _ in range(rng.randint(3, 12))
            )
            return f'Exception in thread "pool-3-thread-{rng.randint(1, 64)}" java.util.ConcurrentModificationException\n{frames}\n\t... {rng.randint(3, 90)} more'
        if kind == 2:
            return f"Unhandled exception. System.NullReferenceException: Object reference not set to an instance of an object.\n   at App.Orders.OrderService.<ProcessAsync>d__{rng.randint(1, 40)}.MoveNext() in C:\\src\\App\\Orders\\OrderService.cs:line {rng.randint(10, 900)}\n   at System.Runtime.CompilerServices.TaskAwaiter.ThrowForNonSuccess(Task task)"
        frames = "\n".join(
            f"    #{i} {addr()} in {rng.choice(['memcpy', 'parse_header', 'Buffer::append', 'main'])} /src/{rng.choice(['net', 'io', 'util'])}.c:{rng.randint(1, 999)}:{rng.randint(1, 80)}"
            for i in range(rng.randint(3, 9))
        )
        return f"==={rng.randint(1000, 99999)}==ERROR: AddressSanitizer: heap-buffer-overflow on address {addr()} at pc {addr()} bp {addr()} sp {addr()}\nREAD of size {rng.randint(1, 64)} at {addr()} thread T0\n{frames}"

    return "crash-dumps", fill(rng, target, dump, sep="\n\n")
