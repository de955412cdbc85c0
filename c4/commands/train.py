"""``c4 train dqn`` and ``c4 train pv``: train the learned players (PyTorch,
the optional extra ``train``). Every run writes into ``--out`` (checkpoints,
history.json, report.md, curves.png) and resumes from its checkpoint when
started again with the same settings; ``--export`` writes the run-time
weights file (and, for pv, its reference outputs) at the end."""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import asdict
from pathlib import Path



def register(sub) -> None:
    p = sub.add_parser("train", help="train the learned players (needs the optional extra 'train': PyTorch)")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)

    d = kinds.add_parser("dqn", help="the study's DQN by self-play (docs/learned.md)")
    d.add_argument("--out", default="artifacts/train/dqn", help="run folder (checkpoints, curves)")
    d.add_argument("--episodes", type=int, default=3000)
    d.add_argument("--hidden", default="128,128", help="hidden layer sizes, comma-separated")
    d.add_argument("--lr", type=float, default=1e-3)
    d.add_argument("--gamma", type=float, default=0.99)
    d.add_argument("--double", action="store_true", help="Double DQN targets (the improvement measured)")
    d.add_argument("--solver-targets", default="",
                   help="c4 train labels folders (comma-separated): regress the legal columns' Q-values toward "
                        "their exact results (docs/learned.md); the held-out set's positions are left out")
    d.add_argument("--bellman-weight", type=float, default=1.0,
                   help="with --solver-targets: the Bellman loss's weight beside the solver-target loss")
    d.add_argument("--target-scale", type=float, default=0.0,
                   help="with --solver-targets: 0 = targets sign(score); S > 0 = clip(score / S, -1, 1)")
    d.add_argument("--target-decay", type=float, default=1.0,
                   help="with --solver-targets: D < 1 = targets sign(score) * D ** (plies to the end - 1)")
    d.add_argument("--label-warmup", type=int, default=0,
                   help="with --solver-targets: learning steps on the labels alone before the first episode")
    d.add_argument("--heldout", default=None,
                   help="held-out labels .npz, never trained on, scored at each check "
                        "(default: the shipped books/models/heldout-7x6.npz)")
    d.add_argument("--eval-every", type=int, default=500, help="episodes between strength checks")
    d.add_argument("--eval-pairs", type=int, default=10, help="paired openings per opponent in a check")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--export", default=None, help="write the run-time weights here at the end (.npz)")
    d.set_defaults(run=run_dqn)

    v = kinds.add_parser("pv", help="the policy/value net distilled from exact labels (docs/learned.md)")
    v.add_argument("--out", default="artifacts/train/pv", help="run folder (labels, checkpoints, curves)")
    v.add_argument("--games", type=int, default=600,
                   help="ladder games whose positions are labelled (0: none; train on --extra-labels)")
    v.add_argument("--max-positions", type=int, default=0,
                   help="label and train on only the first N positions of the games (0: all)")
    v.add_argument("--extra-labels", default="",
                   help="more label folders (made by the same labelling, e.g. with other games), comma-separated")
    v.add_argument("--no-book-positions", dest="book_positions", action="store_false",
                   help="do not add the analysis book's entries (the early plies) to the training set")
    v.add_argument("--heldout-games", type=int, default=60, help="ladder games (another seed) for validation")
    v.add_argument("--heldout", default=None,
                   help="a fixed held-out labels .npz (e.g. books/models/heldout-7x6.npz) instead of --heldout-games")
    v.add_argument("--node-budget", type=int, default=1_000_000,
                   help="solver nodes for a weak label (a strong one gets 30 %% of it first)")
    v.add_argument("--epochs", type=int, default=12)
    v.add_argument("--batch", type=int, default=256)
    v.add_argument("--lr", type=float, default=2e-3)
    v.add_argument("--lr-schedule", choices=("constant", "cosine"), default="constant",
                   help="constant, or a half cosine from --lr to 0 over the run")
    v.add_argument("--channels", type=int, default=32)
    v.add_argument("--blocks", type=int, default=3)
    v.add_argument("--value-hidden", type=int, default=64)
    v.add_argument("--eval-pairs", type=int, default=10, help="paired openings against greedy and minimax:3 an epoch")
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--export", default=None, help="write the run-time weights here at the end (.npz)")
    v.set_defaults(run=run_pv)

    lb = kinds.add_parser("labels", help="exact labels of ladder positions at scale, in resumable blocks (no PyTorch)")
    lb.add_argument("--out", default="artifacts/train/labels", help="run folder (block-*.npz); a rerun resumes")
    lb.add_argument("--blocks", type=int, default=100, help="blocks of games to make (a rerun adds the missing ones)")
    lb.add_argument("--games-per-block", type=int, default=25)
    lb.add_argument("--node-budget", type=int, default=1_000_000, help="solver nodes for a weak label")
    lb.add_argument("--strong-budget", type=int, default=300_000, help="solver nodes for a strong label, tried first")
    lb.add_argument("--exclude", default=None,
                    help="a labels .npz (e.g. books/models/heldout-7x6.npz) whose positions are never labelled")
    lb.add_argument("--pool", default=None,
                    help="players the games draw from, comma-separated (default: the ladder's; with net or az:N "
                         "the positions the learned players reach, a DAgger pass)")
    lb.add_argument("--seed", type=int, default=0)
    lb.set_defaults(run=run_labels)

    q = kinds.add_parser("quality", help="held-out quality of a pv net on solver-proven positions (no PyTorch)")
    q.add_argument("--weights", default=None, help="a pv weights file (default: the shipped one)")
    q.add_argument("--labels", default=None,
                   help="a labels folder (c4 train pv's labels-heldout) or .npz (default: the shipped held-out set)")
    q.add_argument("--json", action="store_true")
    q.set_defaults(run=run_quality)

    sp = kinds.add_parser("selfplay", help="self-play PUCT generations from a pv net, each kept only if it wins")
    sp.add_argument("--start", default="books/models/pv-7x6.npz", help="the net to start from")
    sp.add_argument("--labels", default="books/labels/7x6/labels-s12,books/labels/7x6/labels-s13",
                    help="exact labels mixed into each generation's training: comma-separated folders of "
                         "c4 train labels or c4 train pv (default: the shipped s12 and s13 runs)")
    sp.add_argument("--heldout", default="books/models/heldout-7x6.npz",
                    help="labels never trained on (default: the shipped held-out set)")
    sp.add_argument("--out", default="artifacts/train/selfplay")
    sp.add_argument("--generations", type=int, default=2)
    sp.add_argument("--games", type=int, default=40, help="self-play games a generation")
    sp.add_argument("--sims", type=int, default=64, help="PUCT simulations a self-play move")
    sp.add_argument("--epochs", type=int, default=3)
    sp.add_argument("--lr", type=float, default=5e-4)
    sp.add_argument("--gate-pairs", type=int, default=20, help="paired openings of the gate match")
    sp.add_argument("--gate-sims", type=int, default=64)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--export", default=None, help="copy the last kept net here (.npz) with reference outputs")
    sp.set_defaults(run=run_selfplay)


