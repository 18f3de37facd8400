"""The ``ctxsieve`` command. Each subcommand lives in ``ctxsieve.commands.<name>``, a module
with ``add_parser(subparsers)`` and ``run(args) -> int``; a module whose optional dependencies
are missing still registers and fails with ``MissingExtraError`` only when run."""

from __future__ import annotations

import argparse
import importlib
import sys

from ctxsieve.errors import ContextError

SUBCOMMANDS = ("eval", "explain", "calibrate", "store")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ctxsieve", description="Decide what an LLM agent reads.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"ctxsieve.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"ctxsieve.commands.{name}":
                continue  # not built yet
            raise
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except ContextError as exc:
        print(f"ctxsieve {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
