"""The corrective audit and learning from lost games, against the solver."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from connect4 import Position
from connect4.book import MoveBook
from books.bookgen import corrective
from books.bookgen.corrective import engine_move, generate, header, write
from solver_svc.solver import Solver

REPO = Path(__file__).resolve().parents[2]
START = "2252576253462244111563365343671351441"[:27]  # a Pons L2_R1 game, 27 stones in


def _sign(x):
    return (x > 0) - (x < 0)


def test_corrective_entries_are_exactly_the_engine_blunders(tmp_path):
    g = Position().geometry
    start = Position.parse(START)
    depths = [2]
    findings, audited, _ = generate(g, start.ply + 3, depths, start=start, tt_log2=20)
    todo = corrective.positions(g, start.ply + 3, start)
    assert audited == len(todo) > 10
    s = Solver(tt_log2=20)
    flagged = {f.key for f in findings}
    for pos in todo:
        best_col, best = s.best_move(pos)
        col = engine_move(pos, 2)
        played = s.analyze(pos)[col]
        thrown = _sign(played) < _sign(best)
        assert thrown == (pos.key() in flagged), pos
        if thrown:
            f = next(f for f in findings if f.key == pos.key())
            assert (f.best_column, f.score) == (best_col, best)
    out = tmp_path / "corrective.txt"
    write(out, g, findings, header(g, start.ply + 3, depths, audited, len(findings), start, []))
    book = MoveBook.load(out)
    assert not book.problems and len(book) == len(findings)
    # the same audit with every verdict known in advance (the books' path) finds the same entries
    known = {pos.canonical_key(): s.solve(pos).score for pos in todo}
    again, _, _ = generate(g, start.ply + 3, depths, start=start, tt_log2=20, known=known)
    assert [(f.key, f.best_column, f.score) for f in again] == [(f.key, f.best_column, f.score) for f in findings]


def test_a_timed_audit_books_exactly_the_blunders_of_the_moves_it_recorded(tmp_path):
    """``--movetime-ms``: the engine on the clock, as engine:MS plays. Its moves
    are not reproducible, so the journal's recorded moves are checked."""
    g = Position().geometry
    start = Position.parse(START[:21])
    journal = tmp_path / "timed.journal"
    timed = corrective.Setting(movetime_ms=1)  # short enough to blunder now and then
    findings, audited, _ = generate(g, start.ply + 3, [timed], start=start, tt_log2=20, journal=journal)
    audits = [corrective.Finding.from_json(line) for line in journal.read_text().splitlines()]
    assert len(audits) == audited > 10 and all(set(a.engine_moves) == {"1 ms"} for a in audits)
    assert all(a.reached.keys() == {"1 ms"} for a in audits)  # the depth each search finished (0: none)
    s = Solver(tt_log2=20)
    flagged = {f.key for f in findings}
    for a in audits:
        pos = Position.from_moves(a.moves, g)
        scores = s.analyze(pos)
        best = max(v for v in scores if v is not None)
        assert (_sign(scores[a.engine_moves["1 ms"]]) < _sign(best)) == (a.key in flagged), a.moves
    out = tmp_path / "corrective.txt"
    write(out, g, findings, header(g, start.ply + 3, [timed], audited, len(findings), start, []))
    text = out.read_text()
    assert "--movetime-ms 1" in text and "as engine:MS plays, MS = 1 " in text
    assert all(f"1 ms (depth {f.reached['1 ms']}) plays" in text for f in findings), text
    threw = corrective.Finding(1, [3, 3], 3, 2, {"2000 ms": 0, "depth 12": 3}, {"2000 ms": 0, "depth 12": 1}, 1,
                               {"2000 ms": 21, "depth 12": 12})
    assert threw.comment(g).endswith(": win with 4; 2000 ms (depth 21) plays 1 (draw), depth 12 plays 4 (win)")


def test_an_interrupted_audit_resumes_from_its_journal(tmp_path, monkeypatch):
    g = Position().geometry
    start = Position.parse(START)
    journal = tmp_path / "corrective.txt.journal"
    first, audited, _ = generate(g, start.ply + 3, [2], start=start, tt_log2=20, journal=journal)
    lines = journal.read_text().splitlines()
    assert len(lines) == audited
    # a torn last line and a line of other depths are skipped, not trusted
    journal.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:10] + "\n"
                       + lines[0].replace('"engine_moves": {"depth 2"', '"engine_moves": {"depth 3"') + "\n")
    redone = []
    real_audit = corrective.audit
    monkeypatch.setattr(corrective, "audit", lambda pos, *a: redone.append(pos.key()) or real_audit(pos, *a))
    again, audited_again, _ = generate(g, start.ply + 3, [2], start=start, tt_log2=20, journal=journal)
    assert audited_again == audited
    assert redone == [corrective.Finding.from_json(lines[-1]).key]
    assert [(f.key, f.best_column, f.score) for f in again] == [(f.key, f.best_column, f.score) for f in first]


def test_shards_joined_give_the_whole_audit(tmp_path, monkeypatch):
    g = Position().geometry
    start = Position.parse(START)
    whole, audited, planned = generate(g, start.ply + 3, [2], start=start, tt_log2=20)
    parts = []
    for i in range(2):
        journal = tmp_path / f"shard{i}.journal"
        _, n, _ = generate(g, start.ply + 3, [2], start=start, tt_log2=20, journal=journal, shard=(i, 2))
        parts.append(n)
    assert sum(parts) == audited and min(parts) > 0
    joined = tmp_path / "joined.journal"
    joined.write_text((tmp_path / "shard0.journal").read_text() + (tmp_path / "shard1.journal").read_text())
    monkeypatch.setattr(corrective, "audit", lambda *a: pytest.fail("audited again"))
    again, n, planned_again = generate(g, start.ply + 3, [2], start=start, tt_log2=20, journal=joined, max_seconds=0)
    assert n == audited == planned == planned_again  # out of time at once: the journal's audits count
    assert [(f.key, f.best_column, f.score) for f in again] == [(f.key, f.best_column, f.score) for f in whole]


