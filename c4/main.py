"""Entry point of the ``c4`` command.

Every module in :mod:`c4.commands` adds its subcommand through
``register(subparsers)``; modules in :mod:`c4.bench` add ``c4 bench NAME``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import commands

# Commands whose start-up time matters (a c4solver drop-in; `c4 mcp-stdio`, whose start an
# MCP client times): their own module is imported alone, not every command's (which pulls
# asyncio, grpc, numba, ...).
ALONE = {"solve": "solve", "analyze": "solve", "mcp-stdio": "mcp_stdio"}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of the commands of module ``only``."""
    parser = argparse.ArgumentParser(prog="c4", description="Connect Four platform command line.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    if only is not None:
        names = [only]
    else:
        import pkgutil

        names = sorted(info.name for info in pkgutil.iter_modules(commands.__path__))
    for name in names:
        importlib.import_module(f"{commands.__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(ALONE.get(words[0]) if words else None)
    args = parser.parse_args(argv)
    if argv is None:  # the command, not a test calling main(): warnings as text lines with their fields
        from servicekit.logs import configure_logging

        configure_logging("c4", "WARNING", fmt="text")
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
