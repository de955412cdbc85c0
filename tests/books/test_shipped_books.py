"""The shipped books: well-formed, a complete tree, and right on a sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect4 import STANDARD, Position
from connect4.book import MoveBook
from connect4.keys import canonical, position_from_key
from books.bookgen.opening import _stones
from solver_svc.solver import Solver

BOOKS = Path(__file__).resolve().parents[2] / "books"


@pytest.fixture(scope="module")
def opening():
    book = MoveBook.load(BOOKS / "7x6-opening.txt")
    assert not book.problems
    return book


# The complete trees the header lists: (start, most stones of an entry, whether the book side's
# every move of the best score is expanded or only its book move). From the empty board: every tied
# move of the first player to its sixth move, and its book move to its seventh; 4444 (the earlier
# seventh-move tree, inside that one); the trees from 1, 2, 3 and 4 hold the second player's seven
# moves after each first move (5, 6 and 7 are mirror images of 3, 2 and 1).
TREES = [("", 10, True), ("", 12, False), ("4444", 12, False), ("1", 13, False), ("2", 13, False),
         ("3", 13, False), ("4", 13, False)]
TIES_JOURNAL = BOOKS / "journals" / "opening-ties" / "7x6-opening.ties.journal"


@pytest.fixture(scope="module")
def ties_journal() -> dict[int, tuple[list[int], int]]:
    """The ties run's journal: smaller key -> (every 0-based column of the best score, in that
    orientation; the score)."""
    journal: dict[int, tuple[list[int], int]] = {}
    for line in TIES_JOURNAL.read_text(encoding="utf-8").splitlines():
        key, cols, score = line.split()
        journal[int(key, 16)] = ([int(c) - 1 for c in cols.split(",")], int(score))
    return journal


@pytest.fixture(scope="module")
def ties(ties_journal):
    """Every move of the best score and that score, of a position of the ties tree: from the
    journal or, for the positions the run took from it, the analysis book."""
    from connect4.book import AnalysisBook

    analysis = AnalysisBook.load(BOOKS / "7x6-analysis.txt")

    def of(pos: Position) -> tuple[list[int], int] | None:
        key, flipped = canonical(pos)
        if key in ties_journal:
            cols, score = ties_journal[key]
            return sorted(pos.geometry.width - 1 - c if flipped else c for c in cols), score
        scores = analysis.lookup(pos)
        if scores is None:
            return None
        best = max(s for s in scores if s is not None)
        return [c for c, s in enumerate(scores) if s == best], best

    return of


def test_opening_keys_round_trip_and_the_trees_are_complete(opening, ties):
    g = opening.geometry
    for key in sorted(opening.entries)[::97]:  # key -> position -> key (the walk below checks every entry)
        assert position_from_key(key, g).key() == key
    seen = set()
    for start, most, every_tie in TREES:
        frontier = [Position.parse(start) if start else Position()]
        expanded = set()  # of this tree: a transposition (or a mirror image) is expanded once
        while frontier:  # the book side's move (every tied one), every reply of the other player
            pos = frontier.pop()
            if pos.canonical_key() in expanded:
                continue
            expanded.add(pos.canonical_key())
            e = opening.lookup(pos)
            assert e is not None and pos.can_play(e.column), (start, pos)
            assert pos.canonical_key() in opening.entries  # stored under the smaller key
            seen.add(pos.canonical_key())
            columns = [e.column]
            if every_tie:
                tied = ties(pos)
                assert tied is not None and e.column in tied[0] and e.score == tied[1], (start, pos)
                columns = tied[0]
            for col in columns:
                child = pos.played(col)
                if child.is_over or pos.ply + 2 > most:
                    continue
                frontier += [gp for gp in (child.played(r) for r in child.legal_moves()) if not gp.is_over]
    assert len(seen) == len(opening)  # nothing else in the book


def test_each_ties_entry_holds_the_centre_most_of_its_tied_moves(opening, ties_journal):
    """In the smaller key's orientation, as the solver breaks ties, so the single-move trees the
    first player's book held before (and Connect4-rs's own) stay inside the ties tree."""
    order = opening.geometry.center_order()
    for key, (cols, score) in ties_journal.items():
        e = opening.entries.get(key)
        if e is not None:
            assert (e.column, e.score) == (min(cols, key=order.index), score), key


def test_a_sample_of_the_ties_journal_agrees_with_the_solver(ties, ties_journal):
    """The tied moves of positions with 10 and 8 stones, each column's score solved afresh."""
    g = STANDARD
    s = Solver(tt_log2=22)
    for stones in (10, 8):
        keys = sorted(k for k in ties_journal if _stones(k, g) == stones)[::997][:3]
        for key in keys:
            pos = position_from_key(key, g)
            scores = s.analyze(pos)
            best = max(x for x in scores if x is not None)
            assert ties(pos) == ([c for c, x in enumerate(scores) if x == best], best), key
            s.reset()


