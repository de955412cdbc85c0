"""The player ladder: players named by spec strings, reproducible given a seed.

    from engine_svc.players import make_player, list_players, InvalidSpec
    player = make_player("minimax:5", geometry=STANDARD, seed=0)
    result = player.choose(pos, budget_ms=None, on_progress=None, cancel=None)

``pos`` is a :class:`connect4.Position` whose game is not over (else
``connect4.InvalidPosition``). ``result`` is a
:class:`engine_svc.result.SearchResult` with 0-based columns: ``column``,
``score`` (engine scale, side to move's view), ``depth``, ``nodes``,
``elapsed_ms``, ``book``, ``proven``, ``pv``, ``outcome`` ('unknown' | 'win' |
'draw' | 'loss'), ``plies_to_end``, ``resign``, ``message``, ``player``.
``on_progress(DepthReport)`` is called after every finished depth of the
engine; ``budget_ms`` only matters to ``engine`` players (it overrides the
MS of the spec). ``cancel`` (an ``engine_svc.stopping.Cancel``, a ``threading.Event``
that raises the kernels' stop flags when set) stops a search from
another thread: the engine answers from its last finished depth, minimax and
mcts raise :class:`Stopped`.

Specs, in ladder order (weakest first, as measured in docs/results/ladder.md):
  random        a uniformly random legal column
  easy          minimax depth 2, 30 % random moves
  greedy        wins now, else blocks, else avoids the cell under an opponent's
                winning cell, else the best line score: its own lines after
                the move (centre first)
  medium        minimax depth 4, 10 % random moves
  gated         greedy, checked by takes_win, blocks_threat, not_under_threat,
                no_loss_in_two; a failed check falls back to a small search
  minimax:D     plain alpha-beta to depth D (1..12) with the window evaluation
  hard          minimax depth 6, weighs blocking more (the opponent's threes
                and twos)
  mcts:N        PUCT with random rollouts, N simulations (1..1000000)
  engine:MS     the full engine (book, MTD(f), table) with MS ms (1..600000);
                ``engine`` alone is engine:2000
Counted budgets and regimes (engine_svc/players/budgeted.py, regimes.py; placed
by docs/ladder.md):
  noisy_greedy  greedy with 20 % random moves (noisy_greedy:P: P %, 0..100)
  alphabeta     3 plies, assuming the opponent's worst reply
  expectimax    3 plies, assuming greedy with 20 % random moves
  clairvoyant:S 3 plies, knowing the opponent's actual policy: the player S's
                (bare ``clairvoyant`` only in a match, which binds it)
  search        counted negamax, 20,000 positions a move
  solver        every column proved within 300,000 positions, else search's move
Learned players (7x6 only; weights in books/models/, docs/learned.md):
  net           the policy/value net's most probable column, no search
  az:N          PUCT with N simulations (1..100000) over the net's prior and
                value, no rollouts; ``az`` alone is az:800
  dqn           the DQN's greedy column (the largest Q-value)
A learned player whose weights file is missing or bad is not listed and
making it raises :class:`UnavailablePlayer` (an InvalidSpec) saying why.
Players of one spec and seed make the same moves in the same positions
(``engine`` depends on the clock, as any timed search does; at a fixed
depth use :class:`engine_svc.search.Engine`).
"""

from __future__ import annotations

from dataclasses import dataclass

from connect4.geometry import STANDARD, Geometry

from connect4.bookset import BookSet
from ..minimax import BLOCKER, CASUAL
from ..result import DepthReport, SearchResult
from ..search import Engine
from ..stopping import Cancel, Stopped
from .budgeted import SOLVER_BUDGET, SEARCH_BUDGET, SearchPlayer, SolverPlayer
from .ladder import (
    EnginePlayer,
    GatedPlayer,
    GreedyPlayer,
    MctsPlayer,
    MinimaxPlayer,
    Player,
    RandomPlayer,
)
from .regimes import EXPECTIMAX_RATE, NoisyGreedyPlayer, ThreePlyPlayer, bind_opponent, expectimax_model