def _fail(msg: str) -> int:
    print(f"c4 train: {msg}", file=sys.stderr)
    return 2


def _prepare(args):
    """The run folder and export path, checked before any work (OutputError, ValueError)."""
    from c4.outputs import check_file, prepare_dir

    out = prepare_dir(args.out)
    if args.export:
        if not args.export.endswith(".npz"):
            raise ValueError(f"--export {args.export}: the weights file must end in .npz")
        check_file(args.export)
    return out


def _torch_or_fail():
    try:
        import torch  # noqa: F401
    except ImportError:
        return _fail("PyTorch is not installed: pip install -e '.[train]' (training only; play needs numpy only)")
    return None


def run_dqn(args) -> int:
    from c4.outputs import OutputError
    from c4.training.dqn import DqnConfig

    try:
        hidden = [int(h) for h in args.hidden.split(",") if h.strip()]
    except ValueError:
        return _fail(f"--hidden {args.hidden!r}: give layer sizes like 128,128")
    from engine_svc.learned.players import model_path

    heldout = args.heldout if args.heldout is not None else str(model_path(HELDOUT_FILE))
    if args.heldout is None and not Path(heldout).is_file():
        heldout = ""  # no shipped held-out set: no held-out figure
    cfg = DqnConfig(episodes=args.episodes, hidden=hidden, lr=args.lr, gamma=args.gamma, double=args.double,
                    eval_every=args.eval_every, eval_pairs=args.eval_pairs, seed=args.seed,
                    solver_targets=[f.strip() for f in args.solver_targets.split(",") if f.strip()],
                    bellman_weight=args.bellman_weight, target_scale=args.target_scale, target_decay=args.target_decay,
                    label_warmup=args.label_warmup, heldout=heldout)
    try:
        cfg.check()
        out = _prepare(args)
    except (ValueError, OutputError) as exc:
        return _fail(str(exc))
    if (bad := _torch_or_fail()) is not None:
        return bad
    from servicekit.progress import Progress
    from c4.training import dqn
    from c4.training.report import write_outputs
    from engine_svc.learned.weights import write_weights

    bar = Progress("episodes", cfg.episodes)
    bar.done = 0
    result = dqn.train(cfg, out, progress=lambda e: bar.advance() if e > bar.done else None,
                       log=lambda s: print(s, file=sys.stderr))
    bar.finish()
    command = "c4 train dqn " + " ".join(shlex.quote(a) for a in sys.argv[3:])
    files = write_outputs(out, "DQN (self-play)", asdict(cfg), result["history"], "episode",
                          {"steps": result["steps"]}, command)
    meta = {"hidden": cfg.hidden, "double": cfg.double, "episodes": cfg.episodes, "seed": cfg.seed}
    if cfg.solver_targets:
        meta.update(solver_targets=cfg.solver_targets, bellman_weight=cfg.bellman_weight,
                    target_scale=cfg.target_scale, target_decay=cfg.target_decay, label_warmup=cfg.label_warmup)
    if cfg.heldout:
        from c4.training.labels import read_labels_file
        from c4.training.solver_targets import dqn_quality

        held = read_labels_file(cfg.heldout)
        q = dqn_quality(dqn.q_values(result["model"], held), held)
        (out / "quality.json").write_text(json.dumps(q, indent=1))
        print(f"held-out ({cfg.heldout}, {q['positions']} solver-proven positions): "
              f"the greedy column keeps the game-theoretic value in {q['move_keeps_value']:.1%}")
        for band, b in q["by_ply"].items():
            print(f"  plies {band:>5}: {b['positions']:4d} positions, keeps value {b['move_keeps_value']:.1%}")
    weights = write_weights(out / "dqn-7x6.npz", "dqn", meta, dqn.export_arrays(result["model"]))
    dqn.write_reference(result["model"], weights)
    if args.export:
        write_weights(args.export, "dqn", meta, dqn.export_arrays(result["model"]))
        dqn.write_reference(result["model"], Path(args.export))
    print(f"weights {args.export or weights}; curves {files['png']}; report {files['md']}")
    return 0


