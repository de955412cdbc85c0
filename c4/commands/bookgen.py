"""``c4 bookgen``: opening books on Celery workers, the corrective book.

    c4 bookgen opening --size 7x6 --plies N [--local-workers K] [--out FILE]
    c4 bookgen analysis (--stones N [--min-stones M] | --positions FILE) [--book FILE] [--local-workers K]
    c4 bookgen worker [--concurrency N]
    c4 bookgen corrective --stones N [--depths 12,13] [--movetime-ms 2000] [--out FILE] [--shard I/N] [--max-seconds S]
    c4 bookgen merge-corrective NEW OLD --out FILE
    c4 bookgen merge-opening BOOK... --out FILE

See docs/bookgen.md.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from c4 import argtypes


def register(sub) -> None:
    parser = sub.add_parser("bookgen", help="generate opening and corrective books (Celery workers on Redis)")
    inner = parser.add_subparsers(dest="bookgen", metavar="KIND", required=True)

    op = inner.add_parser("opening", help="the first player's opening book, solved on workers")
    op.add_argument("--size", default="7x6", help="board, e.g. 7x6 or 6x5 (default 7x6)")
    op.add_argument("--k", type=int, default=4, help="line length (default 4)")
    op.add_argument("--plies", type=argtypes.int_in(1), required=True,
                    help="depth of the tree below the start: 12 = six moves of the side to move")
    op.add_argument("--start", default="", help="moves to the start position (default: the empty board)")
    op.add_argument("--out", help="book file (default books/<size>-opening.txt)")
    op.add_argument("--fresh", action="store_true", help="forget stored results of this board first")
    op.add_argument("--note", action="append", default=[], help="an extra header line (repeatable)")
    add_stack_options(op)
    op.add_argument("--guess-depth", type=argtypes.int_in(0, 42), default=12, metavar="D",
                    help="expand unsolved nodes below the engine's depth-D move and send the deepest positions "
                         "first (default 12; 0: expand only below solved moves, roots first)")
    op.add_argument("--all-ties", action="store_true",
                    help="the book side plays every move of the best score, not only the centre-most (bookgen.ties)")
    op.add_argument("--ties-from", metavar="BOOK", type=argtypes.existing_file, default=None,
                    help="with --all-ties: an analysis book whose positions need no task")
    op.add_argument("--keep-journal", action="store_true",
                    help="keep the journal (OUT.journal, OUT.ties.journal) after the book is written: with "
                         "--all-ties it is the only record of every tied move")
    add_check_options(op)
    op.set_defaults(run=run_opening)

    an = inner.add_parser("analysis", help="analysis-book lines (every column's exact score), solved on workers")
    an.add_argument("--size", default="7x6", help="board, e.g. 7x6 or 6x5 (default 7x6)")
    an.add_argument("--k", type=int, default=4, help="line length (default 4)")
    an.add_argument("--stones", type=argtypes.int_in(0), default=None,
                    help="every position with this many stones (mirror images once) that the book lacks")
    an.add_argument("--min-stones", type=argtypes.int_in(0), default=None,
                    help="with --stones: from this many stones on (default: --stones alone)")
    an.add_argument("--positions", type=argtypes.existing_file, default=None, metavar="FILE",
                    help="instead of --stones: these positions, one a line (any notation)")
    an.add_argument("--book", help="the analysis book extended: positions it holds are skipped, the new lines "
                                   "appended (default books/<size>-analysis.txt); the journal is BOOK.journal")
    an.add_argument("--known", nargs="*", default=None, type=argtypes.existing_file,
                    help="move and analysis books whose exact scores the workers preload "
                         "(default: the opening book and --book)")
    an.add_argument("--note", action="append", default=[], help="an extra word for the comment line (repeatable)")
    add_stack_options(an)
    add_check_options(an)
    an.set_defaults(run=run_analysis)

    wk = inner.add_parser("worker", help="run a bookgen worker in the foreground (REDIS_URL)")
    wk.add_argument("--concurrency", type=argtypes.int_in(1, 256), default=1, help="pool processes (default 1; one per core)")
    wk.add_argument("--loglevel", default="INFO")
    wk.add_argument("--name", default=None, help="worker name (default bookgen-<pid>@<host>)")
    wk.set_defaults(run=run_worker)

    co = inner.add_parser("corrective", help="audit the engine's early moves against the solver")
    co.add_argument("--stones", type=argtypes.int_in(1), required=True, help="audit positions with up to N stones")
    co.add_argument("--depths", type=argtypes.int_list(1, 42), default=None,
                    help="fixed engine search depths to audit, each 1..42 (default 12,13 without --movetime-ms)")
    co.add_argument("--movetime-ms", type=argtypes.int_list(1, 600000), default=None, metavar="MS",
                    help="audit the engine as engine:MS plays (on the clock), e.g. 2000; comma list")
    co.add_argument("--size", default="7x6")
    co.add_argument("--out", help="book file (default books/<size>-corrective.txt)")
    co.add_argument("--start", default="", help="audit below this position instead of the empty board")
    co.add_argument("--along", metavar="BOOK", type=argtypes.existing_file,
                    help="audit only the positions the engine meets against this opening book's first player")
    co.add_argument("--deviate", action="store_true",
                    help="with --along: the positions after each non-book move of the first player instead")
    co.add_argument("--min-stones", type=argtypes.int_in(0), default=0, help="skip positions with fewer stones")
    co.add_argument("--max-seconds", type=argtypes.float_in(0), default=None,
                    help="stop auditing after S seconds and write what was audited (said in the header)")
    co.add_argument("--shard", metavar="I/N", default=None,
                    help="audit every N-th position from the I-th only (one process per shard, each with its own "
                         "--out; a run over their joined journals writes the whole book)")
    co.add_argument("--books", nargs="*", default=None, type=argtypes.existing_file,
                    help="move and analysis books whose exact scores are reused (default: the opening and analysis books of the size)")
    co.add_argument("--note", action="append", default=[], help="an extra header line (repeatable)")
    add_check_options(co)
    co.set_defaults(run=run_corrective)

    mc = inner.add_parser("merge-corrective", help="join a new corrective audit with the book it extends")
    mc.add_argument("new", type=argtypes.existing_file, help="the new audit's book (it comes first and wins)")
    mc.add_argument("old", type=argtypes.existing_file, help="the earlier book (kept after it, minus superseded entries)")
    mc.add_argument("--out", required=True, help="the joined book (may be OLD itself)")
    mc.add_argument("--size", default="7x6")
    mc.set_defaults(run=run_merge_corrective)

    mo = inner.add_parser("merge-opening", help="join opening-book trees into one book")
    mo.add_argument("books", nargs="+", type=argtypes.existing_file, metavar="BOOK",
                    help="the trees (move books); a position in two of them must have the same move and score")
    mo.add_argument("--out", required=True, help="the joined book (may be one of the BOOKs)")
    mo.add_argument("--size", default="7x6")
    mo.set_defaults(run=run_merge_opening)


def add_check_options(p) -> None:
    """``--check-solver CMD``: another solver re-solves a sample before the book is written."""
    p.add_argument("--check-solver", metavar="CMD", default=None,
                   help="before writing, solve a sample of the entries with this solver too (Pons' line protocol, "
                        "e.g. c4solver or 'c4 solve'); any disagreement stops the run and nothing is written")
    p.add_argument("--check-sample", type=argtypes.int_in(0), default=100, metavar="N",
                   help="entries in the sample (default 100; 0: every entry)")
    p.add_argument("--check-timeout", type=argtypes.float_in(0, lo_open=True), default=3600.0, metavar="S",
                   help="seconds the other solver may take for one position (default 3600)")


def _redis_url(args) -> str:
    from books.bookgen.config import settings

    return args.redis_url or settings().redis_url


def _ping(url: str) -> None:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3).ping()
    except redis.exceptions.RedisError as exc:
        raise SystemExit(f"c4 bookgen: cannot reach Redis at {url} ({exc}); start redis-server, "
                         "set REDIS_URL, or pass --start-redis DIR") from None


def _terminate_cleanly() -> None:
    """SIGTERM ends the command through its ``finally`` blocks (workers stopped)."""
    import signal

    def handler(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


@contextlib.contextmanager
def _redis_and_workers(args) -> Iterator[tuple[str, Any]]:
    """(Redis URL, local workers or None) for a coordinator: ``--start-redis DIR``
    or ``--redis-url``/``REDIS_URL`` (pinged), ``--local-workers K`` started
    (each restarted up to ``--worker-restarts`` times); all stopped on the way out."""
    from books.bookgen.workers import LocalRedis, LocalWorkers

    redis_proc = LocalRedis(args.start_redis).start() if args.start_redis else None
    workers: LocalWorkers | None = None
    try:
        url = redis_proc.url if redis_proc else _redis_url(args)
        _ping(url)
        if args.local_workers > 0:
            def restarted(n: int, code: int) -> None:
                assert workers is not None  # called by the workers once they run
                print(f"c4 bookgen: local worker {n} exited with {code}; started again "
                      f"({workers.restarts[n - 1]}/{args.worker_restarts}); its task goes back to the queue "
                      "when its heartbeat expires", file=sys.stderr)

            workers = LocalWorkers(args.local_workers, url, log_dir=args.worker_logs,
                                   max_restarts=args.worker_restarts, on_restart=restarted).start()
            print(f"c4 bookgen: {args.local_workers} local worker(s), logs in {workers.log_dir}", file=sys.stderr)
        yield url, workers
    finally:
        if workers:
            workers.stop()
        if redis_proc:
            redis_proc.stop()


def add_stack_options(p) -> None:
    """Where the workers and their Redis are (opening and analysis)."""
    p.add_argument("--local-workers", type=argtypes.int_in(0, 256), default=0, metavar="K",
                   help="start K worker processes here (0: use workers started elsewhere)")
    p.add_argument("--redis-url", help="default: $REDIS_URL or redis://127.0.0.1:6379/0")
    p.add_argument("--start-redis", metavar="DIR",
                   help="start a private redis-server with its data in DIR (reruns reuse it)")
    p.add_argument("--resend-after", type=argtypes.float_in(0, lo_open=True), default=None, metavar="S",
                   help="send a task again when no result came after S seconds (default: the visibility timeout)")
    p.add_argument("--worker-logs", help="folder for local worker logs (default: a temporary folder)")
    p.add_argument("--worker-restarts", type=argtypes.int_in(0, 100), default=3, metavar="N",
                   help="start a local worker that died again up to N times (default 3); one more death ends the run")


def run_opening(args) -> int:
    _terminate_cleanly()
    from connect4 import Geometry, Position
    from connect4.errors import Connect4Error
    from connect4.kernels import require_single_word
    from books.bookgen.app import make_app
    from books.bookgen.config import BOOK_DIR, settings
    from books.bookgen.guess import engine_guess
    from books.bookgen.crosscheck import check_before_writing
    from books.bookgen.opening import OpeningCoordinator, book_header, opening_entries, write_book
    from servicekit.progress import Progress
    from books.bookgen.store import ResultStore

    try:
        g = Geometry.parse(args.size, args.k)
        require_single_word(g, "book generation (the exact solver)")
        start = Position.parse(args.start, g) if args.start else Position(g)
    except Connect4Error as exc:
        print(f"c4 bookgen: {exc}", file=sys.stderr)
        return 2
    from c4.outputs import OutputError, check_file

    out = Path(args.out) if args.out else BOOK_DIR / f"{g.name}-opening.txt"
    try:
        check_file(out)
    except OutputError as exc:
        print(f"c4 bookgen: --out: {exc}", file=sys.stderr)
        return 2
    if args.ties_from and not args.all_ties:
        print("c4 bookgen: --ties-from needs --all-ties", file=sys.stderr)
        return 2
    seed = None
    if args.ties_from:
        from connect4.book import AnalysisBook
        from connect4.bookset import is_analysis_file

        if not is_analysis_file(Path(args.ties_from), g):
            print(f"c4 bookgen: --ties-from: {args.ties_from} is not a {g.name} analysis book", file=sys.stderr)
            return 2
        seed = AnalysisBook.load(args.ties_from, g)
    journal_path = Path(str(out) + (".ties.journal" if args.all_ties else ".journal"))
    with _redis_and_workers(args) as (url, workers):
        store = ResultStore.from_url(url, g)
        if args.fresh:
            store.clear()
            journal_path.unlink(missing_ok=True)
        if seed is not None:
            from books.bookgen.opening import seed_ties

            print(f"c4 bookgen: {seed_ties(store, seed)} positions' tied moves from {args.ties_from}", file=sys.stderr)
        app = make_app(url)
        queue = settings().queue
        task = "bookgen.ties" if args.all_ties else "bookgen.best"

        def submit(pos):
            app.send_task(task, args=[g.name, [c + 1 for c in pos.moves]], queue=queue)

        coord = OpeningCoordinator(
            g, store, submit, plies=args.plies, start=start, journal=journal_path, ties=args.all_ties,
            progress=Progress("positions"),
            resend_after_s=args.resend_after if args.resend_after else settings().visibility_timeout + 60,
            on_poll=workers.check if workers else None,
            guess=engine_guess(g, args.guess_depth) if args.guess_depth > 0 else None,
        )
        result = coord.run()
        if not check_before_writing(args, opening_entries(g, result.entries), "c4 bookgen"):
            print("c4 bookgen: the solved positions stay in Redis and in the journal", file=sys.stderr)
            return 1
        write_book(out, result.entries, book_header(g, start, args.plies, len(result.entries), args.note,
                                                   ties=args.all_ties))
        if not args.keep_journal:
            journal_path.unlink(missing_ok=True)
        per_ply = ", ".join(f"{p} stones: {n}" for p, n in result.by_ply.items())
        print(f"c4 bookgen: wrote {out}: {len(result.entries)} positions ({per_ply}); solved in this run "
              f"{result.solved_now}, {result.elapsed_s:.1f} s", file=sys.stderr)
        return 0


def _has_entries(path: Path) -> bool:
    """Whether a book file holds a line that is not a comment."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return any(line.split("#", 1)[0].strip() for line in f)


