"""``c4 bookview KEY|MOVES``: one position as the books see it.

Prints the ASCII board, the side to move, a legal move history that reaches
the position (found from the key when a key is given), one line for every
loaded book with its entry for the position or "no entry" (mirror images
included), the column scores the books compose from the child positions'
scores when no analysis entry has them, and a replay command for the JSON
socket bridge that sets the game up with you to move.

KEY is a Pascal Pons key in hex (``0x`` optional; 7x6 keys have 11 to 13 hex
digits); MOVES is any move notation (``4453``, ``d d e c``, ``d1 d2 e1 c1``,
quoted or not). When a text reads both ways it is taken as moves unless it
starts with 0x or ``--key`` is given.
"""

from __future__ import annotations

import json
import sys

from connect4 import Connect4Error, STANDARD, Geometry, Position
from connect4.keys import parse_key, position_from_key
from connect4.notation import format_moves
from connect4.render import render_ascii


def register(sub) -> None:
    p = sub.add_parser("bookview", help="a position with every book's entries for it", description=__doc__)
    p.add_argument("position", nargs="+", help="a position key (hex) or a move list")
    p.add_argument("--key", action="store_true", help="read POSITION as a key")
    p.add_argument("--moves", action="store_true", help="read POSITION as moves")
    p.add_argument("--books", default=None, help="book files or folders, comma separated (default: books/)")
    p.add_argument("--size", default="7x6", help="board (default 7x6)")
    p.set_defaults(run=run)


def read_position(text: str, g: Geometry, as_key: bool = False, as_moves: bool = False) -> Position:
    """A position from a key or a move list; Connect4Error saying why not."""
    t = text.strip()
    looks_hex = t.lower().startswith("0x") or (
        len(t) >= 2 * g.width - 3 and all(ch in "0123456789abcdefABCDEF" for ch in t))
    if as_key or (t.lower().startswith("0x") and not as_moves):
        return position_from_key(parse_key(t[2:] if t.lower().startswith("0x") else t), g)
    try:
        return Position.parse(t, g)
    except Connect4Error as moves_error:
        if as_moves or not looks_hex:
            raise
        try:
            return position_from_key(parse_key(t), g)
        except Connect4Error as key_error:
            raise Connect4Error(f"{text!r} is neither moves ({moves_error}) nor a key ({key_error})") from None


def describe(pos: Position, books) -> str:
    from connect4.bookset import best_of

    g = pos.geometry
    moves = format_moves(pos.moves, g)
    mover = "X (first player)" if pos.to_move == 0 else "O (second player)"
    lines = [
        f"key       {pos.key():x}   (mirror {pos.mirror_key():x})",
        f"stones    {pos.ply}",
        "",
        render_ascii(pos),
        "",
        f"to move   {mover}" if not pos.is_over else
        f"game over ({'draw' if pos.is_draw else ('X' if pos.winner == 0 else 'O') + ' won'})",
        f"history   {moves or '(empty board)'}",
        "books",
    ]
    hits = {(h.book, h.kind): h for h in books.hits(pos)}
    if not books.books:
        lines.append("  (no books loaded)")
    for book in books.books:
        kind = "analysis" if book in books.analysis_books else "move"
        h = hits.get((book.name, kind))
        if h is None:
            lines.append(f"  {book.name:24} {kind:9} no entry")
        elif kind == "analysis":
            lines.append(f"  {h.book:24} analysis  {_columns(h.scores)}   best {h.column + 1} score {h.score}")
        else:
            lines.append(f"  {h.book:24} move      best {h.column + 1} score {h.score}")
    if books.books and not any(h.kind == "analysis" for h in hits.values()):
        composed = books.analysis(pos)
        if composed is not None:
            best = best_of(composed, g)
            assert best is not None  # composed scores know every open column
            lines.append(f"  {'composed (child scores)':24} analysis  {_columns(composed)}   "
                         f"best {best[0] + 1} score {best[1]}")
    replay = {"cmd": "replay", "moves": [c + 1 for c in pos.moves], "engine_starts": pos.to_move == 1}
    lines += ["", "replay on the bridge (" + ("the finished game" if pos.is_over else "you play the side to move")
              + "):", json.dumps(replay, separators=(",", ":"))]
    return "\n".join(lines)


def _columns(scores) -> str:
    return " ".join(f"{c + 1}:{'x' if s is None else s}" for c, s in enumerate(scores))


def run(args) -> int:
    from connect4.bookset import BookSet
    from connect4.kernels import require_single_word

    try:
        g = Geometry.parse(args.size) if args.size != "7x6" else STANDARD
        require_single_word(g, "the books (keys of 64 bits)")
        pos = read_position(" ".join(args.position), g, args.key, args.moves)
    except Connect4Error as exc:
        print(f"c4 bookview: {exc}", file=sys.stderr)
        return 2
    from c4.bookpaths import BookPathError, explicit_book_paths

    try:
        explicit_book_paths(args.books, "--books")
    except BookPathError as exc:
        print(f"c4 bookview: {exc}", file=sys.stderr)
        return 2
    books = BookSet.load(args.books)
    for problem in books.problems[:10]:
        print(f"c4 bookview: skipped {problem}", file=sys.stderr)
    print(describe(pos, books))
    return 0
