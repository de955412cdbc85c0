"""The gate's four checks against a cell-by-cell brute force, its reasons, and
the study's guarantee: a guarded move never lets the opponent win next move
unless every column does. Exhaustive on every position to a few plies, on
every position of a small board, and on random positions of whole games."""

from __future__ import annotations

import random

import pytest

from connect4 import Geometry, Position
from connect4.gate import CHECKS, best_columns, blocks_threat, check_move, guard, no_loss_in_two, not_under_threat, \
    takes_win

DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))


# -- a plain grid oracle, no bitboards ---------------------------------------------------
class Grid:
    def __init__(self, pos: Position):
        g = self.g = pos.geometry
        self.cells = [[pos.cell(c, r) for r in range(g.height)] for c in range(g.width)]
        self.to_move = pos.to_move
        self.filled = pos.ply

    def legal(self) -> list[int]:
        return [c for c in range(self.g.width) if self.cells[c][-1] is None]

    def landing(self, c: int) -> int:
        return self.cells[c].index(None)

    def completes(self, c: int, r: int, who: int) -> bool:
        """Would a stone of ``who`` at (c, r) make a line of K through it?"""
        for dc, dr in DIRS:
            run = 1
            for sign in (1, -1):
                i = 1
                while True:
                    cc, rr = c + sign * i * dc, r + sign * i * dr
                    if not (0 <= cc < self.g.width and 0 <= rr < self.g.height) or self.cells[cc][rr] != who:
                        break
                    run, i = run + 1, i + 1
            if run >= self.g.k:
                return True
        return False

    def wins_now(self, c: int, who: int | None = None) -> bool:
        who = self.to_move if who is None else who
        return self.cells[c][-1] is None and self.completes(c, self.landing(c), who)

    def play(self, c: int) -> None:
        self.cells[c][self.landing(c)] = self.to_move
        self.to_move ^= 1
        self.filled += 1

    def undo(self, c: int) -> None:
        r = self.landing(c) - 1 if self.cells[c][-1] is None else self.g.height - 1
        self.cells[c][r] = None
        self.to_move ^= 1
        self.filled -= 1

    def full(self) -> bool:
        return self.filled == self.g.cells

    def opponent_wins_after(self, c: int) -> bool:
        """After the mover plays c (not a win), can the other side win at once?"""
        self.play(c)
        try:
            return not self.full() and any(self.wins_now(m) for m in self.legal())
        finally:
            self.undo(c)


def ref_checks(pos: Position, col: int) -> tuple[bool, bool, bool, bool]:
    g = Grid(pos)
    me, opp = g.to_move, 1 - g.to_move
    legal = g.legal()
    wins = [c for c in legal if g.wins_now(c)]
    if col in wins:
        return True, True, True, True
    take = not wins
    threats = [c for c in legal if g.wins_now(c, opp)]
    block = not threats or col in threats
    r = g.landing(col)
    under = r + 1 < g.g.height and g.completes(col, r + 1, opp) and g.cells[col][r + 1] is None
    safe2 = True
    g.play(col)
    if not g.full():
        for reply in g.legal():
            if g.wins_now(reply):
                safe2 = False
                break
            g.play(reply)
            moves = g.legal()
            if not g.full() and not any(g.wins_now(m) for m in moves) and all(map(g.opponent_wins_after, moves)):
                safe2 = False
            g.undo(reply)
            if not safe2:
                break
    g.undo(col)
    assert me == g.to_move
    return take, block, not under, safe2


def lets_opponent_win(pos: Position, col: int) -> bool:
    g = Grid(pos)
    return not g.wins_now(col) and g.opponent_wins_after(col)


# -- positions ---------------------------------------------------------------------------
def every_position(g: Geometry, plies: int) -> list[Position]:
    """Every distinct position not over, reached in at most ``plies`` moves."""
    seen, out, frontier = set(), [], [Position(g)]
    for _ in range(plies + 1):
        nxt = []
        for pos in frontier:
            if pos.is_over or pos.key() in seen:
                continue
            seen.add(pos.key())
            out.append(pos)
            nxt.extend(pos.played(c) for c in pos.legal_moves())
        frontier = nxt
    return out


