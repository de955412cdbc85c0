"""``c4 train dqn`` and ``c4 train pv``: train the learned players (PyTorch,
the optional extra ``train``). Every run writes into ``--out`` (checkpoints,
history.json, report.md, curves.png) and resumes from its checkpoint when
started again with the same settings; ``--export`` writes the run-time
weights file (and, for pv, its reference outputs) at the end."""

from __future__ import annotations

import shlex
import sys
from dataclasses import asdict
from pathlib import Path

from c4 import argtypes


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
    d.add_argument("--eval-every", type=int, default=500, help="episodes between strength checks")
    d.add_argument("--eval-pairs", type=int, default=10, help="paired openings per opponent in a check")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--export", default=None, help="write the run-time weights here at the end (.npz)")
    d.set_defaults(run=run_dqn)

    v = kinds.add_parser("pv", help="the policy/value net distilled from exact labels (docs/learned.md)")
    v.add_argument("--out", default="artifacts/train/pv", help="run folder (labels, checkpoints, curves)")
    v.add_argument("--games", type=int, default=600, help="ladder games whose positions are labelled")
    v.add_argument("--heldout-games", type=int, default=60, help="ladder games (another seed) for validation")
    v.add_argument("--node-budget", type=int, default=1_000_000,
                   help="solver nodes for a weak label (a strong one gets 30 %% of it first)")
    v.add_argument("--epochs", type=int, default=12)
    v.add_argument("--batch", type=int, default=256)
    v.add_argument("--lr", type=float, default=2e-3)
    v.add_argument("--channels", type=int, default=32)
    v.add_argument("--blocks", type=int, default=3)
    v.add_argument("--eval-pairs", type=int, default=10, help="paired openings against greedy and minimax:3 an epoch")
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--export", default=None, help="write the run-time weights here at the end (.npz)")
    v.set_defaults(run=run_pv)


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
    cfg = DqnConfig(episodes=args.episodes, hidden=hidden, lr=args.lr, gamma=args.gamma, double=args.double,
                    eval_every=args.eval_every, eval_pairs=args.eval_pairs, seed=args.seed)
    try:
        cfg.check()
        out = _prepare(args)
    except (ValueError, OutputError) as exc:
        return _fail(str(exc))
    if (bad := _torch_or_fail()) is not None:
        return bad
    from arena.progress import Progress
    from c4.training import dqn
    from c4.training.report import write_outputs
    from engine_svc.learned.weights import write_weights

    bar = Progress(cfg.episodes, "episodes")
    bar.done = 0
    result = dqn.train(cfg, out, progress=lambda e: bar.advance() if e > bar.done else None,
                       log=lambda s: print(s, file=sys.stderr))
    bar.finish()
    command = "c4 train dqn " + " ".join(shlex.quote(a) for a in sys.argv[3:])
    files = write_outputs(out, "DQN (self-play)", asdict(cfg), result["history"], "episode",
                          {"steps": result["steps"]}, command)
    meta = {"hidden": cfg.hidden, "double": cfg.double, "episodes": cfg.episodes, "seed": cfg.seed}
    weights = write_weights(out / "dqn-7x6.npz", "dqn", meta, dqn.export_arrays(result["model"]))
    dqn.write_reference(result["model"], weights)
    if args.export:
        write_weights(args.export, "dqn", meta, dqn.export_arrays(result["model"]))
        dqn.write_reference(result["model"], Path(args.export))
    print(f"weights {args.export or weights}; curves {files['png']}; report {files['md']}")
    return 0


def run_pv(args) -> int:
    from c4.outputs import OutputError
    from c4.training.pvtrain import PvConfig

    cfg = PvConfig(epochs=args.epochs, batch=args.batch, lr=args.lr, channels=args.channels, blocks=args.blocks,
                   eval_pairs=args.eval_pairs, seed=args.seed)
    try:
        cfg.check()
        if args.games < 1 or args.heldout_games < 1 or args.node_budget < 1000:
            raise ValueError("--games and --heldout-games must be at least 1, --node-budget at least 1000")
        out = _prepare(args)
    except (ValueError, OutputError) as exc:
        return _fail(str(exc))
    if (bad := _torch_or_fail()) is not None:
        return bad
    from c4.training.distil import distil

    return distil(cfg, args, Path(out))
