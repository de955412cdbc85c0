"""``c4 bench solver --vs CMD``: our solver and another one, side by side.

Both solve the same lines of each set in the same run, interleaved chunk by
chunk (ours then the other's, the other's first in every second round), each
position from a fresh table: ours by a new table epoch, the other by whatever
its program does between lines (Pons' benchmark main calls
``solver.reset()`` before each position). Per set and round:

* ours: the CPU time (this process) and the wall time of the solver calls,
  the nodes it counts;
* the other's: its CPU time over the chunk, read from Linux's schedstat of
  its process (every thread), and the wall time from writing the first line
  to reading the last answer, both **minus its fixed cost per line**: the
  median over ``CALIBRATION_LINES`` lines that need no search (the side to
  move wins at once), measured in the same round; that cost is its parsing,
  its I/O and whatever it does for a fresh table (Pons' reset clears an
  84 MB table, about 6-8 ms of CPU, much more than a short search). When it
  prints a fourth field (Pons: the microseconds of ``solve()`` alone, wall
  clock) that is its *own timer*, and its nodes when it prints a third. A
  wall clock counts the time the process waited for a core on a loaded
  machine, so its timer is taken per line as the smallest over the rounds.
* per solve (``solve_ratio``): our CPU inside the solver calls alone (no
  parsing, no answer strings) over the other's own timer, when it prints
  one (Pons: a wall clock around ``solve()`` alone, not his parsing, output
  or reset): the search against the search;
* the ratio: our CPU time over the other's time, where its time is the
  smaller of its net CPU time (when above 0) and its own timer: a choice
  that can only favour the other. ``basis`` says which one it was;
  ``noisy-cpu`` marks a net CPU whose standard error (from the spread of the
  fixed cost) is over ``RELIABLE`` of it: mostly subtracted fixed cost. The
  report gives the median over rounds and the range.

Any failure of the other (it cannot start, exits, answers garbage, answers a
line other than the one sent, rejects a position, stays silent past
``--vs-timeout``) stops the benchmark with a message naming the line.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

from ._line_process import Answer, LineProcess, LineProcessFailed, parse_argv

CALIBRATION = "121212"  # the first player has three in column 1 and moves: an immediate win
CALIBRATION_LINES = 50
CHUNK_S = 0.05  # our solver's time per chunk: many short positions share one call, as in c4 solve
RELIABLE = 0.05  # a net CPU whose standard error is over this fraction of it is "noisy-cpu"


def _expected(score: int, weak: bool) -> int:
    return (score > 0) - (score < 0) if weak else score


@dataclass
class Round:
    """One set, one round: totals over its positions."""

    n: int = 0
    ours_cpu_s: float = 0.0
    ours_wall_s: float = 0.0
    ours_solve_cpu_s: float = 0.0  # of that CPU, inside the solver calls (no parsing, no answer strings)
    ours_nodes: int = 0
    ours_correct: int = 0
    other_cpu_ns: int | None = 0
    other_wall_s: float = 0.0
    other_timer_us: int | None = 0
    timers: list[int] | None = field(default_factory=list)  # its own timer, line by line
    other_nodes: int | None = 0
    other_correct: int = 0
    fixed_cpu_ns: float | None = 0.0
    fixed_cpu_sd_ns: float = 0.0
    fixed_wall_s: float = 0.0
    wrong: list[str] = field(default_factory=list)

    def figures(self, timer_floor: float | None) -> dict:
        """Per-position figures; ``timer_floor``: the other's own timer per line, the smallest of the rounds."""
        n = self.n
        other_cpu = None
        if self.other_cpu_ns is not None and self.fixed_cpu_ns is not None:
            other_cpu = max(0.0, (self.other_cpu_ns - n * self.fixed_cpu_ns) / n / 1e3)
        other_wall = max(0.0, (self.other_wall_s - n * self.fixed_wall_s) / n * 1e6)
        timer = timer_floor
        # the net CPU subtracts n fixed costs estimated from CALIBRATION_LINES lines: its standard error
        se_us = self.fixed_cpu_sd_ns / 1e3 * (1 / n + 1.57 / CALIBRATION_LINES) ** 0.5
        # the smaller of its net CPU (when above 0) and its own timer: a choice that can only favour it
        candidates = []
        if other_cpu is not None and other_cpu > 0:
            reliable = se_us <= RELIABLE * other_cpu
            candidates.append((other_cpu, "cpu" if reliable else "noisy-cpu"))
        if timer is not None:
            candidates.append((timer, "timer"))
        other_time, basis = min(candidates) if candidates else (other_wall, "wall")
        ours_cpu = self.ours_cpu_s / n * 1e6
        ours_solve = self.ours_solve_cpu_s / n * 1e6
        return {
            "ours_cpu_us": ours_cpu,
            "ours_wall_us": self.ours_wall_s / n * 1e6,
            "ours_nodes": self.ours_nodes / n,
            "other_cpu_us": other_cpu,
            "other_wall_us": other_wall,
            "other_timer_us": None if self.other_timer_us is None else self.other_timer_us / n,
            "other_timer_floor_us": timer,
            "other_nodes": None if self.other_nodes is None else self.other_nodes / n,
            "other_fixed_cpu_us": None if self.fixed_cpu_ns is None else self.fixed_cpu_ns / 1e3,
            "other_fixed_wall_us": self.fixed_wall_s * 1e6,
            "other_compared_us": other_time,
            "basis": basis,
            "ratio": ours_cpu / other_time if other_time and other_time > 0 else None,
            "ours_solve_cpu_us": ours_solve,
            # per solve: our CPU inside the solver calls over its own timer of its solve() (Pons: gettimeofday)
            "solve_ratio": ours_solve / timer if timer else None,
        }


