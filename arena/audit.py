"""Audit a player's moves against the exact solver.

The player plays ``games`` games (against ``opponent``, by default itself)
from random openings. At each of its moves the solver scores every column.
A move's regret is ``value(best) - value(played)`` where a value is the
outcome class: win 1, draw 0, loss -1, so regret is 0 (kept the value),
1 (win -> draw, draw -> loss) or 2 (win -> loss). A move *agrees* with the
solver when it is one of the columns with the best exact score (the fastest
win, else a draw, else the slowest loss); the looser *keeps the value* is
regret 0. Positions the solver cannot prove within the budget are counted
and left out, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from connect4 import STANDARD, Geometry, Position
from connect4.notation import LETTERS, format_moves
from connect4.openings import random_openings

from .oracle import Unproved
from .players import PlayerFactory
from .protocols import ExactOracle
from servicekit.progress import Progress
from .stats import wilson


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


@dataclass
class MoveAudit:
    game: int
    moves: list[int]  # the position before the move, 0-based
    played: int
    scores: list[int | None]

    @property
    def best_score(self) -> int:
        return max(s for s in self.scores if s is not None)

    @property
    def played_score(self) -> int:
        score = self.scores[self.played]
        assert score is not None  # the played column was open
        return score

    @property
    def regret(self) -> int:
        return sign(self.best_score) - sign(self.played_score)

    @property
    def agrees(self) -> bool:
        return self.played_score == self.best_score

    @property
    def best_columns(self) -> list[int]:
        return [c for c, s in enumerate(self.scores) if s == self.best_score]

    def to_json(self) -> dict:
        return {"game": self.game, "position": [c + 1 for c in self.moves], "ply": len(self.moves) + 1,
                "played": self.played + 1, "scores": self.scores, "regret": self.regret, "agrees": self.agrees}


@dataclass
class AuditResult:
    player: str
    opponent: str
    games: int
    opening_plies: int
    seed: int
    moves: list[MoveAudit] = field(default_factory=list)
    unproved: int = 0
    results: list[float] = field(default_factory=list)  # the audited player's score per game
    geometry: Geometry = STANDARD

    @property
    def total_regret(self) -> int:
        return sum(m.regret for m in self.moves)

    def summary(self) -> dict:
        n = len(self.moves)
        agree = sum(m.agrees for m in self.moves)
        keep = sum(m.regret == 0 for m in self.moves)
        by = {r: sum(m.regret == r for m in self.moves) for r in (0, 1, 2)}
        return {
            "player": self.player, "opponent": self.opponent, "games": self.games,
            "opening_plies": self.opening_plies, "seed": self.seed, "size": self.geometry.name,
            "moves_audited": n, "moves_unproved": self.unproved,
            "agree": agree, "agree_share": agree / n if n else None,
            "agree_95": wilson(agree, n).as_list(),
            "keep_value": keep, "keep_share": keep / n if n else None,
            "regret_total": self.total_regret, "regret_per_move": self.total_regret / n if n else None,
            "regret_counts": by,
            "score": sum(self.results) / len(self.results) if self.results else None,
        }


def run_audit(player: str, games: int, opening_plies: int, seed: int, oracle: ExactOracle, factory: PlayerFactory,
              opponent: str | None = None, progress_stream=None) -> AuditResult:
    opponent = opponent or player
    g = factory.geometry
    openings = random_openings(games, opening_plies, seed, g)
    res = AuditResult(player, opponent, games, opening_plies, seed, geometry=g)
    bar = Progress("games", games, progress_stream) if progress_stream is not None else None
    for k, opening in enumerate(openings):
        # alternate the audited player's colour: even games it moves first after the opening
        audited_first = k % 2 == 0
        me = factory.make(player, seed=seed * 7919 + 2 * k, opponent=opponent)
        other = me if opponent == player else factory.make(opponent, seed=seed * 7919 + 2 * k + 1, opponent=player)
        pos = Position.from_moves(opening, g)
        my_color = pos.to_move if audited_first else 1 - pos.to_move
        while not pos.is_over:
            mover = me if pos.to_move == my_color or opponent == player else other
            info = mover.choose(pos)
            pos.check_move(info.column)
            if pos.to_move == my_color or opponent == player:
                try:
                    scores = oracle.analyze(pos)
                    res.moves.append(MoveAudit(k, list(pos.moves), info.column, scores))
                except Unproved:
                    res.unproved += 1
            pos.play(info.column)
        if pos.winner is None:
            res.results.append(0.5)
        else:
            res.results.append(1.0 if pos.winner == my_color else 0.0)
        if bar:
            bar.advance(f"game {k + 1}: {format_moves(pos.moves, g)}")
    if bar:
        bar.finish()
    return res


def worst_moves(res: AuditResult, count: int = 5) -> list[MoveAudit]:
    """The largest regrets first; ties by the largest loss of exact score."""
    bad = [m for m in res.moves if not m.agrees]
    bad.sort(key=lambda m: (-m.regret, -(m.best_score - m.played_score), m.game, len(m.moves)))
    return bad[:count]


def report(res: AuditResult, count: int = 5, colour: bool = False) -> str:
    from .board import render

    s = res.summary()
    lines = [f"audit of {res.player} (opponent {res.opponent}), {res.games} games from random "
             f"{res.opening_plies}-ply openings, seed {res.seed}"
             + ("" if res.geometry.is_standard else f", board {res.geometry.name}")]
    if not s["moves_audited"]:
        lines.append(f"no move could be audited ({s['moves_unproved']} positions unproved within the budget)")
        return "\n".join(lines)
    lines += [
        f"moves audited: {s['moves_audited']}" + (f" ({s['moves_unproved']} unproved, left out)" if s["moves_unproved"] else ""),
        f"agree with the solver (a best-scoring column): {s['agree']} = {100 * s['agree_share']:.1f} % "
        f"(95 % {100 * s['agree_95'][0]:.1f}–{100 * s['agree_95'][1]:.1f})",
        f"keep the value (regret 0): {s['keep_value']} = {100 * s['keep_share']:.1f} %",
        f"regret: total {s['regret_total']}, {s['regret_per_move']:.3f} per move; "
        f"moves with regret 0/1/2: {s['regret_counts'][0]}/{s['regret_counts'][1]}/{s['regret_counts'][2]}",
    ]
    if res.opponent != res.player:
        lines.append(f"score against {res.opponent}: {100 * s['score']:.1f} %")
    worst = worst_moves(res, count)
    if worst:
        lines += ["", f"worst moves ({len(worst)}):"]
    for m in worst:
        pos = Position.from_moves(m.moves, res.geometry)
        best = ", ".join(LETTERS[c] for c in m.best_columns)
        scores = " ".join("x" if s is None else f"{s:+d}" for s in m.scores)
        lines += ["", f"game {m.game + 1}, ply {len(m.moves) + 1}: played {LETTERS[m.played]} "
                      f"({m.played_score:+d}, {_kind(m.played_score)}), best {best} ({m.best_score:+d}, "
                      f"{_kind(m.best_score)}), regret {m.regret}",
                  f"position: {format_moves(m.moves, pos.geometry) or '(empty)'}; column scores a..: {scores}",
                  render(pos, colour=colour, mark_last=True)]
    return "\n".join(lines)


def _kind(score: int) -> str:
    return "win" if score > 0 else "loss" if score < 0 else "draw"