def test_opening_sample_agrees_with_the_solver(opening):
    g = opening.geometry
    s = Solver(tt_log2=22)
    deepest = [k for stones in (10, 12) for k in sorted(k for k in opening.entries if _stones(k, g) == stones)[::211][:3]]
    for key in deepest:
        e = opening.entries[key]
        assert s.best_move(position_from_key(key, g)) == (e.column, e.score)
        s.reset()


def test_corrective_book_is_well_formed():
    book = MoveBook.load(BOOKS / "7x6-corrective.txt")
    assert not book.problems
    learned = _learned_keys(BOOKS / "7x6-corrective.txt")
    for key, e in book.entries.items():
        pos = position_from_key(key, book.geometry)
        assert pos.can_play(e.column)
        # the audit books the second player (the engine) to move; c4 learn books whichever side the engine was
        assert pos.ply % 2 == 1 or key in learned, hex(key)


def test_learned_corrective_entries_agree_with_the_solver():
    book = MoveBook.load(BOOKS / "7x6-corrective.txt")
    s = Solver(tt_log2=22)
    for key in sorted(_learned_keys(BOOKS / "7x6-corrective.txt"))[:3]:
        e = book.entries[key]
        assert s.best_move(position_from_key(key, book.geometry))[1] == e.score
        s.reset()


def _learned_keys(path: Path) -> set[int]:
    """Keys of the entries that follow a ``# learned from`` comment (appended by c4 learn)."""
    keys, after_comment = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("# learned from"):
            after_comment = True
        elif line.strip() and not line.startswith("#"):
            if after_comment:
                keys.add(int(line.split()[0], 16))
            after_comment = False
    return keys


def test_the_analysis_book_opens_with_the_published_values_of_the_first_move():
    """The empty board's column scores are the classic result (Allis, Tromp; Pons'
    solver prints them): only the centre wins. Each one-stone position's own
    analysis agrees with it, so the page's Analyze and the perfect player's
    reply to any first move come from the book."""
    from connect4.bookset import BookSet

    books = BookSet.load_files([BOOKS / "7x6-analysis.txt"])
    assert books.analysis(Position()) == (-2, -1, 0, 1, 0, -1, -2)
    for c, score in enumerate((-2, -1, 0, 1, 0, -1, -2)):
        reply = books.analysis(Position.from_moves([c]))
        assert reply is not None and max(reply) == -score, c  # the child's value, from its side to move


def test_the_analysis_book_holds_the_whole_tree_and_agrees_with_the_move_book(opening):
    """Every position of the six-move tree, either side to move, 0 to 11 stones
    (the header's COMPLETE claim), has its own line; on the first player's
    positions the move book's column scores that line's best. The two books
    were made by different programs (bookgen, analysis_gen)."""
    from books.analysis_gen import tree_positions
    from connect4.book import AnalysisBook

    book = AnalysisBook.load(BOOKS / "7x6-analysis.txt")
    assert not book.problems
    positions = tree_positions(opening, opening.geometry, 0, 11)
    assert len(positions) == 1 + 1 + 4 + 4 + 25 + 25 + 145 + 119 + 651 + 448 + 2452 + 1460
    for pos in positions:
        scores = book.lookup(pos)
        assert scores is not None, pos.moves
        if pos.to_move == 0:
            e = opening.lookup(pos)
            assert scores[e.column] == max(s for s in scores if s is not None) == e.score, pos.moves