def run_analysis(args) -> int:
    _terminate_cleanly()
    from connect4 import Geometry
    from connect4.book import AnalysisBook
    from connect4.bookset import is_analysis_file
    from connect4.errors import Connect4Error
    from connect4.kernels import require_single_word
    from books.bookgen.analysis import (AnalysisCoordinator, append_lines, check_entries, parse_position_file,
                                        positions_to_analyse)
    from books.bookgen.app import make_app
    from books.bookgen.config import BOOK_DIR, settings
    from books.bookgen.corrective import known_from_books
    from books.bookgen.crosscheck import check_before_writing
    from books.bookgen.store import ResultStore
    from c4.outputs import OutputError, check_file
    from servicekit.progress import Progress

    try:
        g = Geometry.parse(args.size, args.k)
        require_single_word(g, "book generation (the exact solver)")
        if (args.stones is None) == (args.positions is None):
            raise ValueError("give --stones N or --positions FILE (one of them)")
        if args.stones is not None and not 0 <= args.stones < g.cells:
            raise ValueError(f"--stones must be in 0..{g.cells - 1} on a {g.name} board, got {args.stones}")
        min_stones = args.stones if args.min_stones is None else args.min_stones
        if args.stones is not None and not 0 <= min_stones <= args.stones:
            raise ValueError(f"--min-stones must be in 0..{args.stones} (at most --stones), got {min_stones}")
        book_path = Path(args.book) if args.book else BOOK_DIR / f"{g.name}-analysis.txt"
        check_file(book_path)
        if book_path.exists() and _has_entries(book_path) and not is_analysis_file(book_path, g):
            raise ValueError(f"--book: {book_path} is not a {g.name} analysis book")
        book = AnalysisBook.load(book_path, g) if book_path.exists() else None
        positions = (positions_to_analyse(g, min_stones, args.stones, book) if args.stones is not None
                     else [p for p in parse_position_file(Path(args.positions), g)
                           if book is None or book.lookup(p) is None])
        known_paths = (args.known if args.known is not None
                       else [BOOK_DIR / f"{g.name}-opening.txt", book_path])
    except (Connect4Error, ValueError, OutputError) as exc:
        print(f"c4 bookgen analysis: {exc}", file=sys.stderr)
        return 2
    journal_path = Path(str(book_path) + ".journal")
    print(f"c4 bookgen analysis: {len(positions)} positions not in {book_path}", file=sys.stderr)
    if not positions:
        return 0
    with _redis_and_workers(args) as (url, workers):
        store = ResultStore.from_url(url, g)
        known = known_from_books(known_paths, g)
        store.put_scores(known)
        print(f"c4 bookgen analysis: {len(known)} exact scores from "
              f"{', '.join(map(str, known_paths)) or 'no book'} in the store", file=sys.stderr)
        app = make_app(url)
        queue = settings().queue

        def submit(pos):
            app.send_task("bookgen.analyze", args=[g.name, [c + 1 for c in pos.moves]], queue=queue)

        coord = AnalysisCoordinator(
            g, store, submit, positions, journal=journal_path, progress=Progress("positions"),
            resend_after_s=args.resend_after if args.resend_after else settings().visibility_timeout + 60,
            on_poll=workers.check if workers else None)
        result = coord.run()
        if not check_before_writing(args, check_entries(g, result.lines), "c4 bookgen analysis"):
            print(f"c4 bookgen analysis: the lines stay in Redis and in {journal_path}", file=sys.stderr)
            return 1
        what = (f"every position with {min_stones} to {args.stones} stones" if args.stones is not None
                else f"the positions of {Path(args.positions).name}")
        append_lines(book_path, g, result.lines,
                     f"{len(result.lines)} lines: {what} not held above (c4 bookgen analysis"
                     + "".join(f"; {n}" for n in args.note) + ")")
        journal_path.unlink(missing_ok=True)
        print(f"c4 bookgen analysis: appended {len(result.lines)} lines to {book_path}; solved in this run "
              f"{result.solved_now}, {result.elapsed_s:.1f} s", file=sys.stderr)
        return 0


