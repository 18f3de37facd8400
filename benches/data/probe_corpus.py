"""The probe corpus: what agents send in production, in shapes written to break an upper bound on
token counts, built apart from the fit and check corpora (issue 16: judge the estimators on data
nobody designed them on).

    python benches/data/probe_corpus.py > benches/data/probe.jsonl
    python benches/data/probe_corpus.py --manifest benches/data/probe_sources.json > /dev/null

One JSON object a line, ``{"text", "category", "source"}``, 200 B to 20 KB each, deterministic
for a seed. Nothing is downloaded. Where each category's text comes from:

* ``probe_api``: GitHub issues and review comments (diff hunks quote installed httpx source),
  Stripe-style invoices, Kubernetes events, Sentry events (frames quote installed starlette and
  requests source); ``probe_llm``: OpenAI chat completions (tool calls, logprobs), Anthropic
  messages and SSE streams: seeded generators following the public API shapes.
* ``probe_data``: SQL results (JSON and psql), GeoJSON, OTLP spans, Prometheus exposition, JSON
  log lines (seeded); AWS request/response examples from botocore's installed ``examples-1.json``.
* ``probe_formats``: HTTP exchanges with JWTs (seeded), certifi's ``cacert.pem`` and kubeconfigs,
  URLs (seeded), data: URIs of matplotlib's icons, ANSI logs (seeded), rich's box tables,
  Jupyter notebooks.
* ``probe_code``: installed Go, Fortran, PHP, Vim script, Makefiles, minified JS, LaTeX files;
  pygments' lexer regexes. ``probe_codegen``: Kotlin, Swift, Haskell, Elixir, Lua templates;
  R, Octave, Julia and LaTeX from sympy's printers; objdump-style listings (all seeded).
* ``probe_langs``: vim's tutors, CPython's cjkencodings samples, Rust by Example translations,
  and ``probe_phrases``' hand-written sentences (Arabic, Persian, Hebrew, Hindi, Bengali, Tamil,
  Thai, Korean, classical/traditional/simplified Chinese, Japanese), half- and full-width forms.
* ``probe_unicode``: emoji chat, mathematical "fancy" letters, zero-width and soft-hyphen
  insertions, combining marks, bidi controls, NFD text, upper case, spacing, repeats, long words,
  homoglyphs, over the installed licence texts (``/usr/share/common-licenses``) and the phrases.

``--manifest`` writes the SHA-256 of every installed file read, by logical name; the test of
this corpus regenerates it only where every such file is present with the same bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import probe_api as api
import probe_code as code
import probe_codegen as gen
import probe_data as data
import probe_formats as fmt
import probe_langs as langs
import probe_llm as llm
import probe_unicode as uni
from probe_common import MIN_BYTES, Sources, doc, fit_size

SEED = 16
Many = Callable[[random.Random, Sources, int], list[tuple[str, str]]]


def each(*fns: Callable[[random.Random, Sources], tuple[str, str]]) -> Many:
    """``n`` documents, each from one of ``fns`` in turn."""
    return lambda rng, src, n: [fns[k % len(fns)](rng, src) for k in range(n)]


def simple(fn: Callable[[random.Random], tuple[str, str]]) -> Many:
    return lambda rng, src, n: [fn(rng) for _ in range(n)]


def files(category: str) -> Many:
    return lambda rng, src, n: code.from_files(rng, src, category, n)


def templated(lang: str) -> Many:
    return simple(lambda rng: gen.templated(rng, lang))


def sympy_code(lang: str) -> Many:
    return simple(lambda rng: gen.sympy_code(rng, lang))


def phrase_docs(*names: str, mix: float = 0.0) -> Many:
    return lambda rng, src, n: [
        (langs.phrases(rng, names[k % len(names)], mix), f"handwritten:{names[k % len(names)]}") for k in range(n)
    ]


CATEGORIES: list[tuple[str, int, Many]] = [
    ("json_github", 20, each(api.github_issues, api.github_review_comments)),
    ("json_billing", 14, each(api.stripe_invoice)),
    ("json_llm_api", 22, each(llm.openai_response, llm.anthropic_message)),
    ("sse_stream", 12, each(llm.anthropic_stream)),
    ("json_k8s_events", 14, each(api.k8s_events)),
    ("json_sentry", 14, each(api.sentry_event)),
    ("sql_results", 20, each(data.sql_json, data.sql_psql)),
    ("geojson", 14, each(data.geojson)),
    ("otel_spans", 14, each(data.otel_spans)),
    ("prometheus", 14, each(data.prometheus)),
    ("json_aws_examples", 20, each(data.aws_examples)),
    ("jsonl_logs", 12, each(data.log_lines)),
    ("http_jwt", 14, each(fmt.http_exchange)),
    ("pem", 14, each(fmt.pem_bundle)),
    ("urls", 14, each(fmt.urls)),
    ("data_uris", 12, each(fmt.data_uris)),
    ("ansi_logs", 14, each(fmt.ansi_log)),
    ("box_tables", 16, each(fmt.box_table)),
    ("jupyter", 14, each(fmt.notebook)),
    ("code_go", 10, files("code_go")),
    ("code_fortran", 14, files("code_fortran")),
    ("code_php", 14, files("code_php")),
    ("code_vim", 16, files("code_vim")),
    ("code_make", 12, files("code_make")),
    ("code_minified_js", 16, files("code_minified_js")),
    (
        "code_latex",
        16,
        lambda rng, src, n: (
            code.from_files(rng, src, "code_latex", n // 2) + [gen.latex_math(rng) for _ in range(n - n // 2)]
        ),
    ),
    ("code_regex", 14, code.regexes),
    *((f"code_{lang}", 10, templated(lang)) for lang in ("kotlin", "swift", "haskell", "elixir", "lua")),
    *((f"code_{lang}", 10, sympy_code(lang)) for lang in ("r", "octave", "julia")),
    ("code_asm", 12, simple(gen.asm_listing)),
    ("lang_latin", 36, lambda rng, src, n: langs.tutors(rng, src, "lang_latin", n)),
    ("lang_cyrillic_greek", 25, lambda rng, src, n: langs.tutors(rng, src, "lang_cyrillic_greek", n)),
    ("lang_cjk_tutor", 24, lambda rng, src, n: langs.tutors(rng, src, "lang_cjk_tutor", n)),
    ("lang_cjk_samples", 15, lambda rng, src, n: langs.cjk_samples(rng, src)[:n]),
    (
        "lang_cjk_docs",
        32,
        lambda rng, src, n: [d for lg in ("zh", "ja", "ko", "es") for d in langs.rust_by_example(rng, src, lg, n // 4)],
    ),
    ("lang_rtl", 24, phrase_docs("ar", "fa", "he")),
    ("lang_indic", 24, phrase_docs("hi", "bn", "ta")),
    ("lang_thai", 10, phrase_docs("th")),
    ("lang_ko_chat", 10, phrase_docs("ko", mix=0.3)),
    ("lang_zh_classical", 10, phrase_docs("zh_classical")),
    ("lang_zh_mixed", 12, phrase_docs("zh_mixed", mix=0.3)),
    ("lang_ja", 24, phrase_docs("ja_kana", "ja_kanji", "ja_katakana", mix=0.1)),
    ("lang_ja_width", 16, lambda rng, src, n: [(langs.halfwidth if k % 2 else langs.fullwidth)(rng) for k in range(n)]),
    ("emoji_chat", 22, each(uni.emoji_chat)),
    ("fancy_unicode", 14, each(uni.fancy_post)),
    ("invisible_chars", 14, each(uni.invisible)),
    ("combining_marks", 14, each(uni.combining)),
    ("bidi_controls", 12, each(uni.bidi)),
    ("nfd_text", 14, each(uni.nfd)),
    ("text_shapes", 30, each(uni.shapes)),
    ("long_words", 12, each(uni.long_words)),
    ("prose_legal", 12, each(uni.legal_prose)),
]


def build(seed: int = SEED, only: set[str] | None = None) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The documents and the manifest of installed files read (logical name -> SHA-256); with
    ``only``, just those categories (the same documents as in the whole corpus)."""
    src = Sources()
    docs: list[dict[str, str]] = []
    seen: set[str] = set()
    for category, n, fn in CATEGORIES:
        if only is not None and category not in only:
            continue
        rng = random.Random(f"{seed}:{category}")  # a category's documents do not depend on the others
        for text, source in fn(rng, src, n):
            text = fit_size(text)
            if len(text.encode("utf-8")) >= MIN_BYTES and text not in seen:
                seen.add(text)  # cjkencodings holds one text in several encodings; truncation can make twins
                docs.append(doc(text, category, source))
    return docs, dict(sorted(src.read.items()))


def render(docs: list[dict[str, str]]) -> str:
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--manifest", type=Path, help="also write the installed files' SHA-256 here")
    args = parser.parse_args(argv)
    docs, manifest = build(args.seed)
    sys.stdout.write(render(docs))
    if args.manifest:
        args.manifest.write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
