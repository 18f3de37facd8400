"""Subcommands of the ``ctxsieve`` CLI: each module defines ``add_parser(subparsers)`` that
registers its parser with ``set_defaults(run=run)``."""
