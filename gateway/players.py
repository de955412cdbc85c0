"""What the gateway knows of players: the engine's ``ListPlayers`` and two of its own.

Nothing about the engine's ladder is copied here: which specs exist, which
``family:N`` takes which N, whether a player thinks (``takes_budget``) and how
long a spec thinks without a budget (``default_budget_ms``, and
``param_is_budget_ms`` when the N is the time) all come from the engine's
answer. ``perfect`` (the solver) and ``human`` (an invite) are the gateway's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .errors import GameError

GATEWAY_SPECS = ("perfect", "human")
MAX_SPEC_CHARS = 64  # no spec is this long; do not echo a megabyte back


@dataclass(frozen=True)
class PlayerInfo:
    spec: str
    family: str
    description: str
    takes_budget: bool
    param_min: int = 0
    param_max: int = 0
    default_budget_ms: int = 0
    param_is_budget_ms: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


PERFECT = PlayerInfo("perfect", "perfect", "the exact solver: never loses a won or drawn position "
                     "(falls back to the engine when it cannot prove in time)", True)
HUMAN = PlayerInfo("human", "human", "another person (or agent) through an invite link", False)


def find(spec: str, players: list[PlayerInfo] | None) -> tuple[PlayerInfo | None, int | None]:
    """The engine's entry for ``spec`` and its N: the exact spec, else its family's
    entry with N checked against the family's range; (None, None) if unknown."""
    text = spec.strip().lower()
    for p in players or ():
        if p.spec == text:
            family, sep, arg = text.partition(":")
            return p, int(arg) if sep and arg.isdigit() else None
    family, sep, arg = text.partition(":")
    for p in players or ():
        if p.family == family and p.param_max and sep and arg.isascii() and arg.isdigit() \
                and p.param_min <= int(arg) <= p.param_max:
            return p, int(arg)
    return None, None


def check_spec(spec: str, players: list[PlayerInfo]) -> None:
    """Refuse a spec the engine does not know, saying what it accepts."""
    if spec in GATEWAY_SPECS:
        return
    if len(spec) > MAX_SPEC_CHARS:
        raise GameError("bad_request", f"unknown opponent {spec[:32]!r}... ({len(spec)} characters)")
    if any(p.spec == spec for p in players):
        return
    family, sep, arg = spec.partition(":")
    kin = [p for p in players if p.family == family]
    if not kin:
        known = ", ".join(p.spec for p in players)
        raise GameError("bad_request", f"unknown opponent {spec!r}; known: {known}, perfect, human")
    lo, hi = kin[0].param_min, kin[0].param_max
    named = [p.spec for p in kin if ":" in p.spec]
    if not hi and named:  # a family whose part after the colon names a player, not a number
        raise GameError("bad_request", _names_its_opponent(spec, family, named))
    if not hi:
        raise GameError("bad_request", f"opponent {spec!r}: {family} takes no ':' part")
    if not sep or not (arg.isascii() and arg.isdigit()) or not lo <= int(arg) <= hi:
        raise GameError("bad_request", f"opponent {spec!r}: {family}:N needs a whole number N in {lo}..{hi}")


def _names_its_opponent(spec: str, family: str, named: list[str]) -> str:
    """The error of a spec such as a bare ``clairvoyant``: this family's player plays
    knowing the policy of the player named after its colon, so a game names it."""
    offered = " or ".join(named)
    if ":" not in spec:
        return (f"opponent {spec!r}: {family} needs the player whose policy it knows named after a colon, "
                f"e.g. {named[0]} (offered here: {offered})")
    return f"opponent {spec!r}: offered here is {offered} ({family} knowing the policy of the player after the colon)"


def think_ms_of(spec: str, budget_ms: int, players: list[PlayerInfo] | None) -> int:
    """The milliseconds a player will think: the game's think time, else what the
    engine says of the spec (the N of ``engine:N``, a bare spec's default; 0 for
    players whose strength is not a time: minimax depth, mcts simulations)."""
    if budget_ms:
        return budget_ms
    info, n = find(spec or "engine", players)
    if info is None:
        return 0
    if info.param_is_budget_ms and n is not None:
        return n
    return info.default_budget_ms


def takes_budget(spec: str, players: list[PlayerInfo] | None) -> bool:
    """Does this player think (stream progress) or answer at once? True when unknown."""
    family = spec.split(":", 1)[0]
    for p in players or ():
        if p.spec == spec:
            return p.takes_budget
    for p in players or ():
        if p.family == family:
            return p.takes_budget
    return True
