"""What a game command checks before its first move, in one place."""

from __future__ import annotations

import sys


def check_game_inputs(command: str, args, via) -> int | None:
    """The checks ``c4 audit`` and ``c4 versus`` make before their first move:
    book paths, the ``--json`` file, the services of ``--via-grpc``. Prints the
    problem and returns the exit status (2: a bad argument, 1: a service down),
    or None when all is well."""
    from c4.bookpaths import BookPathError, explicit_book_paths
    from c4.outputs import OutputError, check_file
    from c4.reach import Unreachable, require_services

    try:
        explicit_book_paths(args.books, "--books")
        explicit_book_paths(args.engine_books, "--engine-books")
        if args.json_out:
            check_file(args.json_out)
        require_services(via.engine_addr, via.solver_addr)
    except BookPathError as exc:
        print(f"c4 {command}: {exc}", file=sys.stderr)
        return 2
    except OutputError as exc:
        print(f"c4 {command}: --json: {exc}", file=sys.stderr)
        return 2
    except Unreachable as exc:
        print(f"c4 {command}: {exc}", file=sys.stderr)
        return 1
    return None
