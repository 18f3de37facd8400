"""Documents: Markdown pages with tables and code, the AWS CLI's reStructuredText example
pages, e-mail messages from CPython's tests, licence texts from installed distributions,
Python sources of site-packages, and code and formulas printed by SymPy's code generators
(C, Fortran, Rust, Julia, Octave, LaTeX)."""

# ruff: noqa: E501  (templates of tool output and sentences: one line of source is one line of output)

from __future__ import annotations

import functools
import random

from .common import chunk, fill
from .sources import aws_examples, email_messages, english_sentences, licence_texts, python_chunk


def gen_markdown(rng: random.Random, target: int) -> tuple[str, str]:
    """A README or design page: headings, prose, an options table, fenced code."""

    def section(rng: random.Random) -> str:
        sents = english_sentences()
        head = "#" * rng.randint(1, 3) + " " + rng.choice(sents)[:40].rstrip(" ,.")
        rows = "\n".join(
            f"| `--{rng.choice(['max-items', 'region', 'output', 'page-size', 'profile', 'no-paginate'])}` | {rng.choice(['int', 'string', 'bool'])} | `{rng.randint(0, 1000)}` | {rng.choice(sents)[:80]} |"
            for _ in range(rng.randint(2, 8))
        )
        _, text = aws_examples()[rng.randrange(len(aws_examples()))]
        code = chunk(rng, text, rng.randint(100, 600))
        lang = rng.choice(["bash", "json", "text", "python"])
        return f"{head}\n\n{' '.join(rng.choice(sents) for _ in range(rng.randint(1, 4)))}\n\n| Option | Type | Default | Description |\n| --- | --- | ---: | --- |\n{rows}\n\n```{lang}\n{code}\n```\n\n> **Note** {rng.choice(sents)}"

    return "markdown", fill(rng, target, section, sep="\n\n")


def gen_rst_pages(rng: random.Random, target: int) -> tuple[str, str]:
    pages = aws_examples()
    label, text = pages[rng.randrange(len(pages))]
    while len(text.encode()) < target:
        text += "\n\n" + pages[rng.randrange(len(pages))][1]
    return label, text


def gen_email(rng: random.Random, target: int) -> tuple[str, str]:
    msgs = email_messages()
    label, text = msgs[rng.randrange(len(msgs))]
    return label, fill(rng, target, lambda r: r.choice(msgs)[1], sep="\n\n") if len(text) < target // 2 else text


def gen_licence(rng: random.Random, target: int) -> tuple[str, str]:
    texts = licence_texts()
    label, text = texts[rng.randrange(len(texts))]
    return f"licence:{label}", chunk(rng, text, target)


def gen_python_code(rng: random.Random, target: int) -> tuple[str, str]:
    return python_chunk(rng, target)


@functools.lru_cache(maxsize=1)
def _sympy_exprs() -> list[object]:
    import sympy as sp

    x, y, z, t, a, b = sp.symbols("x y z t alpha beta")
    return [
        sp.sin(x) ** 2 / (1 + sp.exp(-a * t)),
        sp.sqrt(x**2 + y**2 + z**2) * sp.log(1 + b / x),
        sp.Piecewise((x**3 - 2 * x, x < 0), (sp.cos(y) * sp.exp(x), True)),
        sp.integrate(sp.exp(-(x**2)) * x**3, x),
        sp.series(sp.tan(x), x, 0, 8).removeO(),
        sp.Matrix([[sp.cos(t), -sp.sin(t)], [sp.sin(t), sp.cos(t)]]) * sp.Matrix([x, y]),
        sp.diff(sp.atan2(y, x) * sp.besselj(2, a * x), x, 2),
        sp.Sum(1 / (sp.Symbol("n") ** 2 + a), (sp.Symbol("n"), 1, sp.oo)),
        sp.expand((x + 2 * y - 3 * z) ** 5),
    ]


def gen_sympy_codegen(rng: random.Random, target: int) -> tuple[str, str]:
    import sympy as sp

    printers = {
        "c": sp.ccode,
        "fortran": lambda e: sp.fcode(e, source_format="free", standard=95),
        "rust": sp.rust_code,
        "julia": sp.julia_code,
        "octave": sp.octave_code,
        "latex": sp.latex,
        "python": sp.pycode,
    }
    lang = rng.choice(sorted(printers))
    exprs = _sympy_exprs()

    def piece(rng: random.Random) -> str:
        e = exprs[rng.randrange(len(exprs))]
        try:
            return printers[lang](e)
        except Exception:  # some printers refuse some expressions (Sum, Matrix): print another form
            return sp.latex(e)

    return f"sympy:{lang}", fill(rng, target, piece, sep="\n\n")