__all__ = [
    "Cancel",
    "DepthReport",
    "InvalidSpec",
    "Player",
    "PlayerInfo",
    "SearchResult",
    "Stopped",
    "UnavailablePlayer",
    "bind_opponent",
    "list_players",
    "make_player",
    "parse_spec",
]

DEFAULT_ENGINE_MS = 2000
MAX_MINIMAX_DEPTH = 12
MAX_SIMULATIONS = 1_000_000
MAX_BUDGET_MS = 600_000
LADDER_SIMULATIONS = 100_000  # the mcts level of the ladder: about 70 % against hard (docs/results/ladder.md)

LEVELS = {  # name: (depth, chance of a random move, weights)
    "easy": (2, 0.30, CASUAL),
    "medium": (4, 0.10, CASUAL),
    "hard": (6, 0.0, BLOCKER),
}

MAX_AZ_SIMULATIONS = 100_000
DEFAULT_AZ_SIMULATIONS = 800
LEARNED = ("net", "az", "dqn")

SPEC_HELP = ("random, greedy, gated, easy, medium, hard, minimax:D (D 1..12), "
             "mcts:N (N 1..1000000), engine or engine:MS (MS 1..600000), net, az:N (N 1..100000), dqn, "
             "noisy_greedy or noisy_greedy:P (P 0..100), alphabeta, expectimax, clairvoyant:SPEC, search, solver")
REGIMES = ("alphabeta", "expectimax", "search", "solver")  # no parameter


class InvalidSpec(ValueError):
    """A player spec the ladder does not know; the message says what is accepted."""


class UnavailablePlayer(InvalidSpec):
    """A learned player whose weights file cannot be used (the message says which and why)."""


@dataclass(frozen=True)
class PlayerInfo:
    spec: str
    family: str
    description: str
    takes_budget: bool
    param_min: int = 0  # the N of "family:N" ranges over param_min..param_max (0, 0: no N)
    param_max: int = 0
    default_budget_ms: int = 0  # the time this spec thinks without a budget (0: not a time)
    param_is_budget_ms: bool = False  # the N of "family:N" is the think time in ms


def list_players() -> list[PlayerInfo]:
    """Representative specs in ladder order, weakest first (docs/results/ladder.md
    measures the order); the parametrised families take any value."""
    return [
        PlayerInfo("random", "random", "a uniformly random legal column", False),
        PlayerInfo("easy", "easy", "casual minimax depth 2 with 30% random moves", False),
        PlayerInfo("greedy", "greedy", "wins now, else blocks, else the best own line score", False),
        PlayerInfo("medium", "medium", "casual minimax depth 4 with 10% random moves", False),
        PlayerInfo("gated", "gated", "greedy checked by four exact tactical tests", False),
        PlayerInfo("minimax:5", "minimax", "plain alpha-beta to depth D with the window evaluation (minimax:D)", False,
                   1, MAX_MINIMAX_DEPTH),
        PlayerInfo("hard", "hard", "casual minimax depth 6 that weighs blocking more", False),
        PlayerInfo(f"mcts:{LADDER_SIMULATIONS}", "mcts", "Monte Carlo tree search, N simulations (mcts:N)", False,
                   1, MAX_SIMULATIONS),
        PlayerInfo("engine:1000", "engine", "the full engine with MS milliseconds (engine:MS)", True, 1, MAX_BUDGET_MS,
                   1000, True),
        PlayerInfo("engine", "engine", f"the full engine with {DEFAULT_ENGINE_MS} ms", True, 1, MAX_BUDGET_MS,
                   DEFAULT_ENGINE_MS, True),
        *_learned_infos(),
        *_counted_infos(),
    ]


