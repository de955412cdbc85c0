"""Instructions executed by the engine's and the solver's searches, counted by
valgrind's callgrind: a measure the machine's load does not move, to compare
two commits of the code side by side (issue 21: "no figure worse by 3 %").

    python tools/count_instructions.py --tree /path/to/checkout --engine --solver-set PATH --lines 40
    python tools/count_instructions.py --tree /path/to/checkout --counted

It runs this script again, natively (numba compiles or loads its kernels) and
then under ``valgrind --tool=callgrind``, with the checkout's packages first
on ``sys.path``. Inside, every kernel is loaded and
run once first (numba's compile or cache load is not counted); then callgrind's
counters are zeroed right before each measured part and dumped right after it
(client requests through a tiny C helper built with ``cc``, see :class:`Counters`), so each part's
count is its searches alone, Python included. One JSON object is printed:
instructions and nodes of each part. The searches are deterministic (fixed
depth, fresh tables), so the node counts of two commits must agree; if they do
not, the two commits do not do the same work and their counts do not compare.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

_HELPER_C = r"""
#include <valgrind/callgrind.h>
void cg_zero(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; }
void cg_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); CALLGRIND_STOP_INSTRUMENTATION; }
"""


def _build_helper(folder: Path) -> Path:
    src, lib = folder / "cg.c", folder / "libcg.so"
    src.write_text(_HELPER_C)
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return lib


# -- inside valgrind -----------------------------------------------------------

def _engine_parts(args: argparse.Namespace) -> list[tuple[str, Callable[[], int]]]:
    from connect4 import Position
    from engine_svc.benchset import middle_game_positions
    from engine_svc.search import Engine

    positions = middle_game_positions(args.positions)

    def searches(engine: Engine) -> int:
        return sum(engine.search(p, max_depth=args.depth).nodes for p in positions)

    parts: list[tuple[str, Callable[[], int]]] = []
    for driver in ("mtdf", "pvs"):
        engine = Engine(tt_mb=64.0, driver=driver)
        engine.search(Position.parse("4453"), max_depth=6)  # loads every kernel
        parts.append((f"engine-{driver}-d{args.depth}", functools.partial(searches, engine)))
    return parts


def _solver_parts(args: argparse.Namespace, test_set: str) -> list[tuple[str, Callable[[], int]]]:
    from connect4 import Position
    from solver_svc.solver import Solver

    lines = [ln.split()[0] for ln in Path(test_set).read_text().splitlines() if ln.strip()][: args.lines]
    positions = [Position.parse(ln) for ln in lines]
    solver = Solver()
    solver.solve(positions[0])  # loads the kernels of each entry point (not counted)
    solver.solve_many(lines[:1])

    def one_by_one() -> int:
        nodes = 0
        for p in positions:
            solver.reset()
            nodes += solver.solve(p).nodes
        return nodes

    def batch() -> int:
        return int(sum(solver.solve_many(lines, fresh=True).nodes))
    name = Path(test_set).name
    return [(f"solver-solve-{name}-{len(lines)}", one_by_one), (f"solver-batch-{name}-{len(lines)}", batch)]


COUNTED_OPENINGS = ["", "4", "4453", "44444433", "1234567", "33445517"]


def _counted_parts() -> list[tuple[str, Callable[[], int]]]:
    from connect4 import Position
    from engine_svc.players import make_player

    positions = [Position.parse(m) for m in COUNTED_OPENINGS]

    def moves(spec: str) -> int:
        return sum(make_player(spec).choose(p).nodes for p in positions)

    for spec in ("search", "solver"):
        make_player(spec).choose(Position.parse("4453"))  # loads the kernels (not counted)
    return [(f"counted-{spec}", functools.partial(moves, spec)) for spec in ("search", "solver")]


class Counters:
    """Callgrind's counters, through the C helper (no-ops outside valgrind):
    ``zero`` starts the instrumentation and zeroes the counts, ``dump`` writes
    them and stops it again."""

    def __init__(self, helper: str):
        self._lib = ctypes.CDLL(helper)
        self._lib.cg_dump.argtypes = [ctypes.c_char_p]

    def zero(self) -> None:
        self._lib.cg_zero()

    def dump(self, name: str) -> None:
        """Write the instructions since the last zero as the part ``name``."""
        self._lib.cg_dump(name.encode())


def _inner(args: argparse.Namespace) -> int:
    cg = Counters(os.environ["C4_CALLGRIND_HELPER"])
    parts = _engine_parts(args) if args.engine else []
    parts += _counted_parts() if args.counted else []
    for test_set in args.solver_set:
        parts += _solver_parts(args, test_set)
    for name, run in parts:
        cg.zero()
        nodes = run()
        cg.dump(name)
        print(json.dumps({"part": name, "nodes": nodes}), flush=True)
    return 0


# -- outside ---------------------------------------------------------------------

_DESC = re.compile(r"^desc: Trigger: Client Request: (.+)$", re.M)
_TOTALS = re.compile(r"^(?:totals|summary): (\d+)", re.M)


def _read_dumps(folder: Path) -> dict[str, int]:
    counts = {}
    for f in folder.glob("cg.out.*"):
        text = f.read_text(errors="replace")
        desc, total = _DESC.search(text), _TOTALS.search(text)
        if desc and total:
            counts[desc.group(1).strip()] = int(total.group(1))
    return counts


def callgrind(python_args: list[str], env: dict[str, str], cwd: Path) -> tuple[dict[str, int], str]:
    """Run ``python python_args`` under callgrind, the C helper's path as
    ``C4_CALLGRIND_HELPER`` in its environment: (instructions of each part it
    dumped, by name; its standard output)."""
    with tempfile.TemporaryDirectory(prefix="c4-callgrind-") as tmp:
        folder = Path(tmp)
        helper = _build_helper(folder)
        # Instrumented only between a zero and a dump: the rest (Python's and
        # numba's start, the kernels' load) runs several times faster.
        cmd = ["valgrind", "--tool=callgrind", "--cache-sim=no", "--instr-atstart=no",
               f"--callgrind-out-file={folder}/cg.out", sys.executable, *python_args]
        r = subprocess.run(cmd, env={**env, "C4_CALLGRIND_HELPER": str(helper)}, cwd=cwd,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"exit {r.returncode} under valgrind:\n{r.stderr[-4000:]}")
        return _read_dumps(folder), r.stdout


def _nodes(stdout: str) -> dict[str, int]:
    """The nodes of each part, from the inner run's JSON lines."""
    return {d["part"]: d["nodes"] for d in (json.loads(ln) for ln in stdout.splitlines() if ln.startswith("{"))}


