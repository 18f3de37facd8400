"""``ctxsieve explain --config policy.yaml --query "..."``: build one window and show its trace.

Every proposed item with its raw, calibrated and final score, tokens, whether it went in and
why, then the build's events and the window's totals. ``--objects module:name`` imports a
mapping of the Python objects the policy names (pipelines, message lists, callables).
A scorer endpoint in the policy is used only with ``--allow-endpoint URL`` (and
``--allow-env NAME`` for its key variable): the file alone cannot send anything anywhere.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import sys
from collections.abc import Mapping
from typing import Any

from ctxsieve.errors import ConfigError, MissingExtraError


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("explain", help="show why each candidate is in or out of the window")
    p.add_argument("--config", required=True, help="a kind: ContextPolicy YAML file")
    p.add_argument("--query", required=True, help="the query to build the window for")
    p.add_argument("--objects", help="module:attribute of a mapping of the objects the policy names")
    p.add_argument("--limit", type=int, default=None, help="show at most this many items")
    p.add_argument("--format", choices=("table", "plain", "json"), default="table")
    p.add_argument("--prompt", action="store_true", help="also print the rendered prompt")
    add_trust_arguments(p)
    p.set_defaults(run=run)


def add_trust_arguments(p: argparse.ArgumentParser) -> None:
    """The caller's allow-lists for what a policy file may reach (see docs/security.md)."""
    p.add_argument(
        "--allow-endpoint",
        action="append",
        default=[],
        metavar="URL",
        help="a scorer endpoint base URL the policy may send candidates to; repeatable",
    )
    p.add_argument(
        "--allow-env",
        action="append",
        default=[],
        metavar="NAME",
        help="an environment variable the policy may read an endpoint's key from; repeatable",
    )


def load_objects(spec: str | None) -> dict[str, Any]:
    if not spec:
        return {}
    module, _, attr = spec.partition(":")
    if not attr:
        raise ConfigError(f"--objects: expected module:attribute, got {spec!r}")
    try:
        value = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"--objects: cannot load {spec!r}: {exc}") from None
    except Exception as exc:  # the module itself failed as it ran: say so, in one line
        raise ConfigError(f"--objects: importing {module!r} raised {type(exc).__name__}: {exc}") from None
    if not isinstance(value, Mapping):
        raise ConfigError(f"--objects: {spec!r} is a {type(value).__name__}, not a mapping of names to objects")
    return dict(value)


def run(args: argparse.Namespace) -> int:
    from ctxsieve.spec import load_engine

    engine = load_engine(
        args.config, load_objects(args.objects), allow_endpoints=args.allow_endpoint, allow_env=args.allow_env
    )
    window = engine.build_sync(args.query)
    trace = window.trace
    if args.format == "json":
        out = {"report": window.report(), "entries": [dataclasses.asdict(e) for e in trace]}
        json.dump(out, sys.stdout, indent=2, default=str)
        print()
    elif args.format == "plain":
        print(trace.explain(args.limit))
    else:
        _table(window, args.limit)
    if args.format != "json":
        print(
            f"{len(window.items)} of {len(trace)} items, {window.tokens_used}/{window.budget} tokens; "
            f"stable prefix {window.stable_prefix_tokens} tokens ({window.stable_prefix_hash}); "
            f"layout {window.layout}"
        )
    if args.prompt:
        print(window.to_text())
    return 0


def _table(window: Any, limit: int | None) -> None:
    try:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table
    except ImportError:
        raise MissingExtraError("cli", "rich") from None
    table = Table(title=f"query: {escape(window.query)}")
    for name, justify in (
        ("id", "left"),
        ("source", "left"),
        ("kind", "left"),
        ("raw", "right"),
        ("calibrated", "right"),
        ("final", "right"),
        ("tokens", "right"),
        ("in", "center"),
        ("reason", "left"),
        ("adjustments", "left"),
    ):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    rows = sorted(window.trace, key=lambda e: (not e.included, -e.final, e.id))
    for e in rows[:limit] if limit is not None else rows:
        table.add_row(
            escape(e.id),
            escape(e.source),
            e.kind,
            f"{e.raw:.3g}",
            f"{e.calibrated:.3f}",
            f"{e.final:.3f}",
            str(e.tokens),
            "[green]yes[/]" if e.included else "[red]no[/]",
            escape(e.reason),
            escape(", ".join(e.adjustments)),
        )
    console = Console()
    console.print(table)
    for event in window.trace.events:
        console.print(f"[yellow]event[/] {escape(event)}", highlight=False)