def test_every_position_of_up_to_three_stones_has_a_line_that_agrees_with_its_parent():
    """The header's claim: all 1 + 7 + 49 + 343 positions (mirror images stored once), so
    Show solution works from the first move of every game; a line's best is
    minus its parent's column score (the lines come from separate runs)."""
    from connect4.book import AnalysisBook

    book = AnalysisBook.load(BOOKS / "7x6-analysis.txt")
    layer = [Position()]
    for _ in range(4):
        below = []
        for pos in layer:
            scores = book.lookup(pos)
            assert scores is not None, pos.moves
            for c in pos.legal_moves():
                child = pos.played(c)
                if child.ply <= 3:
                    assert max(s for s in book.lookup(child) if s is not None) == -scores[c], child.moves
                    below.append(child)
        layer = below


def test_every_four_stone_position_agrees_with_its_parent():
    """Every 4-stone position in play has a line (rounds 15-16 of 1 Dec: after 1.c, 1.d and 1.e;
    c4 bookgen analysis --stones 4 on 7 Dec: after 1.a, 1.b, 1.f and 1.g), and its best is minus
    its parent's column score."""
    from itertools import product

    from connect4.book import AnalysisBook

    book = AnalysisBook.load(BOOKS / "7x6-analysis.txt")
    seen = set()
    for moves in product(range(7), repeat=4):
        pos = Position.from_moves(moves)
        parent = Position.from_moves(moves[:3])
        if parent.is_over or pos.is_over:
            continue
        scores = book.lookup(pos)
        assert scores is not None, moves
        assert max(s for s in scores if s is not None) == -book.lookup(parent)[moves[3]], moves
        seen.add(canonical(pos)[0])
    assert len(seen) == 568


JOURNALS = BOOKS / "journals" / "corrective5"


def test_the_five_stone_audit_covers_every_position_and_the_book_holds_its_entries():
    """The five-stone audit's journals (kept so the audit can resume, docs/bookgen.md) hold one
    verdict per position the engine (second player) meets to 5 stones, mirror images once, each
    position once; every verdict with an entry (the engine at 2 s throws a win or a draw away) is
    in the shipped book, same move and score."""
    import json

    from books.analysis_gen import enumerate_positions

    book = MoveBook.load(BOOKS / "7x6-corrective.txt")
    lines = [json.loads(ln) for path in sorted(JOURNALS.glob("*.journal")) for ln in path.read_text().splitlines()]
    audited = [canonical(Position.from_moves(v["moves"]))[0] for v in lines]
    assert len(audited) == len(set(audited))
    engine_to_move = {canonical(p)[0] for p in enumerate_positions(STANDARD, 1, 5) if p.ply % 2 == 1}
    missing = engine_to_move - set(audited)
    assert len(engine_to_move) == 2269
    assert set(audited) <= engine_to_move
    assert not missing, f"{len(missing)} positions not audited yet (resume: docs/bookgen.md)"
    booked = 0
    for v in lines:
        pos = Position.from_moves(v["moves"])
        assert pos.key() == v["key"]
        if v["best_column"] is not None:
            e = book.lookup(pos)
            assert e is not None and (e.column, e.score) == (v["best_column"], v["score"]), v["moves"]
            assert min(v["engine_outcomes"].values()) < v["outcome"], v["moves"]  # why it has an entry
            booked += 1
    assert booked > 100


def test_corrective_entries_to_five_stones_agree_with_the_analysis_book():
    """An audited entry's score is minus its parent's column score where the analysis book holds
    the parent (every position to 4 stones), and its move is a move of that score."""
    from connect4.book import AnalysisBook

    book = MoveBook.load(BOOKS / "7x6-corrective.txt")
    analysis = AnalysisBook.load(BOOKS / "7x6-analysis.txt")
    checked = 0
    for line in (BOOKS / "7x6-corrective.txt").read_text().splitlines():
        head = line[1:].split(":", 1)[0].strip() if line.startswith("# ") and ":" in line else ""
        if not head.isdigit() or len(head) > 5:
            continue
        moves = [int(d) - 1 for d in head]
        pos = Position.from_moves(moves)
        e = book.lookup(pos)
        assert e is not None and pos.ply % 2 == 1, head
        parent = analysis.lookup(Position.from_moves(moves[:-1]))
        if parent is not None:
            assert e.score == -parent[moves[-1]], head
            checked += 1
        own = analysis.lookup(pos)
        if own is not None:
            assert own[e.column] == e.score == max(s for s in own if s is not None), head
    assert checked == 172  # every entry to 5 stones: the analysis book holds every parent to 4 stones
