"""``c4 bench solve-start``: how soon a new ``c4 solve`` process answers.

    c4 bench solve-start [--line MOVES] [--n 10] [--start native|numba|cold] [--json]

Runs ``c4 solve MOVES`` as a new process ``--n`` times, one after the other,
and prints the min and median of: the wall time from the start of the
process to its first answer line, the process's whole wall time, and its
CPU time (user + system, from the kernel's accounting of the child). Each
answer must be right (``--line`` is checked against a solver in this
process before the runs, and every run must print the same line).

``--start`` chooses what a run starts from:

* ``native`` (default): the batch kernel's machine code on disk
  (:mod:`solver_svc.solver.native`), numba never imported (an untimed run
  first writes it when it is missing);
* ``numba``: ``c4 solve --no-native``, numba's warm cache;
* ``cold``: an empty numba cache folder for every run (``NUMBA_CACHE_DIR``),
  as on a fresh machine: numba compiles the kernels, and the run writes the
  machine code too.

On a loaded machine the wall times count the waits for a core: the CPU
times compare, the wall times are an upper bound.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from c4 import argtypes

DEFAULT_LINE = "52753311433677442422121"  # Pons' test set Test_L3_R1, first line (score 8)


def register(sub) -> None:
    p = sub.add_parser("solve-start", help="time a new c4 solve process to its first answer",
                       description=__doc__)
    p.add_argument("--line", default=DEFAULT_LINE, help=f"the position (1-based digits; default {DEFAULT_LINE})")
    p.add_argument("--n", type=argtypes.int_in(1), default=10, help="processes (default 10)")
    p.add_argument("--start", choices=("native", "numba", "cold"), default="native",
                   help="from the machine code on disk (default), numba's warm cache, or an empty cache")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def one_run(argv: list[str], env: dict[str, str]) -> dict:
    """Start ``argv``; (seconds to the first stdout line, seconds to exit, CPU seconds, the line)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline()
    first = time.perf_counter() - t0
    rest = proc.stdout.read()
    errors = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    total = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    proc.stderr.close()
    if proc.returncode != 0 or rest.strip():
        raise SystemExit(f"c4 bench solve-start: {' '.join(argv)} exited with {proc.returncode}: "
                         f"{(errors or rest).decode(errors='replace').strip()[-300:]}")
    return {"first_s": first, "wall_s": total, "cpu_s": usage.ru_utime + usage.ru_stime,
            "line": line.decode(errors="replace").strip()}


def expected_answer(line: str) -> str:
    from solver_svc.solver import Solver

    batch = Solver().solve_many([line])
    code, move = batch.errors[0].tolist()
    if code:
        raise SystemExit(f"c4 bench solve-start: --line {line!r} is not a position to solve (move {move})")
    return f"{line} {int(batch.scores[0])}"


def run(args) -> int:
    if not args.line.isdigit():
        print(f"c4 bench solve-start: --line must be 1-based column digits, got {args.line!r}", file=sys.stderr)
        return 2
    want = expected_answer(args.line)
    argv = [sys.executable, "-m", "c4.main", "solve", args.line]
    if args.start == "numba":
        argv.insert(-1, "--no-native")
    if args.start != "cold":  # untimed: the first run writes the machine code when it is missing
        one_run(argv, dict(os.environ))
    runs = []
    for _ in range(args.n):
        env = dict(os.environ)
        with tempfile.TemporaryDirectory(prefix="c4-cold-cache-") as cold:
            if args.start == "cold":
                env["NUMBA_CACHE_DIR"] = cold
            r = one_run(argv, env)
        if r["line"] != want:
            raise SystemExit(f"c4 bench solve-start: the answer was {r['line']!r}, not {want!r}")
        runs.append(r)
    summary = {"start": args.start, "line": args.line, "n": args.n, "load": os.getloadavg()[0]}
    for name in ("first_s", "wall_s", "cpu_s"):
        values = [r[name] for r in runs]
        summary[name] = {"min": min(values), "median": statistics.median(values)}
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"c4 solve {args.line} ({args.start} start), {args.n} processes, load {summary['load']:.2f}")
    print(f"{'':22}{'min':>10}{'median':>10}")
    for name, label in (("first_s", "first answer, wall s"), ("wall_s", "whole run, wall s"),
                        ("cpu_s", "whole run, CPU s")):
        print(f"{label:22}{summary[name]['min']:>10.3f}{summary[name]['median']:>10.3f}")
    return 0
