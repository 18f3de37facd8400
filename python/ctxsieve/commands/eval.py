"""``ctxsieve eval``: run the labelled questions through every configuration and budget, print
the comparison and write ``eval.md``, ``eval.json`` and ``eval.png`` to ``--out``.

Level 1 needs no network. With a model configured (``--base-url``/``--model`` or the
``CTXSIEVE_EVAL_*`` variables) the default policy also runs with LLM rescoring; ``--level 2``
adds answers from that model and a judge's grades.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from ctxsieve.errors import ConfigError, MissingExtraError

LEVEL2_CONFIGS = "scored_knapsack/cache,fixed_slots/cache"


def _budgets(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"budgets must be comma-separated integers, got {text!r}") from None
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"budgets must be positive integers, got {text!r}")
    # a budget given twice would run twice into one row (twice the calls, hashes compared at the seam)
    return sorted(set(values))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _modes(text: str) -> list[str]:
    values = [v.strip() for v in text.split(",") if v.strip()]
    if not values or any(v not in ("session", "question") for v in values):
        raise argparse.ArgumentTypeError(f"modes must be session, question or both, got {text!r}")
    return list(dict.fromkeys(values))


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("eval", help="compare context policies and layouts on labelled questions")
    p.add_argument("--budgets", type=_budgets, default=[750, 1000, 2000], help="token budgets (default 750,1000,2000)")
    p.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="corpus directory, or a shipped corpus by name: tessel (the default) or nordlinje",
    )
    p.add_argument("--out", type=Path, default=Path("eval-out"), help="output directory (default ./eval-out)")
    p.add_argument("--level", type=int, choices=(1, 2), default=1, help="2 adds model answers and a judge")
    p.add_argument(
        "--retriever",
        choices=("auto", "bm25", "embed", "hybrid"),
        default="auto",
        help="candidate retrieval (default auto: hybrid BM25 + MiniLM with the embed extra, else bm25)",
    )
    p.add_argument(
        "--fusion",
        choices=("rrf", "score"),
        default=None,
        help="how the hybrid retriever fuses BM25 and MiniLM: rrf (rank) or score (min-max scores); "
        "default: the one that won on the shipped corpora (docs/eval.md)",
    )
    p.add_argument("--rag-k", type=_positive, default=None, help="chunks proposed per call (default: from the budget)")
    p.add_argument(
        "--okf-limit", type=_positive, default=None, help="whole pages proposed per call (default: from the budget)"
    )
    p.add_argument(
        "--modes",
        type=_modes,
        default=["session", "question"],
        help="session (the corpus's sessions), question (every question alone), or both (default)",
    )
    p.add_argument("--cache-dir", type=Path, default=None, help="embedding cache (default ~/.cache/ctxsieve)")
    p.add_argument("--no-cache", action="store_true", help="embed every chunk again, keep nothing")
    p.add_argument("--wide", action="store_true", help="every column in the terminal table (the files have all)")
    p.add_argument(
        "--history",
        choices=("plain", "transcript"),
        default="plain",
        help="seed layout's history; transcript: earlier turns keep the context they were shown "
        "(cache-layout configurations always run on an append-only Conversation)",
    )
    p.add_argument(
        "--max-prompt-tokens",
        type=_positive,
        default=None,
        help="the cache layout's session ceiling, where it cuts old turns (default: the library's, 100000)",
    )
    p.add_argument("--configs", default=None, help="policy[/layout] list, comma-separated (default: all)")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint for rescoring and level 2")
    p.add_argument("--model", default=None, help="model name at --base-url")
    p.add_argument("--judge-model", default=None, help="judge model for level 2 (default: --model)")
    p.add_argument("--level2-configs", default=LEVEL2_CONFIGS, help="configurations answered at level 2")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def level2_table(rows: list[dict[str, Any]]) -> Any:
    from rich.table import Table

    def cell(v: Any, fmt: str) -> str:
        return "-" if v is None else format(v, fmt)

    table = Table(title="level 2: answers and judge")
    cols = [("config", "", "s"), ("budget", "", "d"), ("answers", "", "d"), ("accuracy", "", ".3f")]
    cols += [("latency_s", "latency s", ".2f"), ("prompt_tokens", "prompt tok", ".0f")]
    cols += [("completion_tokens", "completion tok", ".0f"), ("provider_cached_share", "provider cached", ".3f")]
    for key, header, _ in cols:
        table.add_column(header or key, justify="left" if key == "config" else "right")
    for row in rows:
        table.add_row(*[cell(row.get(key), fmt) for key, _, fmt in cols])
    return table


def run(args: argparse.Namespace) -> int:
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    except ImportError:
        raise MissingExtraError("eval", "rich") from None
    from ctxsieve.engine.session import DEFAULT_MAX_PROMPT_TOKENS
    from ctxsieve.eval import configs as cfg
    from ctxsieve.eval import level2, report, runner, summary
    from ctxsieve.eval.corpus import load_corpus
    from ctxsieve.eval.embed_cache import EmbeddingCacheWarning, default_cache_dir
    from ctxsieve.eval.retrieve import DEFAULT_FUSION, resolve_mode

    started = time.perf_counter()
    if args.out.exists() and not args.out.is_dir():
        # checked before the run, not when the reports are written at its end
        raise ConfigError(f"--out: {str(args.out)!r} exists and is not a directory")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out: cannot create {str(args.out)!r}: {exc.strerror or exc}") from None
    # a pipe or a CI log gets the whole table rather than 80 columns of ellipses
    console = Console(width=None if sys.stdout.isatty() else 240)
    corpus = load_corpus(args.corpus)
    endpoint = None
    if args.level == 2 or args.base_url or args.model:
        endpoint = level2.Endpoint.from_env(args.base_url, args.model, args.judge_model)
    client = level2.ChatClient(endpoint) if endpoint is not None else None
    try:
        scorer = None
        if client is not None:
            from ctxsieve.scorer import LLMScorer

            scorer = LLMScorer(client.complete)
        names = args.configs.split(",") if args.configs else None
        configs = (
            cfg.parse_configs(names, llm=scorer is not None) if names else cfg.default_configs(llm=scorer is not None)
        )
        ceiling = args.max_prompt_tokens or DEFAULT_MAX_PROMPT_TOKENS
        too_big = [b for b in args.budgets if b >= ceiling]
        if too_big and any(c.layout == "cache" for c in configs):
            # else the first cache-layout session fails after the seed rows ran, naming an option not given
            raise ConfigError(
                f"--budgets {too_big[0]}: must be below the cache layout's session ceiling "
                f"({ceiling} tokens, --max-prompt-tokens)"
            )
        wanted = set(args.level2_configs.split(","))
        if client is not None and args.level == 2 and not wanted & {c.name for c in configs}:
            # before the level-1 run, which takes minutes, not after it
            raise ConfigError(f"--level2-configs {args.level2_configs!r} names none of the configurations run")
        if client is not None and args.level == 2 and "session" not in args.modes:
            # level 2 answers the session calls (the model's replies are what later turns carry):
            # without them it would print an empty table and pass for done
            raise ConfigError("--level 2 answers the session mode's calls; --modes must include session")
        retriever = resolve_mode(args.retriever)
        columns = (
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        cache_dir = None if args.no_cache else (args.cache_dir or default_cache_dir())
        with Progress(*columns, console=console, disable=args.quiet, transient=True) as bar:
            embedding = bar.add_task("embedding chunks", total=None, visible=False)

            def embedded(done: int, total: int) -> None:
                bar.update(embedding, completed=done, total=total, visible=total > 0)

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", EmbeddingCacheWarning)
                assets = runner.prepare(
                    corpus,
                    retriever,
                    depth=cfg.Depth(args.rag_k, args.okf_limit),
                    progress=embedded,
                    cache_dir=None if cache_dir is None else str(cache_dir),
                    fusion=args.fusion or DEFAULT_FUSION,
                )
        for w in caught:
            if isinstance(w.message, EmbeddingCacheWarning):
                console.print(f"[yellow]warning: {w.message}", highlight=False)
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        total = runner.total_calls(assets, configs, args.budgets, args.modes)
        with Progress(*columns, console=console, disable=args.quiet, transient=True) as bar:
            task = bar.add_task("building windows", total=total)
            records = runner.run(
                assets,
                configs,
                args.budgets,
                scorer=scorer,
                progress=lambda n: bar.advance(task, n),
                history_mode=args.history,
                max_prompt_tokens=args.max_prompt_tokens,
                modes=args.modes,
            )
        rows = summary.summarize(records)
        targets = summary.check_targets(rows, facts=summary.corpus_facts(corpus))
        env = runner.environment()
        env.update(
            corpus=f"{corpus.name} ({args.corpus})" if args.corpus else f"shipped ({corpus.name})",
            retriever=retriever if retriever != "hybrid" else f"hybrid ({args.fusion or DEFAULT_FUSION} fusion)",
            depth=", ".join(f"{b}: {'/'.join(map(str, assets.engine_depth(b)))}" for b in args.budgets),
            modes=",".join(args.modes),
            history=args.history,
            max_prompt_tokens=args.max_prompt_tokens,
            documents=len(corpus.documents),
            questions=len(corpus.questions),
            sessions=len(assets.sessions),
        )
        command = "ctxsieve eval" + ("" if len(sys.argv) < 3 else " " + " ".join(sys.argv[2:]))
        title = (
            f"ctxsieve eval: {env['documents']} documents, {env['questions']} questions in {env['sessions']} sessions"
        )
        report.print_tables(console, rows, title, wide=args.wide)
        for line in targets:
            colour = "[green]" if line.startswith("PASS") else "[yellow]" if line.startswith("N/A") else "[red]"
            console.print(colour + line, highlight=False)
        written = report.write_all(args.out, rows, records, targets, env, command)
        if client is not None and args.level == 2:
            # answered in session mode only: the model's replies are what later turns carry
            chosen = [r for r in records if r.config in wanted and r.mode == "session"]
            with Progress(*columns, console=console, disable=args.quiet, transient=True) as bar:
                task = bar.add_task("answering and judging", total=len(chosen))
                graded = level2.answer_and_grade(client, corpus, chosen, progress=lambda n: bar.advance(task, n))
            l2 = level2.summarize_level2(graded)
            console.print(level2_table(l2))
            path = args.out / "eval-level2.json"
            path.write_text(
                json.dumps({"rows": l2, "answers": [g.as_dict() for g in graded]}, indent=1), encoding="utf-8"
            )
            written.append(path)
    finally:
        if client is not None:
            client.close()  # also when a config or an endpoint error stops the run
    console.print(f"wrote {', '.join(str(p) for p in written)} in {time.perf_counter() - started:.1f}s")
    return 0