class Versus:
    def __init__(self, local, other: LineProcess, weak: bool):
        self.local = local
        self.other = other
        self.weak = weak

    def calibrate(self, r: Round) -> None:
        """The other's fixed cost of a line (median CPU and wall of lines it answers without a search)."""
        want = 1 if self.weak else 18
        cpus, walls = [], []
        for i in range(CALIBRATION_LINES):
            c0, w0 = self.other.cpu_ns(), time.perf_counter()
            answer = self.other.ask(CALIBRATION, f"calibration line {i + 1}")
            w1, c1 = time.perf_counter(), self.other.cpu_ns()
            if answer.score != want:
                raise LineProcessFailed(f"calibration line {i + 1} ({CALIBRATION}): the other solver scored "
                                        f"{answer.score}, the score is {want}")
            walls.append(w1 - w0)
            cpus.append(None if c0 is None or c1 is None else c1 - c0)
        r.fixed_wall_s = statistics.median(walls)
        measured = [c for c in cpus if c is not None]
        if len(measured) < len(cpus):
            r.fixed_cpu_ns = None
        else:
            r.fixed_cpu_ns = statistics.median(measured)
            r.fixed_cpu_sd_ns = statistics.stdev(measured)

    def ours(self, rows, start: int, r: Round) -> None:
        lines = self.local.lines
        s0 = lines.solve_cpu_s
        c0, w0 = time.process_time(), time.perf_counter()
        _, _, batch = lines.answer([m for m, _ in rows])
        w1, c1 = time.perf_counter(), time.process_time()
        r.ours_solve_cpu_s += lines.solve_cpu_s - s0
        r.ours_cpu_s += c1 - c0
        r.ours_wall_s += w1 - w0
        r.ours_nodes += int(batch.nodes.sum())
        answers = zip(rows, batch.scores.tolist(), batch.errors.tolist(), strict=True)
        for i, ((moves, expected), score, (code, _)) in enumerate(answers):
            if code == 0 and score == _expected(expected, self.weak):
                r.ours_correct += 1
            else:
                r.wrong.append(f"ours: line {start + i + 1} ({moves}) gave {score if code == 0 else 'an error'}, "
                               f"expected {expected}")

    def theirs(self, rows, start: int, name: str, r: Round) -> None:
        answers: list[Answer] = []
        c0, w0 = self.other.cpu_ns(), time.perf_counter()
        for i, (moves, _) in enumerate(rows):
            answers.append(self.other.ask(moves, f"{name} line {start + i + 1}"))
        w1, c1 = time.perf_counter(), self.other.cpu_ns()
        r.other_wall_s += w1 - w0
        if c0 is None or c1 is None or r.other_cpu_ns is None:
            r.other_cpu_ns = None
        else:
            r.other_cpu_ns += c1 - c0
        for i, ((moves, expected), a) in enumerate(zip(rows, answers, strict=False)):
            if a.score == _expected(expected, self.weak):
                r.other_correct += 1
            else:
                r.wrong.append(f"other: line {start + i + 1} ({moves}) gave {a.score}, expected {expected}")
            r.other_nodes = None if a.nodes is None or r.other_nodes is None else r.other_nodes + a.nodes
            if a.time_us is None or r.timers is None or r.other_timer_us is None:
                r.other_timer_us = r.timers = None
            else:
                r.other_timer_us += a.time_us
                r.timers.append(a.time_us)

    def round(self, name: str, rows, ours_first: bool) -> Round:
        """Chunks sized by our solver's time alone (about CHUNK_S a call)."""
        r = Round(n=len(rows))
        self.calibrate(r)
        start, size = 0, 1
        while start < len(rows):
            part = rows[start:start + size]
            spent = r.ours_wall_s
            if ours_first:
                self.ours(part, start, r)
                self.theirs(part, start, name, r)
            else:
                self.theirs(part, start, name, r)
                self.ours(part, start, r)
            per_line = (r.ours_wall_s - spent) / len(part)
            start += len(part)
            size = max(1, min(4096, int(CHUNK_S / max(per_line, 1e-7))))
        return r


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def timer_floor(rounds: list[Round]) -> float | None:
    """Mean over lines of the other's own timer, each line's smallest over the rounds."""
    if any(r.timers is None for r in rounds):
        return None
    return sum(min(t) for t in zip(*(r.timers for r in rounds), strict=False)) / rounds[0].n