def test_a_shard_keeps_its_journal_for_the_join_and_a_whole_run_removes_it(tmp_path):
    def run(out, *extra):
        r = subprocess.run([sys.executable, "-m", "c4", "bookgen", "corrective", "--size", "5x4", "--stones", "3",
                            "--depths", "2", "--out", str(out), *extra], cwd=REPO, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr

    run(tmp_path / "s0.txt", "--shard", "0/2")
    run(tmp_path / "s1.txt", "--shard", "1/2")
    parts = [(tmp_path / f"s{i}.txt.journal").read_text() for i in range(2)]
    assert all(parts)
    (tmp_path / "all.txt.journal").write_text("".join(parts))
    run(tmp_path / "all.txt", "--max-seconds", "0")  # every audit from the joined journals
    run(tmp_path / "whole.txt")
    assert not (tmp_path / "all.txt.journal").exists() and not (tmp_path / "whole.txt.journal").exists()
    assert (tmp_path / "all.txt").read_text() == (tmp_path / "whole.txt").read_text()


@pytest.mark.parametrize("shard", ["2/2", "1", "a/3", "-1/2"])
def test_bad_shards_are_refused(shard):
    r = subprocess.run([sys.executable, "-m", "c4", "bookgen", "corrective", "--stones", "1", f"--shard={shard}"],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--shard wants I/N" in r.stderr


def test_known_scores_of_an_analysis_book_are_its_positions_and_children(tmp_path):
    g = Position().geometry
    lines = [ln for ln in (REPO / "books" / "7x6-analysis.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    from connect4.keys import position_from_key

    deep = [ln for ln in lines if position_from_key(int(ln.split()[0], 16), g).ply >= 12][:6]
    assert len(deep) == 6
    path = tmp_path / "7x6-analysis.txt"
    path.write_text("\n".join(deep) + "\n")
    known = corrective.known_from_books([path], g)
    s = Solver(tt_log2=20)
    assert len(known) > len(deep)
    for key, score in known.items():
        assert s.solve(position_from_key(key, g)).score == score


DRIVER = r"""
import json, sys
from connect4 import Geometry, Position
from solver_svc.solver import Solver
from books.bookgen.learn import learn_game
g = Geometry(5, 4)
s = Solver(g, tt_log2=20)
book = sys.argv[1]
# game 1: both play perfectly; the second player (the engine) loses or draws on merit
pos = Position(g)
while not pos.is_over:
    pos.play(s.best_move(pos)[0])
merit = list(pos.moves)
# game 2: the second player throws its result away at its first chance, then perfect play
pos = Position(g)
threw_at = None
while not pos.is_over:
    col, best = s.best_move(pos)
    if pos.to_move == 1 and threw_at is None:
        scores = s.analyze(pos)
        worse = [c for c, v in enumerate(scores) if v is not None and (v > 0) - (v < 0) < (best > 0) - (best < 0)]
        if worse:
            col, threw_at = worse[0], pos.ply + 1
    pos.play(col)
blunder = list(pos.moves)
r1 = learn_game(merit, g, engine="second", book=book, known_books=[])
r0 = learn_game(blunder, g, engine="second", book=book, known_books=[], write=False)
r2 = learn_game(blunder, g, engine="second", book=book, known_books=[])
r3 = learn_game(blunder, g, engine="second", book=book, known_books=[])
print(json.dumps({"merit": r1.as_dict(), "dry": r0.as_dict(), "blunder": r2.as_dict(), "again": r3.as_dict(), "threw_at": threw_at}))
"""


def test_learn_books_thrown_plies_with_provenance(tmp_path):
    book = tmp_path / "5x4-corrective.txt"
    out = subprocess.run([sys.executable, "-c", DRIVER, str(book)], cwd=REPO, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["merit"]["threw"] == [] and not r["merit"]["unproved"]
    assert "never threw" in r["merit"]["verdict"]
    assert r["threw_at"] is not None
    threw = r["blunder"]["threw"]
    assert [v["ply"] for v in threw][0] == r["threw_at"] and threw[0]["booked"]
    # the dry run before it wrote nothing and said what it would have written
    dry = r["dry"]
    assert dry["dry_run"] and dry["would_book"] == len(threw) and not any(v["booked"] for v in dry["threw"])
    n = len(threw)
    assert f"dry run: {n} new corrective entr{'y' if n == 1 else 'ies'} would be written" in dry["verdict"]
    text = book.read_text()
    moves = r["blunder"]["moves"]
    assert f"# learned from {moves} (threw {threw[0]['threw']} at ply {r['threw_at']})" in text
    # learning the same game again books nothing twice
    assert not any(v["booked"] for v in r["again"]["threw"])
    from connect4 import Geometry

    g = Geometry(5, 4)
    b = MoveBook.load(book, g)
    assert len(b) == len(threw) and not b.problems
    pos = Position.from_moves([int(c) - 1 for c in moves][: r["threw_at"] - 1], g)
    assert b.lookup(pos).column + 1 == threw[0]["best"]