def run_pv(args) -> int:
    from c4.outputs import OutputError
    from c4.training.labelrun import label_folders
    from c4.training.pvtrain import PvConfig

    cfg = PvConfig(epochs=args.epochs, batch=args.batch, lr=args.lr, lr_schedule=args.lr_schedule,
                   channels=args.channels, blocks=args.blocks,
                   value_hidden=args.value_hidden, eval_pairs=args.eval_pairs, seed=args.seed)
    try:
        cfg.check()
        if args.games < 0 or args.heldout_games < 1 or args.node_budget < 1000 or args.max_positions < 0:
            raise ValueError("--games at least 0, --heldout-games at least 1, --node-budget at least 1000, "
                             "--max-positions at least 0")
        if args.games == 0 and not args.extra_labels:
            raise ValueError("--games 0 needs --extra-labels (something to train on)")
        if args.heldout and not Path(args.heldout).is_file():
            raise ValueError(f"--heldout {args.heldout}: no such file")
        try:
            label_folders(args.extra_labels)
        except FileNotFoundError as exc:
            raise ValueError(f"--extra-labels: {exc}") from exc
        out = _prepare(args)
    except (ValueError, OutputError) as exc:
        return _fail(str(exc))
    if (bad := _torch_or_fail()) is not None:
        return bad
    from c4.training.distil import distil

    return distil(cfg, args, Path(out))


def run_selfplay(args) -> int:
    from c4.outputs import OutputError
    from c4.training.selfplay import SelfPlayConfig
    from engine_svc.learned.weights import WeightsError, read_weights

    cfg = SelfPlayConfig(generations=args.generations, games=args.games, sims=args.sims, epochs=args.epochs,
                         lr=args.lr, gate_pairs=args.gate_pairs, gate_sims=args.gate_sims, seed=args.seed)
    try:
        cfg.check()
        read_weights(args.start, "pv")
        from c4.training.labelrun import load_folders
        from c4.training.labels import canonical_keys

        try:
            held = canonical_keys(args.heldout)
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"--heldout {args.heldout}: {exc}") from exc
        try:
            labels = load_folders(args.labels, exclude=held)
        except FileNotFoundError as exc:
            raise ValueError(f"--labels: {exc}") from exc
        out = _prepare(args)
    except (ValueError, OutputError, WeightsError) as exc:
        return _fail(str(exc))
    if (bad := _torch_or_fail()) is not None:
        return bad
    import json

    from c4.training.report import write_outputs
    from c4.training.selfplay import iterate

    result = iterate(cfg, Path(args.start), labels, out,
                     log=lambda s: print(s, file=sys.stderr))
    command = "c4 train selfplay " + " ".join(shlex.quote(a) for a in sys.argv[3:])
    write_outputs(out, "self-play PUCT generations", asdict(cfg), result["history"], "generation", None, command)
    if args.export:
        import shutil

        from c4.training.distil import reference_path

        shutil.copyfile(result["current"], args.export)
        _pv_reference(Path(args.export), labels)
        print(f"exported {args.export} and {reference_path(Path(args.export))}")
    print(json.dumps(result["history"]))
    return 0


