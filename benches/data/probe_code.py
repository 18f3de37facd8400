"""Code that is installed on the machine image in languages and styles the other corpora do not
name (probe corpus): Go (git's contrib/persistent-https), Fortran 90 (numpy's f2py test
sources), PHP (the Cloud SDK's App Engine PHP SDK), Vim script (vim's runtime), Makefiles
(dpkg's ``*.mk``), minified JavaScript (rustdoc's static files and mdBook's scripts in the Rust
toolchain docs), LaTeX (docutils' latex2e templates) and regular expressions (every pattern of
pygments' lexers, listed as a grep tool would print them or as a JSON array)."""

from __future__ import annotations

import ast
import json
import random

from probe_common import Sources, chunks

FILES = {
    "code_go": ["usr:share/doc/git/contrib/persistent-https/*.go"],
    "code_fortran": ["site:numpy/f2py/tests/src/**/*.f90"],
    "code_php": ["usr:lib/google-cloud-sdk/platform/google_appengine/php/sdk/google/appengine/api/**/*.php"],
    "code_vim": ["usr:share/vim/vim90/autoload/*.vim", "usr:share/vim/vim90/ftplugin/*.vim"],
    "code_make": ["usr:share/dpkg/*.mk", "usr:share/doc/git/contrib/persistent-https/Makefile"],
    "code_minified_js": ["rustup:static.files/*.js", "rustup:book/*.js"],
    "code_latex": ["site:docutils/writers/latex2e/*.tex", "site:docutils/writers/latex2e/docutils.sty"],
}


def from_files(rng: random.Random, src: Sources, category: str, n: int) -> list[tuple[str, str]]:
    """``n`` pieces of the category's installed files, spread over as many files as there are."""
    names = sorted({name for pattern in FILES[category] for name in src.glob(pattern)})
    rng.shuffle(names)
    out: list[tuple[str, str]] = []
    per = max(1, -(-n // len(names)))
    for name in names:
        text = src.text(name, "utf-8") if not name.endswith(".php") else src.bytes(name).decode("utf-8", "replace")
        if category == "code_minified_js":
            # one line of tens of KB: cut at character offsets, as a tool result would be truncated
            step = rng.randint(1500, 12000)
            pieces = [text[i : i + step] for i in range(0, min(len(text), step * per), step)]
        else:
            pieces = chunks(rng, text, per, 400, 7000)
        out += [(p, f"{category[5:]}:{name.split(':', 1)[1]}") for p in pieces]
        if len(out) >= n:
            break
    return out[:n]


def _lexer_patterns(src: Sources) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for name in src.glob("site:pygments/lexers/*.py"):
        if name.rsplit("/", 1)[1].startswith("_"):
            continue  # builtin word lists, not patterns
        tree = ast.parse(src.text(name))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Tuple)
                and node.elts
                and isinstance(node.elts[0], ast.Constant)
                and isinstance(node.elts[0].value, str)
            ):
                pat = node.elts[0].value
                if len(pat) > 6 and any(ch in pat for ch in "\\[(|*+?"):
                    found.append((name.split("/")[-1], pat))
    return found


def regexes(rng: random.Random, src: Sources, n: int) -> list[tuple[str, str]]:
    pats = _lexer_patterns(src)
    out = []
    for _ in range(n):
        at = rng.randrange(len(pats) - 40)
        sel = pats[at : at + rng.randint(8, 60)]
        if rng.random() < 0.5:
            text = "\n".join(f"pygments/lexers/{f}:{rng.randint(20, 900)}:    (r'{p}', Token)," for f, p in sel)
        else:
            text = json.dumps({"patterns": [p for _, p in sel], "flags": ["MULTILINE", "UNICODE"]}, indent=2)
        out.append((text + "\n", f"regex:{sel[0][0]}"))
    return out
