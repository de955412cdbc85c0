"""``c4 solve`` / ``c4 analyze``: Pascal Pons' c4solver line protocol.

One position a line (from the arguments, else stdin), 1-based column digits;
the answer is the line followed by its score (``-a``: the score of each
column, -1000 for a full one). Like c4solver, a line is invalid at the first
move that is off the board, into a full column, or that wins at once; the
message goes to stderr (``Line N: Invalid move M "line"``) and stdout gets an
empty line, so a reader that pairs questions and answers stays in step.

Lines are answered in batches, each one numba call (``Solver.solve_many``):
whatever stdin holds when the solver is free is read at once, so a pipe full
of lines costs one call per batch, while a client that writes one line and
waits for its answer gets it at once (every batch is flushed). A batch is cut
so that one call takes about 50 ms; long searches are answered one by one.

Fast start: when the batch kernel's machine code for the board is on disk
(:mod:`solver_svc.solver.native`, written by the first ``c4 solve`` of a
build that had to load numba), the lines are solved by that code through
llvmlite alone: numba and numpy are never imported. Otherwise the numba
:class:`~solver_svc.solver.Solver` answers, and the machine code is written
after the last answer for the next run.
"""

from __future__ import annotations

import os
import re
import sys
import time
from typing import TYPE_CHECKING

from c4 import argtypes

if TYPE_CHECKING:
    from connect4.geometry import Geometry
    from solver_svc.solver.native import Board

INVALID_MOVE = -1000  # c4solver's score of a column that cannot be played
BATCH_S = 0.05  # aim of one solver call: answers of slow lines are not held back


def register(sub) -> None:
    for name, analyze in (("solve", False), ("analyze", True)):
        p = sub.add_parser(
            name,
            help="score every column (c4 solve -a)" if analyze else "solve positions exactly (Pons' c4solver protocol)",
            description=__doc__,
        )
        p.add_argument("moves", nargs="*", help="positions as 1-based column digits; none: read stdin lines")
        p.add_argument("-w", "--weak", action="store_true", help="win/draw/loss only (-1, 0, 1)")
        p.add_argument("-a", "--analyze", action="store_true", default=analyze, help="score of every column")
        p.add_argument("--size", default="7x6", help="board WIDTHxHEIGHT (default 7x6)")
        p.add_argument("--connect", type=int, default=4, metavar="K", help="line length that wins (default 4)")
        p.add_argument("--tt-log2", type=argtypes.tt_log2, default=None, metavar="N",
                      help="table of 2**N entries, N in 18..32 (default 23)")
        p.add_argument("--fresh", action="store_true",
                       help="start every line from an empty table (as the benchmark does); "
                            "default: the table is kept across lines")
        p.add_argument("--nodes", type=argtypes.int_in(0), default=0, metavar="N",
                       help="boards past 64 bits (8x8, 9x7 ...): node budget per line, 0 = none (default); "
                            "a line not proved within it is reported on stderr, never guessed")
        p.add_argument("--no-native", action="store_true",
                       help="solve with the numba kernels even when their standalone machine code is on disk "
                            "(and do not write it)")
        p.set_defaults(run=run)


class InvalidLine(Exception):
    def __init__(self, move: int, reason: str):
        super().__init__(reason)
        self.move = move  # 1-based number of the offending move
        self.reason = reason


def _edge(col: int) -> str:
    return str(col + 1)


class LineSolver:
    """Protocol lines in, protocol answers out, many lines a solver call.

    ``answer(lines, first)`` returns ``(stdout lines, stderr lines, batch)``:
    one stdout line per input line (empty for an invalid one), the messages
    of the invalid ones (``first`` is the 1-based number of ``lines[0]``), and
    the solver's :class:`~solver_svc.solver.Batch` (scores and nodes of each
    line). This is all ``c4 solve`` does besides reading and writing, and what
    ``c4 bench solver`` times.
    """

    def __init__(self, geometry: Geometry | Board, *, weak: bool = False, analyze: bool = False,
                 fresh: bool = False, tt_log2: int | None = None, solver=None):
        self.g = geometry  # a Board (width, height, k) with the native ``solver``
        self.weak = weak
        self.analyze = analyze
        self.fresh = fresh
        if solver is None:
            from solver_svc.solver import Solver

            solver = Solver(geometry, tt_log2=tt_log2)  # type: ignore[arg-type]
        self.solver = solver
        self.solve_cpu_s = 0.0  # CPU time inside the solver calls alone (c4 bench solver --vs: per solve)

    def encode_line(self, text: str):
        """The move list of one stripped line: the text itself when it is
        column digits (the solver checks the moves), else 0-based columns
        from another notation; InvalidLine for bad notation."""
        g = self.g
        if not text or (text.isascii() and text.isdigit()):
            if g.width > 9 and text:
                raise InvalidLine(1, "boards wider than 9 columns need separated moves")
            return text
        from connect4 import Geometry, IllegalMove, InvalidPosition, parse_moves

        try:
            return parse_moves(text, g if isinstance(g, Geometry) else Geometry.parse(f"{g.width}x{g.height}", g.k))
        except IllegalMove as exc:
            raise InvalidLine((exc.index or 0) + 1, str(exc)) from None
        except InvalidPosition as exc:
            raise InvalidLine(1, str(exc)) from None

    def reason(self, code: int, text: str, item, move: int) -> str:
        from solver_svc.solver.layout import FULL_COLUMN, OFF_BOARD

        shown = item[move - 1] if isinstance(item, str) else _edge(item[move - 1])
        if code == OFF_BOARD:
            return f"column {shown} is off the board (1..{self.g.width})"
        if code == FULL_COLUMN:
            return f"column {shown} is full"
        return f"column {shown} wins: the game would be over"

    def answer(self, lines: list[str], first: int = 1):
        texts = [line.strip() for line in lines]
        items, bad = [], {}
        for i, text in enumerate(texts):
            try:
                items.append(self.encode_line(text))
            except InvalidLine as exc:
                bad[i] = (exc.move, exc.reason)
                items.append("0")  # a placeholder the solver rejects at once: one row a line
        batch = self._solve(items)
        out, err = [], []
        scores, errors = _listed(batch.scores), _listed(batch.errors)
        for i, text in enumerate(texts):
            if i in bad:
                move, why = bad[i]
            else:
                code, move = errors[i]
                if code == 0:
                    s = scores[i]
                    out.append(f"{text} {' '.join(map(str, s)) if self.analyze else s}")
                    continue
                why = self.reason(code, text, items[i], move)
            err.append(f'Line {first + i}: Invalid move {move} "{text}": {why}')
            out.append("")
        return out, err, batch

    def _solve(self, items):
        s = self.solver
        c0 = time.process_time()
        if self.analyze:
            batch = s.analyze_many(items, weak=self.weak, fresh=self.fresh)
        else:
            batch = s.solve_many(items, weak=self.weak, fresh=self.fresh)
        self.solve_cpu_s += time.process_time() - c0
        return batch