def random_positions(g: Geometry, games: int, seed: int) -> list[Position]:
    """Every position (not over) of ``games`` random games: threats of all kinds."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        pos = Position(g)
        while not pos.is_over:
            out.append(pos.copy())
            pos.play(rng.choice(pos.legal_moves()))
    return out


def assert_guarantee(positions: list[Position]) -> int:
    """The guarantee on every proposal of every position; returns the overrides seen."""
    overrides = 0
    for pos in positions:
        legal = pos.legal_moves()
        safe = {c for c in legal if not lets_opponent_win(pos, c)}
        for col in legal:
            verdict = guard(pos, col)
            assert pos.can_play(verdict.played)
            if safe:
                assert verdict.played in safe, (pos, col, verdict)
            if all(verdict.checks):
                assert verdict.played == col and not verdict.failed
            overrides += verdict.overridden
    return overrides


def test_checks_equal_the_brute_force_on_every_position_to_4_plies_and_random_games():
    positions = every_position(Geometry(7, 6), 4) + random_positions(Geometry(7, 6), 40, seed=5)
    for pos in positions:
        for col in pos.legal_moves():
            assert tuple(map(bool, check_move(pos, col))) == ref_checks(pos, col), (pos, col)


def test_checks_equal_the_brute_force_on_small_boards():
    for g in (Geometry(4, 4, 3), Geometry(5, 4, 3), Geometry(3, 3, 3)):
        for pos in every_position(g, 6) + random_positions(g, 60, seed=2):
            for col in pos.legal_moves():
                assert tuple(map(bool, check_move(pos, col))) == ref_checks(pos, col), (pos, col)


@pytest.mark.slow
def test_guarantee_on_every_7x6_position_to_5_plies():
    positions = every_position(Geometry(7, 6), 5)
    assert len(positions) == 1 + 7 + 49 + 238 + 1120 + 4263
    assert_guarantee(positions)


@pytest.mark.slow
def test_guarantee_on_every_4x4_connect_3_position():
    positions = every_position(Geometry(4, 4, 3), 16)
    assert len(positions) > 1000
    assert assert_guarantee(positions) > 100


@pytest.mark.full
def test_guarantee_on_every_7x6_position_to_6_plies():
    positions = every_position(Geometry(7, 6), 6)
    assert len(positions) == 1 + 7 + 49 + 238 + 1120 + 4263 + 16422
    assert_guarantee(positions)


def test_guarantee_on_random_7x6_games():
    positions = random_positions(Geometry(7, 6), 150, seed=11)
    assert len(positions) > 2000
    assert assert_guarantee(positions) > 500  # random games are full of threats


def test_guarantee_on_random_games_of_other_shapes():
    for g, seed in ((Geometry(5, 4, 3), 3), (Geometry(8, 7), 4), (Geometry(6, 5, 4), 6)):
        assert_guarantee(random_positions(g, 30, seed=seed))


# -- reasons and the choice ----------------------------------------------------------------
def test_reasons_name_columns_and_cells():
    pos = Position.parse("17273")  # F a1 b1 c1, S g1 g2: S to move must block d1
    ch = blocks_threat(pos, 0)
    assert not ch and ch.name == "blocks_threat" and ch.reason == "a leaves the opponent's win at d1 open"
    assert blocks_threat(pos, 3).reason == "d blocks the opponent's win at d1"
    pos = Position.parse("171712")  # F a1 a2 a3: F wins at a4
    assert takes_win(pos, 3).reason == "d misses the win: a wins at once"
    assert takes_win(pos, 0).reason == "a wins at once"
    # F c1 a2 b2 c2, S a1 b1 g1; S to move: F's winning cell d2 sits over the empty d1.
    pos = Position.parse("3112273")
    assert not_under_threat(pos, 3).reason == "d lands directly under the opponent's winning cell d2"
    assert no_loss_in_two(pos, 3).reason == "after d, the opponent wins at once with d"
    # Greedy's c lets the opponent make two threats at once.
    pos = Position.parse("133375")
    ch = no_loss_in_two(pos, 2)
    assert not ch and ch.reason.startswith("after c, the opponent's reply ") and "two wins at" in ch.reason


def test_guard_override_and_summary():
    pos = Position.parse("3112273")
    v = guard(pos, 3)
    assert v.overridden and v.proposed == 3 and v.played == best_columns(pos)[0]
    assert [ch.name for ch in v.failed] == ["not_under_threat", "no_loss_in_two"]
    assert all(v.played_checks)
    assert v.summary().startswith(f"the gate plays {'abcdefg'[v.played]}, not d (d lands directly under")
    ok = guard(Position(), 3)
    assert not ok.overridden and ok.summary() == "d passes the four checks"


def test_the_choice_is_the_most_central_of_the_best():
    pos = Position.parse("133375")  # b, d and f pass all four checks; d is the most central
    assert best_columns(pos) == [3, 1, 5]
    assert guard(pos, 2).played == 3
    wide = Position(Geometry(8, 7))  # on 8 columns the centre pair d, e comes first
    assert best_columns(wide)[:2] == [3, 4] and guard(wide, 3).played == 3


def test_a_proposal_stands_when_no_column_passes_more():
    """Where no column passes all four checks, every proposal among the best stands."""
    seen = 0
    for pos in random_positions(Geometry(7, 6), 60, seed=8):
        scores = {c: sum(map(bool, check_move(pos, c))) for c in pos.legal_moves()}
        top = max(scores.values())
        if top == len(CHECKS):
            continue
        seen += 1
        for col, n in scores.items():
            v = guard(pos, col)
            assert (v.played == col) == (n == top)
            if n == top:
                assert v.summary().startswith(f"{'abcdefg'[col]} stands: no column passes more checks")
    assert seen > 20


def test_guard_refuses_an_illegal_column():
    from connect4 import IllegalMove

    with pytest.raises(IllegalMove):
        guard(Position.parse("111111"), 0)


def test_guarantee_on_boards_past_64_bits():
    """The gate uses only Position's API, so it guards the multi-word boards too."""
    for g in (Geometry(8, 8), Geometry(9, 7), Geometry(16, 16)):
        positions = random_positions(g, 2, seed=3)
        assert assert_guarantee(positions) > 0
        for pos in positions[::8]:
            for col in pos.legal_moves():
                assert tuple(map(bool, check_move(pos, col))) == ref_checks(pos, col), (pos, col)
