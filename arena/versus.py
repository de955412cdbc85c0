"""A game against the perfect player, with the solver's verdict after every move.

The perfect player plays the exact solver's move (fastest win, else draw,
else slowest loss, centre first on ties). After each move the verdict says
who wins with best play from there and at which ply (a ply is the number of
stones on the board). The other player is judged at each of its moves: a
move whose value is worse in kind (win -> draw or loss, draw -> loss) than
the best one is a lost win or a lost draw. The game ends with one line:

* ``theoretical win held to ply 41`` (it had a win and won);
* ``theoretical draw held to ply 42``;
* ``lost the win at ply 12 (e instead of c)`` (its first such mistake);
* ``theoretical loss from the start: lost at ply 40, as the solver predicted
  at ply 40`` (nothing to hold).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from connect4 import FIRST, STANDARD, Geometry, Position
from connect4.notation import LETTERS, format_moves
from connect4.scores import end_ply

from .players import PlayerError
from .protocols import ExactOracle, Player

KIND = {1: "win", 0: "draw", -1: "loss"}


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def seat_name(color: int) -> str:
    return "first" if color == FIRST else "second"


def verdict_text(score_to_move: int, pos: Position) -> str:
    """``first wins at ply 41`` / ``draw`` for a position and its exact score (side to move's view)."""
    if score_to_move == 0:
        return "draw with best play"
    winner = pos.to_move if score_to_move > 0 else 1 - pos.to_move
    return f"{seat_name(winner)} wins at ply {end_ply(score_to_move, pos.ply, pos.geometry)}"


@dataclass
class Mistake:
    ply: int  # 1-based: the stone it placed
    played: int  # 0-based column
    best: int  # a column that kept the best value
    before: int  # score of the best move (mover's view)
    after: int  # score of the move played

    @property
    def lost(self) -> str:
        return "win" if self.before > 0 else "draw"

    def text(self) -> str:
        return f"lost the {self.lost} at ply {self.ply} ({LETTERS[self.played]} instead of {LETTERS[self.best]})"


@dataclass
class VersusResult:
    start: list[int]
    moves: list[int] = field(default_factory=list)
    player_color: int = 0
    initial_score: int | None = None  # the player's value at its first move (its view)
    initial_ply: int = 0  # stones on the board at that move
    mistakes: list[Mistake] = field(default_factory=list)
    winner: int | None = None
    final_ply: int = 0
    summary: str = ""
    error: str | None = None
    geometry: Geometry = STANDARD
    book_moves: int = 0  # the player's moves that came from its opening books

    def to_json(self) -> dict:
        return {"start": [c + 1 for c in self.start], "moves": [c + 1 for c in self.moves],
                "player_seat": seat_name(self.player_color), "initial_score": self.initial_score,
                "mistakes": [{"ply": m.ply, "played": m.played + 1, "best": m.best + 1, "before": m.before,
                              "after": m.after} for m in self.mistakes],
                "winner": None if self.winner is None else seat_name(self.winner), "final_ply": self.final_ply,
                "summary": self.summary, "error": self.error, "player_book_moves": self.book_moves}


def play_versus(player: Player, oracle: ExactOracle, solver_color: int, start: Position, out=None,
                render_board=None) -> VersusResult:
    """Play ``player`` against the perfect player from ``start``; writes one line per move to ``out``."""
    pos = start.copy()
    res = VersusResult(start=list(start.moves), player_color=1 - solver_color, geometry=start.geometry)
    say = (lambda s: (out.write(s + "\n"), out.flush())) if out is not None else (lambda s: None)
    if pos.is_over:
        raise ValueError("the starting position is already over")
    say(f"{player.spec} plays {seat_name(res.player_color)}, perfect plays {seat_name(solver_color)}"
        + (f", from {format_moves(pos.moves, pos.geometry)}" if pos.moves else ""))
    from .oracle import Unproved

    try:
        while not pos.is_over:
            ply = pos.ply + 1
            if pos.to_move == solver_color:
                col, value = oracle.best_move(pos)
                who, note = "perfect", ""
            else:
                best = oracle.score(pos)
                if res.initial_score is None:
                    res.initial_score, res.initial_ply = best, pos.ply
                info = player.choose(pos)
                col = info.column
                pos.check_move(col)
                value = oracle.column_value(pos, col)
                who, note = player.spec, ("  [book]" if info.book else "")
                res.book_moves += bool(info.book)
                if sign(value) < sign(best):
                    scores = oracle.analyze(pos)
                    good = _best_column(scores, pos)
                    m = Mistake(ply, col, good, best, value)
                    res.mistakes.append(m)
                    note += f"  ?? {m.text()}"
            pos.play(col)
            verdict = "game over" if pos.is_over else verdict_text(-value, pos)
            say(f"{ply:>3}. {LETTERS[col]}  {who:<14} {verdict}{note}")
    except (Unproved, PlayerError) as exc:
        res.error = str(exc)
        res.moves = list(pos.moves)
        res.final_ply = pos.ply
        res.summary = f"stopped at ply {pos.ply + 1}: {exc}"
        say(res.summary)
        say(f"moves: {format_moves(pos.moves, pos.geometry)}")
        return res
    res.moves = list(pos.moves)
    res.final_ply = pos.ply
    res.winner = pos.winner
    res.summary = summarize(res)
    if render_board is not None:
        say(render_board(pos))
    say(res.summary)
    say(f"moves: {format_moves(pos.moves, pos.geometry)}")
    return res


def _best_column(scores, pos: Position) -> int:
    rank = {c: i for i, c in enumerate(pos.geometry.center_order())}
    return max((c for c, s in enumerate(scores) if s is not None), key=lambda c: (scores[c], -rank[c]))


def summarize(res: VersusResult) -> str:
    if res.mistakes:
        if res.winner is None:
            outcome = f"drawn at ply {res.final_ply}"
        else:
            outcome = f"{'won' if res.winner == res.player_color else 'lost'} at ply {res.final_ply}"
        return f"{res.mistakes[0].text()}; the game was {outcome}"
    start_kind = sign(res.initial_score) if res.initial_score is not None else None
    end = res.final_ply
    if start_kind is None:
        return f"the player had no move: the game ended at ply {end}"
    if start_kind > 0:
        return f"theoretical win held to ply {end}"
    if start_kind == 0:
        return f"theoretical draw held to ply {end}"
    assert res.initial_score is not None  # start_kind came from it
    predicted = end_ply(res.initial_score, res.initial_ply, res.geometry)
    return f"theoretical loss from the start: lost at ply {end} (best defence lasts to ply {predicted})"