def summarize(name: str, rounds: list[Round]) -> dict:
    floor = timer_floor(rounds)
    figs = [r.figures(floor) for r in rounds]
    out = {"set": name, "n": rounds[0].n, "rounds": len(rounds),
           "ours_correct": min(r.ours_correct for r in rounds), "other_correct": min(r.other_correct for r in rounds)}
    for key in figs[0]:
        if key != "basis":
            out[key] = _median(f[key] for f in figs)
    ratios = [f["ratio"] for f in figs if f["ratio"] is not None]
    out["basis"] = statistics.mode(f["basis"] for f in figs)
    out["ratio_min"] = min(ratios) if ratios else None
    out["ratio_max"] = max(ratios) if ratios else None
    solve = [f["solve_ratio"] for f in figs if f["solve_ratio"] is not None]
    out["solve_ratio_min"] = min(solve) if solve else None
    out["solve_ratio_max"] = max(solve) if solve else None
    return out


def _fmt(x, digits: int = 1) -> str:
    if x is None:
        return "-"
    return f"{x:,.{digits}f}"


def print_table(result: dict) -> None:
    print(f"ours vs {result['vs']!r}: {'weak' if result['weak'] else 'strong'}, fresh table per position, "
          f"{result['rounds']} rounds interleaved, medians over rounds; load {result['load_start']:.2f} -> "
          f"{result['load_end']:.2f}")
    head = ("set", "n", "ok ours", "ok other", "ours cpu us", "ours wall us", "other cpu us", "other timer us",
            "other wall us", "ours/other", "range", "other basis", "ours solve us", "solve/timer", "range",
            "ours nodes", "other nodes", "other fixed us")
    rows = []
    for s in result["sets"]:
        rows.append((s["set"], str(s["n"]), str(s["ours_correct"]), str(s["other_correct"]),
                     _fmt(s["ours_cpu_us"]), _fmt(s["ours_wall_us"]), _fmt(s["other_cpu_us"]),
                     _fmt(s["other_timer_floor_us"]), _fmt(s["other_wall_us"]), _fmt(s["ratio"], 2),
                     f"{_fmt(s['ratio_min'], 2)}-{_fmt(s['ratio_max'], 2)}", s["basis"], _fmt(s["ours_solve_cpu_us"]),
                     _fmt(s["solve_ratio"], 2), f"{_fmt(s['solve_ratio_min'], 2)}-{_fmt(s['solve_ratio_max'], 2)}",
                     _fmt(s["ours_nodes"]),
                     _fmt(s["other_nodes"]), _fmt(s["other_fixed_cpu_us"], 0)))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    for line in (head, *rows):
        cells = enumerate(zip(line, widths, strict=True))
        print("  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in cells))
    print("other cpu / wall: per position, net of its fixed cost per line (other fixed us: CPU of a line it "
          "answers without a search); other timer: its own, per line the smallest of the rounds; ours/other: "
          "our CPU over the other's time (other basis): the smaller of its net CPU and its own timer "
          f"(noisy-cpu: a net CPU whose standard error is over {RELIABLE:.0%} of it); per solve: ours solve: our "
          "CPU inside the solver calls alone (no parsing, no answer strings), solve/timer: that over the other's "
          "own timer of its search (Pons: solve() alone)")


def run_versus(args, sets, make_local) -> int:
    """``sets``: [(name, [(moves, score)])]. Exit 0 when both solvers got every line right."""
    try:
        argv = parse_argv(args.vs)
    except ValueError as exc:
        print(f"c4 bench solver: --vs: {exc}", file=sys.stderr)
        return 2
    local = make_local()
    load_start = os.getloadavg()[0]
    result = {"vs": args.vs, "weak": args.weak, "rounds": args.rounds, "load_start": load_start, "sets": []}
    other = None
    all_right = True
    try:
        local.warm()
        other = LineProcess(argv, args.vs_timeout)
        from .solver import WARM_UP

        other.ask(WARM_UP, "warm-up line")
        versus = Versus(local, other, args.weak)
        for name, rows in sets:
            rounds = []
            for k in range(args.rounds):
                rounds.append(versus.round(name, rows, ours_first=k % 2 == 0))
                print(f"  {name}: round {k + 1}/{args.rounds} done, ratio "
                      f"{_fmt(rounds[-1].figures(timer_floor(rounds[-1:]))['ratio'], 2)}", file=sys.stderr, flush=True)
            for line in rounds[0].wrong:
                print(f"wrong: {line}", file=sys.stderr)
            summary = summarize(name, rounds)
            all_right &= summary["ours_correct"] == summary["other_correct"] == summary["n"]
            result["sets"].append(summary)
    except LineProcessFailed as exc:
        print(f"c4 bench solver: --vs {args.vs!r}: {exc}", file=sys.stderr)
        return 1
    finally:
        if other is not None:
            other.close()
    result["load_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0 if all_right else 1