def _counted_infos() -> list[PlayerInfo]:
    """The players with counted budgets and the regime players, in their own
    group after the learned ones, weakest first (docs/ladder.md places them)."""
    return [
        PlayerInfo("noisy_greedy", "noisy_greedy", "greedy with 20% random moves (noisy_greedy:P: P%)", False,
                   0, 100),
        PlayerInfo("expectimax", "expectimax", "3-ply search assuming greedy with 20% random moves", False),
        PlayerInfo("alphabeta", "alphabeta", "3-ply search assuming the opponent's worst reply", False),
        PlayerInfo("clairvoyant:greedy", "clairvoyant",
                   "3-ply search knowing the opponent's actual policy, named after the colon (clairvoyant:SPEC)",
                   False),
        PlayerInfo("search", "search", f"negamax with a table, {SEARCH_BUDGET:,} positions a move (counted)", False),
        PlayerInfo("solver", "solver",
                   f"exact solve of every column within {SOLVER_BUDGET:,} positions, else search's move", False),
    ]


def _learned_infos() -> list[PlayerInfo]:
    """The learned players whose weights load (a bad file is logged once, by
    :func:`engine_svc.learned.availability`, and its players left out)."""
    from ..learned.availability import available

    infos = []
    if available("dqn"):
        infos.append(PlayerInfo("dqn", "dqn", "the DQN's greedy column (largest Q-value), 7x6", False))
    if available("pv"):
        infos.append(PlayerInfo("net", "net", "the policy/value net's most probable column, no search, 7x6", False))
        infos.append(PlayerInfo(f"az:{DEFAULT_AZ_SIMULATIONS}", "az",
                                "PUCT guided by the policy/value net, N simulations (az:N), 7x6", False,
                                1, MAX_AZ_SIMULATIONS))
    return infos


