"""The regime table: what each assumption about the opponent buys against
opponents that fit it or not.

Every agent plays every opponent from the same seeded random openings, each
opening from both seats. A row counts the agent's wins, draws and losses, its
wins within ``within`` plies (the game's length from the empty board, the
opening included) with a 95 % Wilson interval, and the games' mean length.
A bare ``clairvoyant`` is bound to each opponent (it knows the opponent's
actual policy). Seeds depend only on the player, the opening and the seat,
not on the row: every agent meets the same dice of a noisy opponent (common
random numbers), so two agents that choose alike play the same games, and a
run is reproduced by its arguments.
"""

from __future__ import annotations

import hashlib
import os
import platform
import time
from dataclasses import dataclass, field

from connect4 import STANDARD, Geometry
from connect4.openings import random_openings

from .match import play_game
from .players import PlayerFactory
from .report import _ci, _pct
from .stats import wilson

AGENTS = ("alphabeta", "expectimax", "clairvoyant", "noisy_greedy")
OPPONENTS = ("greedy", "noisy_greedy")
REGIMES = {  # what each agent assumes of its opponent
    "alphabeta": "the worst reply",
    "expectimax": "greedy with 20 % random moves",
    "clairvoyant": "the opponent's actual policy",
    "noisy_greedy": "nothing (greedy with 20 % random moves)",
    "greedy": "nothing (greedy)",
    "search": "the worst reply (20,000 positions)",
    "solver": "the worst reply (proofs)",
}


@dataclass
class RegimeConfig:
    agents: list[str] = field(default_factory=lambda: list(AGENTS))
    opponents: list[str] = field(default_factory=lambda: list(OPPONENTS))
    openings: int = 10
    opening_plies: int = 2
    seed: int = 1
    within: int = 25
    geometry: Geometry = STANDARD

    def to_json(self) -> dict:
        g = self.geometry
        return {"agents": self.agents, "opponents": self.opponents, "openings": self.openings,
                "opening_plies": self.opening_plies, "seed": self.seed, "within": self.within,
                "board": {"width": g.width, "height": g.height, "k": g.k}}


def regime_of(spec: str) -> str:
    name = spec.strip().lower()
    if name.startswith("clairvoyant:"):
        return f"the policy of {name.split(':', 1)[1]}"
    return REGIMES.get(name, REGIMES.get(name.partition(":")[0], "–"))


def _seed(seed: int, spec: str, opening: int, seat: int, role: str) -> int:
    digest = hashlib.sha256(f"regimes:{seed}:{spec}:{opening}:{seat}:{role}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def run_regimes(cfg: RegimeConfig, progress=None) -> dict:
    """Play the table; ``progress(done, total, label)`` after every game. Raises
    arena.players.PlayerError for an agent that cannot play an opponent."""
    openings = random_openings(cfg.openings, cfg.opening_plies, cfg.seed, cfg.geometry)
    factory = PlayerFactory(cfg.geometry, engine_books="none")
    started = time.time()
    rows = []
    total = len(cfg.agents) * len(cfg.opponents) * 2 * len(openings)
    done = 0
    try:
        for agent in cfg.agents:
            for opponent in cfg.opponents:
                games = []
                for k, opening in enumerate(openings):
                    for seat in (0, 1):  # 0: the agent moves first after the opening
                        me = factory.make(agent, seed=_seed(cfg.seed, agent, k, seat, "agent"), opponent=opponent)
                        other = factory.make(opponent, seed=_seed(cfg.seed, opponent, k, seat, "opponent"),
                                             opponent=agent)
                        rec = play_game(me, other, opening, cfg.geometry) if seat == 0 else \
                            play_game(other, me, opening, cfg.geometry)
                        assert rec.result is not None
                        mine = rec.result if seat == 0 else 1.0 - rec.result
                        games.append({"opening": k, "agent_first": seat == 0, "result": mine,
                                      "plies": len(rec.moves), "reason": rec.reason,
                                      "moves": [c + 1 for c in rec.moves]})
                        done += 1
                        if progress is not None:
                            progress(done, total, f"{agent} vs {opponent}: {mine:g}")
                rows.append(_row(agent, opponent, games, cfg.within))
    finally:
        factory.close()
    return {
        "config": cfg.to_json(),
        "openings": [[c + 1 for c in o] for o in openings],
        "rows": rows,
        "run": {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
                "elapsed_s": round(time.time() - started, 2), "python": platform.python_version(),
                "machine": f"{platform.machine()}, {os.cpu_count()} cores"},
    }


def _row(agent: str, opponent: str, games: list[dict], within: int) -> dict:
    n = len(games)
    wins = sum(g["result"] == 1.0 for g in games)
    draws = sum(g["result"] == 0.5 for g in games)
    fast = sum(g["result"] == 1.0 and g["plies"] <= within for g in games)
    return {
        "agent": agent, "regime": regime_of(agent), "opponent": opponent, "games": n,
        "wins": wins, "draws": draws, "losses": n - wins - draws,
        "wins_within": fast, "win_within_rate": fast / n if n else None,
        "win_within_95": wilson(fast, n).as_list(),
        "mean_plies": sum(g["plies"] for g in games) / n if n else None,
        "games_played": games,
    }


def markdown(raw: dict, command: str | None = None) -> str:
    cfg = raw["config"]
    b = cfg["board"]
    lines = []
    if command:
        lines += ["```", command, "```", ""]
    lines.append(f"{sum(r['games'] for r in raw['rows'])} games on {b['width']}x{b['height']} (connect {b['k']}): "
                 f"{cfg['openings']} random {cfg['opening_plies']}-ply openings, each from both seats, per row; "
                 f"seed {cfg['seed']}; {raw['run']['elapsed_s']:.0f} s on {raw['run']['machine']}. "
                 f"A fast win is a win by ply {cfg['within']} (plies from the empty board).")
    lines += ["", f"| agent | regime | opponent | games | W/D/L | wins by ply {cfg['within']} (95 %) | mean plies |",
              "|---|---|---|---:|---:|---:|---:|"]
    for r in raw["rows"]:
        lines.append(f"| {r['agent']} | {r['regime']} | {r['opponent']} | {r['games']} | "
                     f"{r['wins']}/{r['draws']}/{r['losses']} | {_pct(r['win_within_rate'])} "
                     f"({_ci(r['win_within_95'])}) | {r['mean_plies']:.1f} |")
    return "\n".join(lines) + "\n"


def summary_json(raw: dict) -> dict:
    """The table without the games (what ``c4 regimes --json`` prints)."""
    return {**raw, "rows": [{k: v for k, v in r.items() if k != "games_played"} for r in raw["rows"]]}