def _outer(args: argparse.Namespace, argv: list[str]) -> int:
    if shutil.which("valgrind") is None or shutil.which("cc") is None:
        print("needs valgrind and a C compiler (cc) with valgrind's headers", file=sys.stderr)
        return 2
    tree = Path(args.tree).resolve()
    # numba keys its cache by the CPU it compiles for, and valgrind shows
    # another CPU than the host: both runs compile for the CPU level of the
    # image (the Dockerfile's settings), so the run under valgrind finds the
    # kernels the native run compiled (a compile under valgrind takes an hour).
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0",
           "NUMBA_CPU_NAME": "x86-64-v2", "NUMBA_CPU_FEATURES": "+popcnt"}
    inner = [str(Path(__file__).resolve()), "--inner", *argv]
    with tempfile.TemporaryDirectory(prefix="c4-native-") as tmp:  # the native run: the compile, and no counts
        warm = subprocess.run([sys.executable, *inner], env={**env, "C4_CALLGRIND_HELPER": str(_build_helper(Path(tmp)))},
                              cwd=tree, capture_output=True, text=True)
    if warm.returncode != 0:
        print(warm.stderr[-4000:], file=sys.stderr)
        return 1
    try:
        counts, stdout = callgrind(inner, env, tree)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    nodes, native = _nodes(stdout), _nodes(warm.stdout)
    head = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    out = {"tree": str(tree), "commit": head.stdout.strip(),
           "parts": {p: {"instructions": counts.get(p), "nodes": n, "nodes_native": native.get(p)}
                     for p, n in nodes.items()}}
    print(json.dumps(out))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default=".", help="the checkout whose code is counted (default: here)")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)  # the run under valgrind
    ap.add_argument("--engine", action="store_true",
                    help="fixed-depth searches of the engine's bench positions, both drivers")
    ap.add_argument("--counted", action="store_true",
                    help="the counted players search and solver, one move on each of a few openings")
    ap.add_argument("--positions", type=int, default=20, help="the first N of engine_svc.benchset's (default 20)")
    ap.add_argument("--depth", type=int, default=12, help="the engine's fixed depth (default 12)")
    ap.add_argument("--solver-set", action="append", default=[],
                    help="exact solves of the first lines of this test set ('moves score' lines); repeatable")
    ap.add_argument("--lines", type=int, default=40, help="the first N lines of each set (default 40)")
    args = ap.parse_args(argv)
    if args.inner:
        return _inner(args)
    if not args.engine and not args.counted and not args.solver_set:
        ap.error("nothing to count: --engine, --counted and/or --solver-set PATH")
    inner_argv = ["--positions", str(args.positions), "--depth", str(args.depth), "--lines", str(args.lines)]
    inner_argv += ["--engine"] if args.engine else []
    inner_argv += ["--counted"] if args.counted else []
    for test_set in args.solver_set:
        inner_argv += ["--solver-set", str(Path(test_set).resolve())]
    return _outer(args, inner_argv)


if __name__ == "__main__":
    sys.exit(main())
