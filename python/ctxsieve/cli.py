"""The ``ctxsieve`` command. Each subcommand lives in ``ctxsieve.commands.<name>``, a module
with ``add_parser(subparsers)`` and ``run(args) -> int``; a module whose optional dependencies
are missing still registers and fails with ``MissingExtraError`` only when run."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import warnings
from typing import NoReturn

from ctxsieve.errors import ContextError

SUBCOMMANDS = ("eval", "explain", "calibrate", "store", "mcp")

# the shell's convention for a process ended by SIGINT (128 + 2)
INTERRUPTED = 130


def version() -> str:
    """The installed distribution's version; the package's own when it is not installed (run
    from a source tree with PYTHONPATH=python)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("ctxsieve")
    except PackageNotFoundError:
        from ctxsieve import __version__

        return __version__


def one_line(text: str) -> str:
    r"""An error as one line: a policy's list of problems is joined with "; ".

    >>> one_line("invalid ContextPolicy:\n  spec.budget: is required\n  spec.sources: is required")
    'invalid ContextPolicy: spec.budget: is required; spec.sources: is required'
    """
    out = ""
    for line in (part.strip() for part in text.splitlines()):
        if line:
            out += ("" if not out else " " if out.endswith(":") else "; ") + line
    return out


class OneLineParser(argparse.ArgumentParser):
    """Bad options are one line, status 2: argparse would print the whole usage block (ten
    lines for ``eval``) above the one line that matters. The top-level parser and every
    subcommand's parser are of this class."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="ctxsieve", description="Decide what an LLM agent reads.")
    parser.add_argument("--version", action="version", version=f"ctxsieve {version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
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
    try:
        args = build_parser().parse_args(argv)  # imports every subcommand: a Ctrl-C may come here
    except KeyboardInterrupt:
        print("ctxsieve: interrupted", file=sys.stderr)
        return INTERRUPTED
    try:
        return int(args.run(args) or 0)
    except ContextError as exc:
        print(f"ctxsieve {args.command}: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Ctrl-C: the commands' own finally blocks have run; a traceback would say nothing, nor
        # would asyncio's complaints, as the interrupted work is collected, about coroutines
        # and tasks it abandoned (never awaited, destroyed while pending)
        warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        print(f"ctxsieve {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
