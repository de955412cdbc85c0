"""Entry point of the ``c4`` command.

Every module in :mod:`c4.commands` adds its subcommand through
``register(subparsers)``; modules in :mod:`c4.bench` add ``c4 bench NAME``.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="c4", description="Connect Four platform command line.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
