"""``c4 train pv``'s pipeline: ladder positions, exact labels, training,
export (weights + reference outputs), curves and the held-out quality."""

from __future__ import annotations

import json
import pickle
import shlex
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np


def positions(out: Path, name: str, games: int, seed: int, exclude: set[int] | None = None):
    """The ladder positions of a run, made once and kept (``positions.pkl``)."""
    from connect4 import Position

    from .games import ladder_positions

    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    cache = folder / "positions.pkl"
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    samples = ladder_positions(games, seed)
    if exclude:
        samples = [s for s in samples if Position.from_moves(s.moves).canonical_key() not in exclude]
    cache.write_bytes(pickle.dumps(samples))
    return samples


def label(out: Path, name: str, samples, node_budget: int) -> dict:
    from servicekit.progress import Progress

    from .labels import label_positions, load_labels, summarize

    bar = Progress(f"{name} positions labelled", len(samples))
    label_positions(samples, out / name, node_budget=node_budget, strong_budget=int(node_budget * 0.3),
                    progress=lambda i: bar.advance(n=i - bar.done))
    bar.finish()
    return {"data": load_labels(out / name, len(samples)), "stats": summarize(samples, out / name, len(samples))}


def reference_outputs(net, data: dict, count: int = 64, seed: int = 0) -> dict:
    """Inputs (bitboards) and the trainer's outputs, stored beside the weights for the runtime test."""
    import torch

    from engine_svc.learned.encode import planes_many

    idx = np.random.default_rng(seed).choice(len(data["current"]), size=min(count, len(data["current"])), replace=False)
    cur, mask = data["current"][idx], data["mask"][idx]
    net.eval()
    with torch.no_grad():
        logits, value = net(torch.from_numpy(planes_many(cur, mask)))
    return {"current": cur, "mask": mask, "logits": logits.numpy(), "value": value.numpy()}


def export(model, cfg, path: Path, ref_data: dict, extra_meta: dict) -> Path:
    from engine_svc.learned.weights import write_weights

    from .pvtorch import export_arrays

    meta = {"channels": cfg.channels, "blocks": cfg.blocks, "value_hidden": cfg.value_hidden, **extra_meta}
    write_weights(path, "pv", meta, export_arrays(model))
    ref = reference_outputs(model, ref_data)
    np.savez(reference_path(path), **ref)
    return path


def reference_path(weights: Path) -> Path:
    return Path(weights).with_name(Path(weights).stem + ".reference.npz")


def distil(cfg, args, out: Path) -> int:
    from connect4 import Position
    from engine_svc.learned.pvnet import PolicyValueNet

    from .pvtrain import train
    from .quality import quality
    from .report import write_outputs

    from .labelrun import folder_summary, label_folders, load_folder
    from .labels import _canonical, book_labels, merge, read_labels_file

    log = lambda s: print(s, file=sys.stderr)  # noqa: E731
    train_samples = positions(out, "labels-train", args.games, args.seed + 1) if args.games else []
    if args.max_positions:
        train_samples = train_samples[:args.max_positions]
    if args.heldout:  # a fixed held-out set (e.g. the shipped one): nets trained apart compare on it
        ho: dict = {"data": read_labels_file(args.heldout), "stats": {"file": str(args.heldout)}}
    else:
        seen = {Position.from_moves(s.moves).canonical_key() for s in train_samples}
        held_samples = positions(out, "labels-heldout", args.heldout_games, args.seed + 1_000_001, exclude=seen)
        ho = label(out, "labels-heldout", held_samples, args.node_budget)
    tr = label(out, "labels-train", train_samples, args.node_budget) if train_samples else None
    log(f"labels: train {tr and tr['stats']}, held out {ho['stats']}")

    held = {_canonical(int(c), int(m)) for c, m in zip(ho["data"]["current"], ho["data"]["mask"], strict=True)}
    parts = [tr["data"]] if tr else []
    extra_stats = {}
    for folder in label_folders(args.extra_labels or ""):
        # more labelled ladder positions (another seed, maybe other budgets), less the held-out ones
        parts.append(load_folder(folder, held))
        extra_stats[str(folder)] = folder_summary(folder)
        log(f"extra labels {folder}: {extra_stats[str(folder)]}")
    if args.book_positions:  # every analysis-book entry too (the early plies), less the held-out positions
        parts.append(book_labels(exclude=held))
    train_data = merge(*parts)
    log(f"training positions: {len(train_data['current'])}")
    result = train(cfg, train_data, ho["data"], out, log=log)
    weights = export(result["model"], cfg, out / "pv-7x6.npz", ho["data"],
                     {"positions": int(len(train_data["current"])), "seed": cfg.seed,
                      "best_epoch": result["best_epoch"]})
    q = quality(PolicyValueNet.load(weights), ho["data"])
    (out / "quality.json").write_text(json.dumps(q, indent=1))
    command = "c4 train pv " + " ".join(shlex.quote(a) for a in sys.argv[3:])
    files = write_outputs(out, "policy/value net distilled from exact labels", asdict(cfg), result["history"],
                          "epoch", {"labels_train": tr and tr["stats"], "labels_extra": extra_stats,
                                    "labels_heldout": ho["stats"],
                                    "training_positions": int(len(train_data["current"])),
                                    "best_epoch": result["best_epoch"], "quality": q},
                          command)
    np.savez(out / "heldout-7x6.npz", **ho["data"])  # the held-out set, for `c4 train quality` anywhere
    if args.export:
        import shutil

        shutil.copyfile(weights, args.export)
        shutil.copyfile(reference_path(weights), reference_path(Path(args.export)))
        shutil.copyfile(out / "heldout-7x6.npz", Path(args.export).with_name("heldout-7x6.npz"))
    print(json.dumps(q))
    print(f"weights {args.export or weights}; curves {files['png']}; report {files['md']}")
    return 0