def _listed(values) -> list:
    """A numpy array's rows as lists (the numba Solver's Batch); lists as they are (the native one's)."""
    return values.tolist() if hasattr(values, "tolist") else values


def batches(lines: list[str], answer, budget_s: float = BATCH_S):
    """Answer ``lines`` in calls of about ``budget_s`` each: the first call
    takes one line, the next ones as many as the time per line so far allows
    (at most 4096). Yields ``(start index, answer(...) result)``."""
    i, per_line, n = 0, None, 1
    while i < len(lines):
        chunk = lines[i:i + n]
        t0 = time.perf_counter()
        result = answer(chunk, i)
        dt = time.perf_counter() - t0
        per_line = dt / len(chunk) if per_line is None else 0.5 * per_line + 0.5 * dt / len(chunk)
        yield i, result
        i += len(chunk)
        n = max(1, min(4096, int(budget_s / max(per_line, 1e-7))))


def _stdin_chunks():
    """Lists of complete lines, each as soon as stdin has delivered them."""
    fd = sys.stdin.fileno()
    rest = b""
    while True:
        data = os.read(fd, 1 << 16)
        if not data:
            if rest:
                yield [rest.decode("utf-8", "replace")]
            return
        rest += data
        *complete, rest = rest.split(b"\n")
        if complete:
            yield [line.decode("utf-8", "replace").rstrip("\r") for line in complete]


def native_line_solver(args) -> LineSolver | None:
    """A LineSolver on the batch kernel's machine code, without numba; None
    when there is none for this board (the numba Solver answers then)."""
    if getattr(args, "no_native", False):
        return None
    size = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", args.size)
    if size is None:
        return None  # the numba path says what is wrong with it
    from solver_svc.solver.native import NativeSolver, NativeUnavailable, board

    shape = board(int(size[1]), int(size[2]), args.connect)
    try:
        native = NativeSolver(shape, tt_log2=args.tt_log2)
    except (NativeUnavailable, OSError, ImportError, ValueError):
        return None
    return LineSolver(shape, weak=args.weak, analyze=args.analyze, fresh=args.fresh, solver=native)


def run(args) -> int:
    solver = native_line_solver(args)
    g = None
    if solver is None:
        from connect4 import Geometry
        from connect4.errors import Connect4Error

        try:
            g = Geometry.parse(args.size, args.connect)
            if g.wide:  # past 64 bits: the wide solver, same protocol
                return _solve_wide(args, g, _chunks(args))
            solver = LineSolver(g, weak=args.weak, analyze=args.analyze, fresh=args.fresh, tt_log2=args.tt_log2)
        except Connect4Error as exc:
            print(f"c4 {args.command}: {exc}", file=sys.stderr)
            return 2
    code = _serve(solver, args)
    if g is not None and not getattr(args, "no_native", False):
        _write_native(g)
    return code


def _write_native(g) -> None:
    """After the answers: the batch kernel's machine code for the next run's fast start."""
    import logging

    from solver_svc.solver.native import board, export, is_current

    try:
        if not is_current(board(g.width, g.height, g.k)):
            export(g)
    except Exception as exc:  # the next run takes the numba path again: slower, never wrong
        logging.getLogger(__name__).warning("no fast start for the next run", extra={"error": repr(exc)})


def _chunks(args):
    """The lines to answer, from the arguments, else stdin as it comes."""
    if args.moves:
        return iter([list(args.moves)])
    try:
        sys.stdin.fileno()
        return _stdin_chunks()
    except (AttributeError, OSError, ValueError):  # a stdin without a file (tests)
        return iter([[line.rstrip("\r\n") for line in sys.stdin]])


def _serve(solver: LineSolver, args) -> int:
    chunks = _chunks(args)
    failed = 0
    number = 1
    out, err = sys.stdout, sys.stderr
    for lines in chunks:
        for _start, (answers, messages, _) in batches(lines, lambda chunk, i, n=number: solver.answer(chunk, n + i)):
            if messages:
                err.write("".join(m + "\n" for m in messages))
                err.flush()
                failed += len(messages)
            out.write("".join(a + "\n" for a in answers))
            out.flush()
        number += len(lines)
    return 1 if failed and args.moves else 0


def _solve_wide(args, g: Geometry, chunks) -> int:
    """A board past 64 bits: the same protocol on the wide solver (:mod:`c4.solve_wide`)."""
    from c4.solve_wide import run_wide

    return run_wide(args, g, chunks)
