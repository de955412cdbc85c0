"""What a search answers: one report per finished depth, and the result."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DepthReport:
    """One finished iteration."""

    depth: int
    nodes: int
    score: int
    best_column: int      # 0-based
    elapsed_ms: float
    proven: bool


@dataclass
class SearchResult:
    """The answer of a player or the engine for the side to move (columns 0-based)."""

    column: int
    score: int = 0
    depth: int = 0
    nodes: int = 0
    elapsed_ms: float = 0.0
    book: bool = False
    proven: bool = False
    pv: list[int] = field(default_factory=list)
    outcome: str = "unknown"   # 'unknown' | 'win' | 'draw' | 'loss' (side to move)
    plies_to_end: int = 0
    resign: bool = False
    stopped: bool = False      # stopped before its first depth finished: a safe column, unsearched
    message: str = ""          # for people: the player's words (engine_svc.players.messages)
    player: str = ""
