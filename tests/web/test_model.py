"""The page's own game model (web/js/game.js) and number formats
(web/js/format.js), run in the browser and checked against the game library
on random games of several sizes: landing rows, hints (what a watcher's H
draws), the winning line, and the solver's "win n"/"loss n" arithmetic."""

from __future__ import annotations

import random

from connect4.geometry import Geometry
from connect4.hints import hints
from connect4.position import Position

SIZES = [(7, 6, 4), (5, 4, 3), (8, 7, 5), (6, 5, 4), (4, 4, 3)]


def random_games(count: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        w, h, k = rng.choice(SIZES)
        g = Geometry(w, h, k)
        pos = Position(g)
        moves: list[int] = []
        for _ in range(rng.randrange(0, w * h + 1)):
            if pos.is_over:
                break
            col = rng.choice(pos.legal_moves())
            pos.play(col)
            moves.append(col + 1)
        hn = hints(pos)
        out.append({
            "size": [w, h, k], "moves": moves,
            "next_row": [pos.height(c) + 1 if pos.height(c) < h else None for c in range(w)],
            "hints": {"winning_moves": [c + 1 for c in hn.winning_moves], "must_block": [c + 1 for c in hn.must_block],
                      "losing_moves": [c + 1 for c in hn.losing_moves]},
            "over": pos.is_over,
            "winner": pos.winner,
            "line": sorted([c + 1, r + 1] for c, r in pos.winning_line_cells()),
        })
    return out


def test_game_model_agrees_with_the_library(page, stack):
    page.goto("/")
    games = random_games(400)
    got = page.evaluate("""async (games) => {
        const { Game } = await import('/static/js/game.js');
        return games.map(({size: [w, h, k], moves}) => {
            const g = new Game(w, h, k, moves);
            const cols = [...Array(w).keys()].map(c => c + 1);
            return {next_row: cols.map(c => g.nextRow(c)), hints: g.hints(), over: g.isOver,
                    winner: g.winner, line: g.winLine ? g.winLine.map(([c, r]) => [c, r]) : []};
        });
    }""", games)
    wins = 0
    for want, have in zip(games, got, strict=True):
        where = f"{want['size']} {want['moves']}"
        assert have["next_row"] == want["next_row"], where
        assert have["hints"] == want["hints"], where
        assert have["over"] == want["over"], where
        assert have["winner"] == want["winner"], where
        if want["winner"] is not None:
            wins += 1
            # the stroke the page draws lies on one of the completed lines
            assert set(map(tuple, have["line"])) <= set(map(tuple, want["line"])), where
            assert len(have["line"]) >= want["size"][2], where
    assert wins > 50  # the sample has plenty of finished games


def test_verdict_arithmetic(page, stack):
    """Pons' scores -> "win n"/"loss n", checked against the definition: a win
    with the stone of ply p is worth (W*H + 2 - p) // 2 for the side that wins."""
    page.goto("/")
    cases = []
    for w, h in [(7, 6), (5, 4), (8, 7)]:
        cells = w * h
        for ply in range(0, cells - 1):
            # the mover's n-th stone from now is stone ply + 2n - 1
            for n in range(1, (cells - ply + 1) // 2 + 1):
                p = ply + 2 * n - 1
                cases.append([(cells + 2 - p) // 2, ply, w, h, "win", n])
            # the opponent's n-th stone from now (after the mover's) is stone ply + 2n
            for n in range(1, (cells - ply) // 2 + 1):
                p = ply + 2 * n
                cases.append([-((cells + 2 - p) // 2), ply, w, h, "loss", n])
    got = page.evaluate("""async (cases) => {
        const { verdict, signed } = await import('/static/js/format.js');
        return cases.map(([s, ply, w, h]) => [verdict(s, ply, w, h), signed(s)]);
    }""", cases)
    for (score, ply, w, h, kind, n), (v, text) in zip(cases, got, strict=True):
        assert (v["kind"], v["n"]) == (kind, n), (score, ply, w, h)
        assert text == (f"+{score}" if score > 0 else f"\u2212{-score}")
