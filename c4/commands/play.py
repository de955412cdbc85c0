"""``c4 play [--size WxH] [--connect K] PLAYER PLAYER``: a game in the terminal."""

from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal: you against a player, or two players",
        description="A game in the terminal. Each PLAYER is 'you' (type moves: a letter d, a number 4 or a cell d3; "
        "'?' or 'help' for help, 'quit' or ':q' to stop) or a player spec (random, greedy, gated, easy, medium, hard, "
        "minimax:D, mcts:N, engine:MS, perfect). The perfect player plays from the shipped books where they have "
        "the position, as the solver service does. Colours when the output is a terminal and NO_COLOR is unset. "
        "With --guarded the gate checks each of your moves (takes_win, blocks_threat, not_under_threat, "
        "no_loss_in_two) and replaces one that fails by its choice, showing which checks failed and why.",
    )
    p.add_argument("first", metavar="PLAYER", help="the first player: you or a spec")
    p.add_argument("second", metavar="PLAYER", help="the second player: you or a spec")
    p.add_argument("--size", default="7x6", help="board WxH (default 7x6)")
    p.add_argument("--connect", type=int, default=4, help="stones in a row that win (default 4)")
    p.add_argument("--from", dest="start", default="", metavar="MOVES", help="start from these moves")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--engine-books", default="default",
                   help="books of an engine player on 7x6: default (opening + corrective), none, or paths")
    p.add_argument("--books", default="default",
                   help="books of the perfect player: default (the shipped books/, as the solver service), none, "
                        "or paths (comma separated)")
    p.add_argument("--guarded", action="store_true",
                   help="the gate guards your moves: a move failing one of its four checks is replaced by its choice")
    p.add_argument("--colour", "--color", dest="colour", choices=["auto", "always", "never"], default="auto")
    p.set_defaults(run=run)


def run(args) -> int:
    from connect4 import Connect4Error, Geometry, Position

    from arena.board import use_colour
    from arena.play import HUMAN, Quit, Seat, play_terminal
    from arena.players import PlayerError, PlayerFactory, check_spec

    def fail(msg: str) -> int:
        print(f"c4 play: {msg}", file=sys.stderr)
        return 2

    try:
        geometry = Geometry.parse(args.size, args.connect)
        start = Position.parse(args.start, geometry)
    except Connect4Error as exc:
        return fail(str(exc))
    if start.is_over:
        return fail(f"the game after {args.start!r} is already over")
    if args.guarded and HUMAN not in (args.first.strip().lower(), args.second.strip().lower()):
        return fail("--guarded guards a person's moves: one PLAYER must be 'you'")
    from c4.bookpaths import BookPathError, explicit_book_paths

    try:
        explicit_book_paths(args.books, "--books")
        explicit_book_paths(args.engine_books, "--engine-books")
    except BookPathError as exc:
        return fail(str(exc))
    engine_books = args.engine_books if geometry.is_standard else "none"
    factory = PlayerFactory(geometry, books=_perfect_books(args), engine_books=engine_books)
    seats = []
    for i, name in enumerate((args.first, args.second)):
        if name.strip().lower() == HUMAN:
            seats.append(Seat(HUMAN, None, guarded=args.guarded))
            continue
        try:
            check_spec(name, geometry)
            seats.append(Seat(name, factory.make(name, seed=args.seed + i)))
        except PlayerError as exc:
            return fail(f"player {name!r}: {exc}")
        except Connect4Error as exc:
            return fail(f"player {name!r}: {exc}")
    colour = {"always": True, "never": False}.get(args.colour, use_colour(sys.stdout))
    try:
        play_terminal(seats, start, sys.stdin, sys.stdout, colour=colour)
    except Quit as exc:
        print(f"game abandoned ({exc})")
        return 1
    finally:
        factory.close()
    return 0


def _perfect_books(args):
    """The perfect player's BookSet (connect4.bookset), loaded only when a seat is perfect."""
    if not any(s.strip().lower().split(":")[0] == "perfect" for s in (args.first, args.second)):
        return None
    from connect4.bookset import load_setting

    return load_setting(args.books)