def _pv_reference(weights: Path, labels: dict) -> None:
    """Reference outputs for an exported net, from the PyTorch model loaded with its weights."""
    import numpy as np
    import torch

    from c4.training.distil import reference_outputs, reference_path
    from c4.training.pvtorch import build
    from c4.training.selfplay import _torch_name
    from engine_svc.learned.weights import read_weights

    meta, arrays = read_weights(weights, "pv")
    model = build(meta["channels"], meta["blocks"], meta["value_hidden"])
    model.load_state_dict({_torch_name(k): torch.from_numpy(v) for k, v in arrays.items()})
    np.savez(reference_path(weights), **reference_outputs(model, labels))


def run_labels(args) -> int:
    import json

    from c4.outputs import OutputError, prepare_dir
    from c4.training.labelrun import check_pool, label_run, summary
    from c4.training.labels import canonical_keys
    from servicekit.progress import Progress

    try:
        if args.blocks < 1 or args.games_per_block < 1:
            raise ValueError("--blocks and --games-per-block must be at least 1")
        if args.node_budget < 1000 or not 1000 <= args.strong_budget <= args.node_budget:
            raise ValueError("--node-budget at least 1000, --strong-budget between 1000 and --node-budget")
        pool = _player_pool(args.pool)
        exclude: set[int] = set()
        if args.exclude:
            exclude = canonical_keys(args.exclude)
        out = prepare_dir(args.out)
        check_pool(Path(out), pool)
    except (ValueError, OutputError, OSError, KeyError) as exc:
        return _fail(str(exc))
    bar = Progress("blocks labelled", args.blocks)
    label_run(Path(out), args.blocks, args.seed, args.node_budget, args.strong_budget, args.games_per_block,
              exclude, progress=lambda i: bar.advance(n=i - bar.done), log=lambda s: print(s, file=sys.stderr),
              pool=pool)
    bar.finish()
    print(json.dumps(summary(Path(out))))
    return 0


def _player_pool(text: str | None) -> tuple[str, ...]:
    """The --pool players, each made once here so a bad name or a broken weights file fails before any work."""
    from connect4 import STANDARD
    from c4.training.games import POOL
    from engine_svc.players import make_player

    if text is None:
        return POOL
    names = tuple(n.strip() for n in text.split(","))
    if not all(names):
        raise ValueError(f"--pool {text!r}: an empty player name")
    for name in names:
        try:
            make_player(name, STANDARD, seed=0)
        except ValueError as exc:  # InvalidSpec, or WeightsError for a learned player's broken file
            raise ValueError(f"--pool: {name!r} is not a player here ({exc})") from exc
    return names


HELDOUT_FILE = "heldout-7x6.npz"


def run_quality(args) -> int:
    import json

    from c4.training.labels import load_labels, read_labels_file
    from c4.training.quality import quality
    from engine_svc.learned.players import PV_FILE, model_path
    from engine_svc.learned.pvnet import PolicyValueNet
    from engine_svc.learned.weights import WeightsError

    weights = Path(args.weights) if args.weights else model_path(PV_FILE)
    labels = Path(args.labels) if args.labels else model_path(HELDOUT_FILE)
    try:
        net = PolicyValueNet.load(weights)
        if labels.is_dir():
            data = load_labels(labels)
        elif labels.is_file():
            data = read_labels_file(labels)
        else:
            raise FileNotFoundError(f"--labels {labels} does not exist")
    except (WeightsError, FileNotFoundError, KeyError, ValueError, OSError) as exc:
        return _fail(str(exc))
    q = quality(net, data)
    if args.json:
        print(json.dumps(q))
        return 0
    print(f"{weights} on {q['positions']} held-out solver-proven positions ({labels})")
    print(f"  best column keeps the game-theoretic value: {q['move_keeps_value']:.1%}")
    print(f"  value head's sign, decided positions ({q['decided_positions']}): {q['value_sign_accuracy']:.1%}")
    print(f"  value head win/draw/loss (thresholds +-1/3): {q['value_three_way_accuracy']:.1%}")
    for band, b in q["by_ply"].items():
        sign = "" if b["value_sign"] is None else f", value sign {b['value_sign']:.1%}"
        print(f"  plies {band:>5}: {b['positions']:4d} positions, keeps value {b['move_keeps_value']:.1%}{sign}")
    return 0
