"""``c4 regimes``: the regime table (what each assumption about the opponent buys)."""

from __future__ import annotations

import json
import shlex
import sys

from c4 import argtypes


def _specs(text: str) -> list[str]:
    specs = [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        raise ValueError("give at least one player spec")
    return specs


def register(sub) -> None:
    p = sub.add_parser(
        "regimes",
        help="the regime table: each agent against each opponent from seeded openings, both seats; "
             "W/D/L, wins within N plies with 95 %% intervals, mean plies",
        description="Every agent plays every opponent from --openings seeded random openings of --opening-plies "
        "plies, each from both seats. A bare clairvoyant knows each opponent's actual policy. Prints the table "
        "as Markdown (or JSON with --json); --out writes regimes.json (every game) and regimes.md.",
    )
    p.add_argument("--agents", default="alphabeta,expectimax,clairvoyant,noisy_greedy",
                   help="comma-separated agent specs (default alphabeta,expectimax,clairvoyant,noisy_greedy)")
    p.add_argument("--opponents", default="greedy,noisy_greedy",
                   help="comma-separated opponent specs (default greedy,noisy_greedy)")
    p.add_argument("--openings", type=argtypes.int_in(1, 10000), default=10,
                   help="seeded random openings per row, each played from both seats (default 10)")
    p.add_argument("--opening-plies", type=argtypes.int_in(0), default=2,
                   help="random plies of each opening (default 2)")
    p.add_argument("--within", type=argtypes.int_in(1), default=25,
                   help="a fast win ends the game by this ply, counted from the empty board (default 25)")
    p.add_argument("--seed", type=int, default=1, help="seed of the openings and the noisy players (default 1)")
    p.add_argument("--size", default="7x6", help="board WxH (default 7x6)")
    p.add_argument("--connect", type=int, default=4, help="stones in a row that win (default 4)")
    p.add_argument("--json", action="store_true", help="print the table as JSON instead of Markdown")
    p.add_argument("--out", default=None, help="folder for regimes.json (with every game) and regimes.md")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(run=run)


def run(args) -> int:
    from connect4 import Connect4Error, Geometry

    from arena.players import PlayerError, check_pairings, check_spec

    def fail(msg: str) -> int:
        print(f"c4 regimes: {msg}", file=sys.stderr)
        return 2

    try:
        geometry = Geometry.parse(args.size, args.connect)
        agents, opponents = _specs(args.agents), _specs(args.opponents)
    except (Connect4Error, ValueError) as exc:
        return fail(str(exc))
    if args.opening_plies >= geometry.cells:
        return fail(f"--opening-plies must be in 0..{geometry.cells - 1} on a {geometry.name} board, "
                    f"got {args.opening_plies}")
    try:
        for spec in agents + opponents:
            check_spec(spec, geometry)
        for agent in agents:
            for opponent in opponents:
                check_pairings([agent, opponent])
    except PlayerError as exc:
        return fail(str(exc))
    from c4.outputs import OutputError, prepare_dir

    if args.out:
        try:
            prepare_dir(args.out)
        except OutputError as exc:
            return fail(f"--out: {exc}")
    from arena.regimes import RegimeConfig, markdown, run_regimes, summary_json

    cfg = RegimeConfig(agents, opponents, args.openings, args.opening_plies, args.seed, args.within, geometry)

    def progress(done: int, total: int, label: str) -> None:
        if not args.quiet:
            print(f"game {done}/{total}: {label}", file=sys.stderr, flush=True)

    try:
        raw = run_regimes(cfg, progress)
    except (PlayerError, ValueError, Connect4Error) as exc:
        return fail(str(exc))
    command = "c4 regimes " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if sys.argv[1:2] == ["regimes"] \
        else "c4 regimes"
    text = markdown(raw, command)
    if args.out:
        from pathlib import Path

        out = Path(args.out)
        (out / "regimes.json").write_text(json.dumps(raw, indent=1) + "\n")
        (out / "regimes.md").write_text(text)
    print(json.dumps(summary_json(raw), indent=1) if args.json else text, end="" if not args.json else "\n")
    return 0