def _int_arg(spec: str, text: str, lo: int, hi: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InvalidSpec(f"player {spec!r}: {what} {text!r} is not a whole number") from None
    if not lo <= value <= hi:
        raise InvalidSpec(f"player {spec!r}: {what} {value} is not in {lo}..{hi}")
    return value


def parse_spec(spec) -> tuple[str, int | str | None]:
    """``"minimax:5"`` -> ("minimax", 5); ``"clairvoyant:greedy"`` ->
    ("clairvoyant", "greedy") (the opponent's canonical spec; None for a bare
    ``clairvoyant``); InvalidSpec for anything else than SPEC_HELP."""
    if not isinstance(spec, str):
        raise InvalidSpec(f"player spec must be a string, got {type(spec).__name__}")
    text = spec.strip().lower()
    if not text:
        raise InvalidSpec(f"empty player spec; use one of: {SPEC_HELP}")
    name, sep, arg = text.partition(":")
    if name in ("random", "greedy", "gated", "easy", "medium", "hard"):
        if sep:
            raise InvalidSpec(f"player {spec!r}: {name} takes no parameter")
        return name, None
    if name == "minimax":
        if not sep:
            raise InvalidSpec(f"player {spec!r}: give a depth, e.g. minimax:5")
        return name, _int_arg(spec, arg, 1, MAX_MINIMAX_DEPTH, "depth")
    if name == "mcts":
        if not sep:
            raise InvalidSpec(f"player {spec!r}: give a number of simulations, e.g. mcts:1000")
        return name, _int_arg(spec, arg, 1, MAX_SIMULATIONS, "simulations")
    if name == "engine":
        if not sep:
            return name, DEFAULT_ENGINE_MS
        return name, _int_arg(spec, arg, 1, MAX_BUDGET_MS, "budget (ms)")
    if name in ("net", "dqn"):
        if sep:
            raise InvalidSpec(f"player {spec!r}: {name} takes no argument")
        return name, None
    if name == "az":
        if not sep:
            return name, DEFAULT_AZ_SIMULATIONS
        return name, _int_arg(spec, arg, 1, MAX_AZ_SIMULATIONS, "simulations")
    if name in REGIMES:
        if sep:
            raise InvalidSpec(f"player {spec!r}: {name} takes no parameter")
        return name, None
    if name == "noisy_greedy":
        if not sep:
            return name, None
        return name, _int_arg(spec, arg, 0, 100, "random move percentage")
    if name == "clairvoyant":
        return name, _opponent_arg(spec, arg) if sep else None
    if name == "perfect":
        raise InvalidSpec("the perfect player is served by the solver service, not the engine")
    raise InvalidSpec(f"unknown player {spec!r}; use one of: {SPEC_HELP}")


def _opponent_arg(spec: str, arg: str) -> str:
    """The canonical spec of clairvoyant's opponent, one whose policy it can know."""
    from .policies import DETERMINISTIC, KNOWN_POLICIES

    if arg.strip().lower().startswith("perfect"):
        name, value = "perfect", None  # the solver service's: no policy here
    else:
        name, value = parse_spec(arg)  # InvalidSpec names the bad part
    if name not in ("random", "greedy", "noisy_greedy", "easy", "medium", "hard", "minimax", *DETERMINISTIC):
        raise InvalidSpec(f"player {spec!r}: clairvoyant cannot know the policy of {arg!r}; "
                          f"it knows {', '.join(KNOWN_POLICIES)}")
    return name if value is None else f"{name}:{value}"


def make_player(spec: str, geometry: Geometry = STANDARD, seed: int = 0, *,
                tt_mb: float = 64.0, books: BookSet | None = None,
                engine: Engine | None = None) -> Player:
    """A player for ``spec`` (see the module doc). ``books`` and ``engine``
    (an :class:`Engine` to reuse, e.g. from a service pool) only concern engine players."""
    name, arg = parse_spec(spec)
    canonical = name if arg is None else f"{name}:{arg}"
    if name == "random":
        return RandomPlayer(canonical, geometry, seed)
    if name == "greedy":
        return GreedyPlayer(canonical, geometry, seed)
    if name == "gated":
        return GatedPlayer(canonical, geometry, seed)
    if name in LEVELS:
        depth, blunder, weights = LEVELS[name]
        return MinimaxPlayer(canonical, geometry, seed, depth=depth, blunder=blunder, weights=weights, family=name)
    if name == "minimax":
        return MinimaxPlayer(canonical, geometry, seed, depth=arg)
    if name == "mcts":
        return MctsPlayer(canonical, geometry, seed, simulations=arg)
    if name in ("noisy_greedy", "alphabeta", "expectimax", "clairvoyant", "search", "solver"):
        return _make_counted(name, canonical, geometry, seed, arg)
    if name in LEARNED:
        return _make_learned(name, canonical, geometry, seed, arg)
    if engine is not None and engine.geometry != geometry:
        raise ValueError("the engine given is for another geometry")
    return EnginePlayer(canonical, geometry, seed, budget_ms=arg, tt_mb=tt_mb, books=books, engine=engine)


def _make_counted(name: str, canonical: str, geometry: Geometry, seed: int, arg) -> Player:
    if name == "noisy_greedy":
        rate = EXPECTIMAX_RATE if arg is None else arg / 100.0
        return NoisyGreedyPlayer(canonical, geometry, seed, rate=rate)
    if name == "search":
        return SearchPlayer(canonical, geometry, seed)
    if name == "solver":
        return SolverPlayer(canonical, geometry, seed)
    if name == "alphabeta":
        return ThreePlyPlayer(canonical, geometry, seed, family="alphabeta")
    if name == "expectimax":
        return ThreePlyPlayer(canonical, geometry, seed, model=expectimax_model(geometry), family="expectimax")
    if arg is None:
        raise InvalidSpec("player 'clairvoyant' needs its opponent: clairvoyant:SPEC, e.g. clairvoyant:greedy "
                          "(a match or the arena binds a bare clairvoyant to its opponent)")
    from .policies import policy_for

    return ThreePlyPlayer(canonical, geometry, seed, model=policy_for(arg, geometry), family="clairvoyant")


def _make_learned(name: str, canonical: str, geometry: Geometry, seed: int, arg) -> Player:
    from ..learned.players import AzPlayer, DqnPlayer, NetPlayer
    from connect4.errors import InvalidPosition

    from ..learned.weights import WeightsError

    try:
        if name == "net":
            return NetPlayer(canonical, geometry, seed)
        if name == "dqn":
            return DqnPlayer(canonical, geometry, seed)
        return AzPlayer(canonical, geometry, seed, simulations=arg)
    except WeightsError as exc:
        raise UnavailablePlayer(f"player {canonical!r} is not available: {exc}") from None
    except InvalidPosition as exc:  # another board size
        raise InvalidSpec(f"player {canonical!r}: {exc}") from None
