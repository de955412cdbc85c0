"""``c4 bench NAME``: benchmarks that print their figures (never timed tests)."""

from __future__ import annotations

import importlib
import pkgutil

from .. import bench


def register(sub) -> None:
    parser = sub.add_parser("bench", help="run a benchmark and print its figures")
    inner = parser.add_subparsers(dest="bench", metavar="NAME", required=True)
    for info in sorted(pkgutil.iter_modules(bench.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):  # a helper of a benchmark, not one of its own
            continue
        importlib.import_module(f"{bench.__name__}.{info.name}").register(inner)
