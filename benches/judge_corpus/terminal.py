"""A second batch of categories, written after the first report showed ``tree`` listings and
``od`` dumps under-counted: more terminal output with box drawing and block characters (rich
tables, pip and tqdm progress bars, dependency trees), lockfiles with integrity hashes, web
access logs with IPv6 and user agents, Windows and PowerShell output, mojibake, LaTeX
documents, Markdown pages in Chinese and Japanese, notes full of mathematical symbols, and
romanized chat (Hinglish, Arabizi)."""

# ruff: noqa: E501  (templates of tool output: one line of source is one line of output)

from __future__ import annotations

import base64
import io
import random

from .common import fill, hexid, iso_time
from .phrases import NAMES, TICKETS
from .sources import english_sentences, py_files


def gen_rich_tables(rng: random.Random, target: int) -> tuple[str, str]:
    """Tables as CLI tools print them with ``rich`` (heavy, rounded and ASCII boxes)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    name = rng.choice(["HEAVY_HEAD", "ROUNDED", "SQUARE", "DOUBLE_EDGE", "MINIMAL", "ASCII"])
    style = getattr(box, name)
    table = Table(title=rng.choice(["Deployments", "Pods", "Benchmarks", "Invoices"]), box=style)
    for col in ["name", "status", "cpu", "memory", "age"]:
        table.add_column(col, justify="right" if col in ("cpu", "memory") else "left")
    size = 0
    while size < target:
        row = [
            f"{rng.choice(['api', 'worker', 'web', 'cron'])}-{hexid(rng, 5)}",
            rng.choice(["✔ Running", "✖ CrashLoop", "… Pending", "Running"]),
            f"{rng.randint(1, 4000)}m",
            f"{rng.randint(16, 8192)}Mi",
            f"{rng.randint(1, 99)}{rng.choice('smhd')}",
        ]
        table.add_row(*row)
        size += 100
    out = io.StringIO()
    Console(file=out, width=rng.choice([80, 100, 120]), color_system=None, legacy_windows=False).print(table)
    return f"rich:{name}", out.getvalue()


def gen_progress_bars(rng: random.Random, target: int) -> tuple[str, str]:
    def line(rng: random.Random) -> str:
        kind = rng.randrange(3)
        total = rng.uniform(0.1, 900)
        done = total * rng.random()
        if kind == 0:
            bar = "━" * rng.randint(0, 40)
            return f"Downloading {rng.choice(['numpy', 'torch', 'pandas', 'scipy'])}-{rng.randint(1, 2)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}-cp311-cp311-manylinux_2_17_x86_64.whl ({total:.1f} MB)\n   {bar:<40} {done:.1f}/{total:.1f} MB {rng.uniform(1, 90):.1f} MB/s eta 0:00:{rng.randint(0, 59):02d}"
        if kind == 1:
            n = rng.randint(0, 30)
            frac = rng.choice(["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"])
            return f"{rng.choice(['Epoch 3/10', 'train', 'eval', 'Processing'])}: {rng.randint(0, 100):>3}%|{'█' * n}{frac}{' ' * (30 - n)}| {rng.randint(0, 9999)}/{rng.randint(9999, 99999)} [{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}<{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}, {rng.uniform(1, 500):.2f}it/s, loss={rng.random():.4f}]"
        return (
            f"#{rng.randint(1, 30)} [{rng.randint(1, 9)}/{rng.randint(9, 20)}] RUN pip install -r requirements.txt\n#{rng.randint(1, 30)} {rng.uniform(0, 90):.3f} "
            + rng.choice(["⠋", "⠙", "⠹", "⠸", "⠼", "⠴"])
            + f" Resolving dependencies… {rng.randint(0, 100)}%"
        )

    return "progress", fill(rng, target, line)


def gen_dep_trees(rng: random.Random, target: int) -> tuple[str, str]:
    """``cargo tree``, ``npm ls`` and ``pipdeptree`` output: box drawing and version ranges."""
    names = [
        "serde",
        "tokio",
        "regex",
        "rand",
        "clap",
        "express",
        "react",
        "lodash",
        "requests",
        "urllib3",
        "pydantic",
        "typing-extensions",
        "hyper",
        "axum",
    ]
    style = rng.randrange(3)
    lines = [rng.choice(["myapp v0.3.1 (/home/dev/myapp)", "myapp@1.4.0 /srv/myapp", "myapp==2.0.0"])]

    def walk(depth: int, prefix: str) -> None:
        n = rng.randint(1, 4) if depth < 4 else 0
        for i in range(n):
            if sum(len(x) for x in lines) > target:
                return
            last = i == n - 1
            ver = f"{rng.randint(0, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 20)}"
            name = rng.choice(names)
            label = {
                0: f"{name} v{ver}" + rng.choice(["", " (*)", " (proc-macro)"]),
                1: f"{name}@{ver}" + rng.choice(["", " deduped", " invalid"]),
                2: f"{name} [required: >={ver}, installed: {ver}]",
            }[style]
            lines.append(prefix + ("└── " if last else "├── ") + label)
            walk(depth + 1, prefix + ("    " if last else "│   "))

    while sum(len(x) for x in lines) < target:
        walk(0, "")
    return f"deptree:{style}", "\n".join(lines)


def gen_lockfiles(rng: random.Random, target: int) -> tuple[str, str]:
    def entry(rng: random.Random) -> str:
        name = rng.choice(["@babel/core", "@types/node", "lodash", "react-dom", "esbuild", "postcss", "tslib"])
        ver = f"{rng.randint(0, 20)}.{rng.randint(0, 40)}.{rng.randint(0, 20)}"
        integrity = base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode()
        if rng.random() < 0.5:
            return f'    "node_modules/{name}": {{\n      "version": "{ver}",\n      "resolved": "https://registry.npmjs.org/{name}/-/{name.split("/")[-1]}-{ver}.tgz",\n      "integrity": "sha512-{integrity}",\n      "dev": true\n    }},'
        return f'[[package]]\nname = "{name.strip("@").replace("/", "-")}"\nversion = "{ver}"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{hexid(rng, 64)}"\ndependencies = [\n "{rng.choice(["libc", "cfg-if", "memchr"])}",\n]'

    return "lockfile", fill(rng, target, entry)


AGENTS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
    "curl/8.5.0",
    "python-httpx/0.27.0",
    "Googlebot/2.1 (+http://www.google.com/bot.html)",
]


def gen_access_logs(rng: random.Random, target: int) -> tuple[str, str]:
    def ip(rng: random.Random) -> str:
        if rng.random() < 0.4:
            return ":".join(hexid(rng, rng.randint(1, 4)) for _ in range(rng.choice([4, 8]))).replace(":0:0:", "::", 1)
        return ".".join(str(rng.randint(1, 254)) for _ in range(4))

    def line(rng: random.Random) -> str:
        path = rng.choice(
            [
                "/api/v2/orders",
                "/static/js/main.3f2a1c.js",
                "/login",
                "/search?q=caf%C3%A9&page=2",
                "/.env",
                "/wp-login.php",
            ]
        )
        return f'{ip(rng)} - - [{rng.randint(1, 28):02d}/{rng.choice(["Jan", "Jun", "Nov"])}/2025:{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} +0000] "{rng.choice(["GET", "POST", "HEAD"])} {path} HTTP/{rng.choice(["1.1", "2.0"])}" {rng.choice([200, 204, 301, 404, 499, 502])} {rng.randint(0, 99999)} "-" "{rng.choice(AGENTS)}" rt={rng.random():.3f} uct="{rng.random():.3f}"'

    return "access-log", fill(rng, target, line)


def gen_windows(rng: random.Random, target: int) -> tuple[str, str]:
    def block(rng: random.Random) -> str:
        kind = rng.randrange(3)
        if kind == 0:
            rows = "\n".join(
                f"{rng.choice(['-a----', 'd-----', '-ar---'])}        {rng.randint(1, 12):>2}/{rng.randint(1, 28):02d}/2025   {rng.randint(1, 12):>2}:{rng.randint(0, 59):02d} {rng.choice(['AM', 'PM'])}        {rng.randint(0, 10**8):>10} {rng.choice(['setup.exe', 'Отчёт.docx', 'config.json', 'データ.xlsx', 'README.md'])}"
                for _ in range(rng.randint(3, 15))
            )
            return f"    Directory: C:\\Users\\{rng.choice(['admin', 'José', '田中'])}\\Documents\\Projects\n\nMode                 LastWriteTime         Length Name\n----                 -------------         ------ ----\n{rows}"
        if kind == 1:
            return f"HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\{{{hexid(rng, 8).upper()}-{hexid(rng, 4).upper()}-{hexid(rng, 4).upper()}-{hexid(rng, 4).upper()}-{hexid(rng, 12).upper()}}}\n    DisplayName    REG_SZ    {rng.choice(['Microsoft Visual C++ 2022 X64 Minimum Runtime - 14.40.33810', 'Python 3.12.4 (64-bit)', 'Git'])}\n    EstimatedSize    REG_DWORD    0x{hexid(rng, 5)}"
        return f'Get-Process : Cannot find a process with the name "{rng.choice(["nginx", "node"])}". Verify the process name and call the cmdlet again.\nAt line:1 char:{rng.randint(1, 40)}\n+ Get-Process -Name nginx | Stop-Process -Force\n+ ~~~~~~~~~~~~~~~~~~~~~~~\n    + CategoryInfo          : ObjectNotFound: (nginx:String) [Get-Process], ProcessCommandException\n    + FullyQualifiedErrorId : NoProcessFoundForGivenName,Microsoft.PowerShell.Commands.GetProcessCommand'

    return "windows", fill(rng, target, block, sep="\n\n")


def gen_mojibake(rng: random.Random, target: int) -> tuple[str, str]:
    """UTF-8 text decoded as Windows-1252 or Latin-1 (once or twice), as scraped pages and old
    CSV exports carry it."""

    def line(rng: random.Random) -> str:
        lang = rng.choice(["es", "fr", "de", "pt", "ru", "zh", "ja"])
        s = rng.choice(TICKETS[lang]).split("{")[0]
        for _ in range(rng.choice([1, 1, 2])):
            s = s.encode("utf-8").decode(rng.choice(["cp1252", "latin-1"]), errors="replace")
        return s

    return "mojibake", fill(rng, target, line)


def gen_latex(rng: random.Random, target: int) -> tuple[str, str]:
    def para(rng: random.Random) -> str:
        a, b = rng.randint(2, 9), rng.randint(2, 9)
        eq = (
            rng.choice(
                [
                    r"\begin{equation}\label{eq:@A@} \mathcal{L}(\theta) = -\frac{1}{N}\sum_{i=1}^{N} \log p_\theta\left(y_i \mid x_i\right) + \lambda \lVert \theta \rVert_2^2 \end{equation}",
                    r"\begin{align} \nabla \cdot \mathbf{E} &= \frac{\rho}{\varepsilon_0} \\ \nabla \times \mathbf{B} &= \mu_0 \mathbf{J} + \mu_0\varepsilon_0 \frac{\partial \mathbf{E}}{\partial t} \end{align}",
                    r"$\hat{\beta} = (X^\top X)^{-1} X^\top y$, with $\operatorname{Var}(\hat\beta) = \sigma^2 (X^\top X)^{-1}$ and $p < 10^{-@B@}$",
                    r"\begin{tabular}{@{}lrr@{}}\toprule Model & BLEU & $\Delta$ \\ \midrule Base & @A@.@B@ & -- \\ Ours & @A@.@B@ & \textbf{+1.@B@} \\ \bottomrule\end{tabular}",
                ]
            )
            .replace("@A@", str(a))
            .replace("@B@", str(b))
        )
        return (
            " ".join(rng.choice(english_sentences()) for _ in range(rng.randint(1, 3)))
            + f"~\\cite{{{rng.choice(['vaswani2017', 'he2016deep', 'kingma2014adam'])}}}.\n\n"
            + eq
        )

    return "latex", "\\documentclass{article}\n\\usepackage{amsmath,booktabs}\n\\begin{document}\n" + fill(
        rng, target, para, sep="\n\n"
    ) + "\n\\end{document}"


def gen_cjk_markdown(rng: random.Random, target: int) -> tuple[str, str]:
    """README pages in Chinese and Japanese: headings, tables, code and CJK prose side by side."""
    lang = rng.choice(["zh", "ja"])
    heads = {
        "zh": ["快速开始", "安装", "配置说明", "常见问题", "性能测试"],
        "ja": ["はじめに", "インストール", "設定", "よくある質問", "ベンチマーク"],
    }[lang]

    def section(rng: random.Random) -> str:
        prose = "".join(rng.choice(TICKETS[lang]).split("{")[0] for _ in range(rng.randint(1, 3)))
        rows = "\n".join(
            f"| `{rng.choice(['--port', '--workers', '--log-level', '--timeout'])}` | {rng.choice(['整数', '字符串', '数値', '文字列'])} | `{rng.randint(1, 9000)}` | {rng.choice(TICKETS[lang]).split('{')[0][:30]} |"
            for _ in range(rng.randint(2, 6))
        )
        files = py_files("click")
        code = "\n".join(files[rng.randrange(len(files))].split("site-packages/")[1] for _ in range(3))
        return f"## {rng.choice(heads)}\n\n{prose}\n\n| 参数 | 类型 | 默认值 | 说明 |\n| --- | --- | ---: | --- |\n{rows}\n\n```bash\npip install myapp\nls {code}\n```"

    return f"cjk-markdown:{lang}", fill(rng, target, section, sep="\n\n")


def gen_math_notes(rng: random.Random, target: int) -> tuple[str, str]:
    """Notes an assistant writes with Unicode mathematics instead of LaTeX."""

    def line(rng: random.Random) -> str:
        n = rng.randint(2, 99)
        return rng.choice(
            [
                f"∀ε > 0 ∃δ > 0 : |x − a| < δ ⇒ |f(x) − L| < ε  (n = {n})",
                f"∑ᵢ₌₁ⁿ i² = n(n + 1)(2n + 1)/6, so for n = {n}: {n * (n + 1) * (2 * n + 1) // 6}",
                f"P(A ∩ B) = P(A)·P(B | A) ≈ 0.{rng.randint(100, 999)} ± 0.0{rng.randint(1, 9)}",
                f"‖v‖₂ = √(v₁² + v₂² + … + vₙ²) ≤ √{n}·max|vᵢ|",
                f"∫₀^∞ e^(−x²) dx = √π/2 ≈ 0.886227 → error ≲ 10⁻{rng.randint(3, 12)}",
                f"A ⊆ B ∧ B ⊆ C ⟹ A ⊆ C; |℘(S)| = 2^{n}",
                f"T(n) = 2T(n/2) + Θ(n) ∈ Θ(n log n); for n = 2^{rng.randint(5, 30)} ≈ {rng.uniform(1, 9):.2f}×10^{rng.randint(6, 12)} ops",
                f"ΔG° = ΔH° − TΔS° = −{rng.uniform(1, 99):.1f} kJ·mol⁻¹ at {rng.randint(250, 400)} K (Kₑq ≈ {rng.uniform(1, 9):.1f}×10⁴)",
            ]
        )

    return "math-notes", fill(rng, target, line)


ROMANIZED = [
    "yaar build phir se fail ho gaya, kal tak fix kar dena please",
    "bhai ye PR merge kar do, client wait kar raha hai 🙏",
    "kya scene hai prod ka? logs mein bahut errors aa rahe hain",
    "ana msh fahem leh el server byw2a3 kol shwaya",
    "7abibi el deployment 5ls? 3ayez a3mel test b2a",
    "mashi, ha5alas el report bokra el sob7 in sha2 allah",
    "wkwkwk error lagi, udah gue restart tapi tetep aja",
    "ne zaman deploy ediyoruz? muşteri bekliyor abi",
]


def gen_romanized_chat(rng: random.Random, target: int) -> tuple[str, str]:
    def line(rng: random.Random) -> str:
        return f"{iso_time(rng, frac=False)[11:16]} <{rng.choice(NAMES).split(' ')[0]}> {rng.choice(ROMANIZED)}"

    return "romanized-chat", fill(rng, target, line)
