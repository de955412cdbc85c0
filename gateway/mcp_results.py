"""What MCP tools return: the structured result (its JSON schema is each tool's
``outputSchema``) and its first text line in plain words."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from . import model, rs_format
from .document import COLORS, Game

Color = Literal["red", "yellow"]


class Hints(BaseModel):
    next_row: list[int | None] = Field(description="next free row per column (1 = bottom), null when full")
    winning_moves: list[int] = Field(description="columns that make four now")
    must_block: list[int] = Field(description="columns where the opponent would make four next")
    losing_moves: list[int] = Field(description="columns after which the opponent can make four at once")


class Outcome(BaseModel):
    winner: Color | None = Field(description="the winner's colour; null for a draw")
    you_won: bool | None = Field(description="true when you won, false when you lost, null for a draw")
    how: Literal["four in a row", "resignation", "draw"]
    line: list[list[int]] = Field(description="the winning cells as [column, row], 1-based from the bottom left")


class LastSearch(BaseModel):
    col: int = Field(description="the column the opponent program played (1-based)")
    score: int
    depth: int
    nodes: int
    millis: int
    book: bool = False
    proven: bool = False


class FailedCheck(BaseModel):
    check: Literal["takes_win", "blocks_threat", "not_under_threat", "no_loss_in_two"]
    reason: str = Field(description="why the move failed it, in words (columns a-g, cells like d2)")


class Override(BaseModel):
    ply: int = Field(description="the ply of the guarded move (1 = the first move of the game)")
    color: Color = Field(description="whose move it was")
    proposed: int = Field(description="the column proposed (1-based)")
    played: int = Field(description="the column played: the gate's choice, or the proposal when it stands")
    overridden: bool = Field(description="true when the gate played another column than the one proposed")
    failed: list[FailedCheck] = Field(description="the checks the proposal failed, with their reasons")
    played_passes: int = Field(description="how many checks the played column passes")
    checks: int = Field(description="how many checks there are (4)")
    summary: str = Field(description="the verdict in one sentence")


class GameResult(BaseModel):
    game: str = Field(description="the name you gave this game (pass it as game= to the other tools)")
    game_id: str = Field(description="the gateway's id of the game (REST /api/v1/games/{id})")
    status: Literal["your_move", "opponent_to_move", "waiting_for_player", "over"]
    to_move: Color | None = Field(description="whose turn it is; null when the game is over")
    your_color: Color | None
    your_turn: bool
    game_over: bool
    result: Outcome | None = Field(description="how the game ended; null while it runs")
    history: list[int] = Field(description="every move so far, 1-based columns, red first")
    rows: list[str] = Field(description="the board, top row first: R red, Y yellow, . empty")
    hints_on: bool
    hints: Hints | None = Field(default=None, description="present when hints are on and it is your move")
    last_search: LastSearch | None = Field(default=None, description="the opponent program's last search")
    opponent: str | None = Field(description="the opponent's spec (e.g. engine:1000), or human")
    allow_analysis: bool
    watch_url: str = Field(description="where a person watches this game live")
    message: str = Field(description="the first line of the text: the state in plain words")
    note: str = Field(default="", description="the opponent program's words on its last move, while the game runs")
    guarded: bool = Field(default=False, description="the gate checks your moves (connect4_guard)")
    override: Override | None = Field(default=None, description="the gate's verdict on the last move of a person, "
                                                                "when it failed a check")


class ColumnScore(BaseModel):
    column: int
    score: int | None = Field(description="Pons' score for the side to move after this column; null when full")
    verdict: str | None = Field(description="'win in N', 'draw', 'loss in N' for the side to move")
    unproved: bool = Field(False, description="open but not proved in time (boards past 64 bits); score is null")


class AnalysisResult(GameResult):
    columns: list[ColumnScore]
    best: list[int] = Field(description="the columns with the best score (empty while a column is unproved)")


class LearnResult(GameResult):
    report: str = Field(description="the learning report in words")
    learned: dict[str, Any] = Field(description="the bookgen worker's report as it gave it")


class Opponent(BaseModel):
    spec: str = Field(description="what to pass as opponent= to connect4_new")
    family: str
    takes_budget: bool
    param_min: int = 0
    param_max: int = 0
    description: str = ""


class OpponentsResult(BaseModel):
    opponents: list[Opponent]
    message: str


def plain_words(doc: Game, you: str | None) -> str:
    """The state in one sentence: "Your move.", "You win.", "The engine wins.", "Draw.", "Not your turn."."""
    other = COLORS[1 - COLORS.index(you)] if you else None
    them_program = other is not None and doc.seats[other].kind == "opponent"
    result = doc.result
    if result is not None:
        if result["winner"] is None:
            return "Draw."
        if result["winner"] == you:
            return "You win." + (" The engine resigned: it proved its loss." if doc.resigned else "")
        if result.get("reason") == "resigned" and not doc.resigned:
            return "You resigned: the " + ("engine wins." if them_program else "other player wins.")
        return "The engine wins." if them_program else "The other player wins."
    if you is None:
        return f"{doc.color_to_move.capitalize()} is to move."
    if other and not doc.seats[other].joined:
        return "Waiting for the other player to join."
    if doc.color_to_move == you:
        return "Your move." + (" The engine sees a forced win." if rs_format.engine_sees_win(doc) else "")
    return "Not your turn: " + ("the engine is thinking." if them_program else "the other player is to move.")


def game_result(doc: Game, you: str | None, name: str, public_url: str) -> dict[str, Any]:
    over = doc.result is not None
    other = COLORS[1 - COLORS.index(you)] if you else None
    if over:
        status = "over"
    elif other and not doc.seats[other].joined:
        status = "waiting_for_player"
    elif you and doc.color_to_move == you:
        status = "your_move"
    else:
        status = "opponent_to_move"
    outcome = None
    if doc.result is not None:
        r = doc.result
        how = "draw" if r["winner"] is None else "resignation" if r.get("reason") == "resigned" else "four in a row"
        outcome = {"winner": r["winner"], "you_won": None if r["winner"] is None else r["winner"] == you,
                   "how": how, "line": doc.winning_cells or []}
    ls = doc.last_search
    hints = None
    if doc.hints_for(you) and status == "your_move":  # the agent's own seat's hints
        hints = model.hints_json(doc.position())
    spec = doc.seats[other].spec if other else None
    if other and doc.seats[other].kind != "opponent":
        spec = "human"
    note = doc.message or ""
    # the program's words are about its own position ("book move: a loss with best play" = its loss)
    note = f"{spec or 'the opponent'}, about its own position: {note}" if note and not over else ""
    return {
        "game": name, "game_id": doc.id, "status": status,
        "to_move": None if over else doc.color_to_move, "your_color": you,
        "your_turn": status == "your_move", "game_over": over, "result": outcome,
        "history": [c + 1 for c in doc.moves],
        "rows": model.board_rows(doc.moves, doc.width, doc.height),
        "hints_on": bool(doc.seats[you].hints if you else doc.hints_on), "hints": hints,
        "last_search": None if not ls else {k: ls.get(k) or 0 for k in ("col", "score", "depth", "nodes", "millis")}
        | {"book": bool(ls.get("book")), "proven": bool(ls.get("proven"))},
        "opponent": spec, "allow_analysis": bool(doc.analysis_open),
        "watch_url": model.watch_url(public_url, doc.id),
        "message": plain_words(doc, you), "note": note,
        "guarded": bool(you and doc.seats[you].guarded), "override": doc.override,
    }


def board_text(result: dict[str, Any]) -> str:
    """The plain-words line, the board with column numbers, hints, the watch URL."""
    lines = [result["message"]]
    if result["note"]:
        lines.append(result["note"])
    gate = result.get("override")
    if gate and gate["color"] == result["your_color"]:
        lines.append("gate: " + gate["summary"])
    lines += model.board_lines(result["rows"])
    h = result.get("hints")
    if h:
        def fmt(cols: list[int]) -> str:
            return " ".join(map(str, cols)) or "-"
        lines.append(f"hints: wins now {fmt(h['winning_moves'])} | must block {fmt(h['must_block'])} | "
                     f"loses at once {fmt(h['losing_moves'])}")
    lines.append(f"game {result['game']!r}, you are {result['your_color']}; watch live: {result['watch_url']}")
    return "\n".join(lines)