def run_worker(args) -> int:
    import os
    import socket

    from books.bookgen.config import BookgenSettings
    from books.bookgen.workers import worker_argv
    from servicekit.settings_check import settings_or_exit

    settings_or_exit(BookgenSettings, "c4 bookgen worker")
    from books.bookgen.app import app

    name = args.name or f"bookgen-{os.getpid()}@{socket.gethostname()}"
    app.worker_main(worker_argv(name, args.concurrency, args.loglevel))
    return 0


def _writable_out(args, prog: str) -> bool:
    """``--out`` a file whose folder can be written (else one line on stderr); no ``--out`` passes."""
    from c4.outputs import OutputError, check_file

    try:
        if args.out:
            check_file(args.out)
    except OutputError as exc:
        print(f"{prog}: --out: {exc}", file=sys.stderr)
        return False
    return True


def run_corrective(args) -> int:
    from books.bookgen.corrective import main as corrective_main

    # without --out: books/<size>-corrective.txt, the shipped book's place
    return corrective_main(args) if _writable_out(args, "c4 bookgen corrective") else 2


def run_merge_corrective(args) -> int:
    from books.bookgen.corrective_merge import main as merge_main

    return merge_main(args) if _writable_out(args, "c4 bookgen merge-corrective") else 2


def run_merge_opening(args) -> int:
    from books.bookgen.opening_merge import main as merge_main

    return merge_main(args) if _writable_out(args, "c4 bookgen merge-opening") else 2
