"""``c4 bench solver``: the exact solver on one of Pascal Pons' test sets.

Solves the first N lines (``moves score``) with a fresh table per position
and prints the number correct, mean microseconds and nodes per position and
nodes per second. Compile and warm-up time is excluded and reported apart.

What is timed is what ``c4 solve --fresh`` does with the same lines once it
has read them: :class:`c4.commands.solve.LineSolver` turns the move strings
into protocol answers, in batches of about 50 ms, each one numba call
(``Solver.solve_many``) that replays and checks every move, starts the
position from an empty table (a new table epoch) and solves it exactly. The
mean is the total time of those calls over the positions; reading the set
file and checking the scores against it are not timed. The warm-up loads
the kernels and touches the table's pages once (as a C++ zero-initialised
table does at construction).

A backend is anything with ``warm() -> seconds``, ``solve_lines(lines,
clock) -> (seconds, scores, nodes)`` (it times its own work with ``clock``)
and ``close()``; :func:`make_backend` picks it from the arguments, so other
backends slot in beside the local one.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from c4 import argtypes

WARM_UP = "52753311433677442422121"  # a Test_L2_R1 line: a few hundred nodes
PONS_SETS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "pons-testsets"
ALL_SETS = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3")


def register(sub) -> None:
    p = sub.add_parser("solver", help="exact solver on a Pons test set", description=__doc__)
    p.add_argument("--set", required=True, action="append",
                   help="test set file, or a name like Test_L1_R1, or 'all' (the six sets); may be repeated")
    p.add_argument("--n", type=argtypes.int_in(0), default=0, help="first N lines (default 0: all)")
    p.add_argument("--weak", action="store_true", help="win/draw/loss only")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--tt-log2", type=argtypes.tt_log2, default=None, metavar="N",
                  help="table of 2**N entries, N in 18..32 (default 23)")
    p.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall",
        help="time a position by wall time (default) or by this process's CPU time (steadier on a loaded machine)",
    )
    p.add_argument("--service", nargs="?", const="spawn", metavar="ADDR",
                   help="Analyze through the gRPC solver service against the same solver in process "
                        "(the service overhead); ADDR of a running service, default: start one")
    p.add_argument("--vs", metavar="CMD",
                   help="another solver speaking Pons' line protocol (a command line, run without a shell): "
                        "both solve the same lines, interleaved, and the figures are printed side by side")
    p.add_argument("--rounds", type=argtypes.int_in(1), default=3, help="--vs: rounds over each set (default 3)")
    p.add_argument("--vs-timeout", type=float, default=3600.0, metavar="S",
                   help="--vs: seconds the other solver may take for one line (default 3600)")
    p.set_defaults(run=run)


class LocalBackend:
    """The numba solver in this process, a fresh table for each position."""

    name = "local"

    def __init__(self, args):
        from c4.commands.solve import LineSolver
        from connect4 import STANDARD

        self.weak = args.weak
        self.lines = LineSolver(STANDARD, weak=args.weak, fresh=True, tt_log2=args.tt_log2)

    def warm(self) -> float:
        t0 = time.perf_counter()
        self.lines.answer([WARM_UP])  # loads (or compiles) the batch kernel
        self.lines.solver.prefault()
        self.lines.solver.reset()
        return time.perf_counter() - t0

    def solve_lines(self, lines: list[str], clock) -> tuple[float, list[int | None], list[int]]:
        """Seconds of the answer (what c4 solve --fresh does), then the score
        (None for an invalid line) and nodes of every line."""
        t0 = clock()
        _, _, batch = self.lines.answer(lines)
        seconds = clock() - t0
        answers = zip(batch.scores.tolist(), batch.errors.tolist(), strict=True)
        scores = [s if e == 0 else None for s, (e, _) in answers]
        return seconds, scores, batch.nodes.tolist()

    def close(self) -> None:
        pass


def make_backend(args):
    return LocalBackend(args)


def resolve_set(name: str) -> Path:
    path = Path(name)
    if path.is_file():
        return path
    if path.exists():
        raise FileNotFoundError(f"test set {name!r} is not a file")
    if (PONS_SETS / name).is_file():
        return PONS_SETS / name
    raise FileNotFoundError(f"no test set {name!r} (neither a file nor in {PONS_SETS})")


def read_set(path: Path, n: int = 0) -> list[tuple[str, int]]:
    """The first n (0 = all) `moves score` lines of a Pons test set; ValueError
    naming the first line that is not two fields, digits and a whole number."""
    rows = []
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read test set {path}: {exc}") from None
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            fields = line.split()
            if len(fields) != 2 or not fields[0].isdigit() or not _is_int(fields[1]):
                raise ValueError(f"{path}, line {number}: not a 'moves score' line of a Pons test set: {line[:60]!r}")
            rows.append((fields[0], int(fields[1])))
            if n and len(rows) >= n:
                break
    if not rows:
        raise ValueError(f"test set {path} has no positions")
    return rows


def _is_int(text: str) -> bool:
    return text.lstrip("+-").isdigit()


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def load_sets(names: list[str], n: int) -> list[tuple[Path, list[tuple[str, int]]]]:
    """(path, first n rows) of every named set, 'all' standing for the six Pons sets."""
    expanded = [s for name in names for s in (ALL_SETS if name == "all" else (name,))]
    return [(path, read_set(path, n)) for path in map(resolve_set, expanded)]


def run(args) -> int:
    try:
        sets = load_sets(args.set, args.n)
    except (FileNotFoundError, ValueError) as exc:
        print(f"c4 bench solver: {exc}", file=sys.stderr)
        return 2
    if args.vs is not None:
        from ._versus import run_versus

        return run_versus(args, [(path.name, rows) for path, rows in sets], lambda: make_backend(args))
    if args.service:
        if len(sets) > 1:
            print("c4 bench solver: --service takes one --set", file=sys.stderr)
            return 2
        return run_service_overhead(args, *sets[0])
    status = 0
    for path, rows in sets:
        status = max(status, run_one(args, path, rows))
    return status


def run_one(args, path: Path, rows) -> int:
    backend = make_backend(args)
    from c4.commands.solve import batches

    try:
        compile_s = backend.warm()
        correct = 0
        total_s = 0.0
        total_nodes = 0
        clock = time.process_time if args.clock == "cpu" else time.perf_counter
        last_report = time.monotonic()
        moves = [m for m, _ in rows]

        def timed(chunk, _start):
            nonlocal total_s
            seconds, scores, nodes = backend.solve_lines(chunk, clock)
            total_s += seconds
            return scores, nodes

        for start, (scores, nodes) in batches(moves, timed):
            total_nodes += sum(nodes)
            for (m, expected), score in zip(rows[start:start + len(scores)], scores, strict=False):
                if score == (sign(expected) if args.weak else expected):
                    correct += 1
                else:
                    print(f"wrong: {m} gave {score}, expected {expected}", file=sys.stderr, flush=True)
            done = start + len(scores)
            if time.monotonic() - last_report > 5:
                last_report = time.monotonic()
                print(f"  {done}/{len(rows)} positions, {correct} correct, {total_s / done * 1e6:,.0f} us mean",
                      file=sys.stderr, flush=True)
    finally:
        backend.close()
    n = len(rows)
    figures = {
        "set": path.name,
        "n": n,
        "correct": correct,
        "mean_us": total_s / n * 1e6 if n else 0.0,
        "mean_nodes": total_nodes / n if n else 0.0,
        "nodes_per_s": total_nodes / total_s if total_s else 0.0,
        "compile_s": compile_s,
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"set          {figures['set']} ({'weak' if args.weak else 'strong'}, {args.clock} clock)")
        print(f"positions    {n}")
        print(f"correct      {correct}")
        print(f"mean_us      {figures['mean_us']:,.1f}")
        print(f"mean_nodes   {figures['mean_nodes']:,.1f}")
        print(f"nodes_per_s  {figures['nodes_per_s']:,.0f}")
        print(f"compile_s    {compile_s:.2f}")
    return 0 if correct == n else 1


def run_service_overhead(args, path: Path, rows) -> int:
    """``--service``: see :mod:`c4.bench._solver_service`."""
    from c4.bench._solver_service import measure

    address = None if args.service == "spawn" else args.service
    if address is not None:
        from c4.reach import Unreachable, require_serving

        try:
            require_serving("solver service", address)
        except Unreachable as exc:
            print(f"c4 bench solver: {exc}", file=sys.stderr)
            return 1
    figures = {"set": path.name, **measure([m for m, _ in rows], address, args.tt_log2,
                                            lambda msg: print(f"  {msg}", file=sys.stderr, flush=True))}
    if args.json:
        print(json.dumps(figures))
    else:
        for k, v in figures.items():
            print(f"{k:24} {v:,.1f}" if isinstance(v, float) else f"{k:24} {v}")
    return 0 if figures["same_scores"] == figures["n"] else 1
