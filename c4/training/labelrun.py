"""Labels at scale (``c4 train labels``): ladder games and their exact labels,
made and written one block of games at a time, so a run of 100k+ positions
can stop anywhere and resume.

Block ``i`` plays ``games_per_block`` ladder games (seeded by the run's seed
and ``i``) and keeps every position no earlier block kept (mirror images count
once; positions in ``exclude``, e.g. the held-out set, never). The block's
positions are labelled deepest ply first on one transposition table, reset at
the block's start: late positions are cheap, and what their searches store (a
stopped search stores nothing, so the table only ever holds proved bounds)
makes the earlier positions of the same games cheaper. Each position gets the
analysis book, else a strong solve within ``strong_budget`` nodes, else a weak
one within ``node_budget``; else it is left out and counted by ply.

``block-NNNNN.npz`` holds the labels (the fields ``labels.load_labels`` reads),
the keys of every position of the block (labelled or not), the plies of those
left out, the label source of each label and the CPU seconds spent playing
and labelling, so ``summary`` gives labels per CPU-second of any run.

``pool`` names the players the games draw from (``games.POOL`` by default).
A pool with the learned players (``net``, ``az:N``) labels the positions a
net itself reaches against its opponents (a DAgger pass: the states of the
learner's own games, labelled by the exact teacher). Each block records its
pool, and a run folder keeps one pool: a rerun with another is refused.
"""

from __future__ import annotations

import pickle
import time
from pathlib import Path

import numpy as np

from connect4 import STANDARD, Position

from .labels import FULL, label_one, LabelStats

BOOK, STRONG, WEAK = 0, 1, 2


def block_path(out_dir: Path, index: int) -> Path:
    return out_dir / f"block-{index:05d}.npz"


def _seen_so_far(out_dir: Path, blocks: int) -> set[int]:
    seen: set[int] = set()
    for i in range(blocks):
        with np.load(block_path(out_dir, i)) as z:
            seen.update(int(k) for k in z["keys"])
    return seen


class PoolMismatch(ValueError):
    """The run folder's blocks were played with another pool of players."""


def check_pool(out_dir: Path, pool: tuple[str, ...]) -> None:
    """Refuse to add blocks of another pool to a run folder (blocks without a pool are ``games.POOL``'s)."""
    from .games import POOL

    first = block_path(out_dir, 0)
    if not first.exists():
        return
    with np.load(first) as z:
        had = tuple(str(z["pool"]).split(",")) if "pool" in z.files else POOL
    if had != tuple(pool):
        raise PoolMismatch(f"{out_dir} holds blocks of the pool {','.join(had)}; use another --out or that pool")


def label_run(out_dir: Path, blocks: int, seed: int, node_budget: int, strong_budget: int,
              games_per_block: int = 25, exclude: frozenset[int] | set[int] = frozenset(),
              progress=None, log=None, pool: tuple[str, ...] | None = None) -> None:
    """Blocks ``0..blocks-1`` into ``out_dir``; blocks already there are kept as they are."""
    from connect4.book import AnalysisBook
    from solver_svc.solver import Solver

    from books import BOOK_DIR

    from .games import POOL, ladder_positions

    pool = tuple(pool or POOL)
    check_pool(out_dir, pool)
    out_dir.mkdir(parents=True, exist_ok=True)
    done = 0
    while done < blocks and block_path(out_dir, done).exists():
        done += 1
    seen = _seen_so_far(out_dir, done) | set(exclude)
    book = AnalysisBook.load(Path(BOOK_DIR) / "7x6-analysis.txt", STANDARD)
    solver = Solver(STANDARD)
    if progress:
        progress(done)
    for index in range(done, blocks):
        t0 = time.process_time()
        samples = ladder_positions(games_per_block, seed * 1_000_003 + index, pool=pool)
        positions = []
        for s in samples:
            pos = Position.from_moves(s.moves)
            key = pos.canonical_key()
            if key not in seen:
                seen.add(key)
                positions.append(pos)
        t1 = time.process_time()
        positions.sort(key=lambda p: -p.ply)  # cheap positions first; their bounds help the rest
        solver.reset()
        stats = LabelStats()
        cur, msk, ply, scores, source = [], [], [], [], []
        for pos in positions:
            before = (stats.book, stats.strong)
            got = label_one(pos, solver, book, node_budget, stats, strong_budget)
            if got is None:
                continue
            cur.append(pos.current)
            msk.append(pos.mask)
            ply.append(pos.ply)
            scores.append([FULL if v is None else v for v in got[0]])
            source.append(BOOK if stats.book > before[0] else STRONG if stats.strong > before[1] else WEAK)
        t2 = time.process_time()
        src = np.array(source, dtype=np.int8)
        unproved = [p for p, n in stats.by_ply_unproved.items() for _ in range(n)]
        tmp = out_dir / f"block-{index:05d}.tmp.npz"
        np.savez(tmp, current=np.array(cur, np.uint64), mask=np.array(msk, np.uint64),
                 ply=np.array(ply, np.int8), scores=np.array(scores, np.int8).reshape(-1, 7),
                 strong=src != WEAK, source=src, keys=np.array([p.canonical_key() for p in positions], np.uint64),
                 unproved_ply=np.array(sorted(unproved), np.int8), cpu_play_s=t1 - t0, cpu_label_s=t2 - t1,
                 node_budget=node_budget, strong_budget=strong_budget, pool=",".join(pool))
        tmp.replace(block_path(out_dir, index))  # a block appears whole or not at all
        if log:
            log(f"block {index}: {len(positions)} positions, {len(cur)} labelled, {stats.unproved} unproved, "
                f"CPU {t1 - t0:.1f} s playing, {t2 - t1:.1f} s labelling")
        if progress:
            progress(index + 1)


def load_run(out_dir: Path) -> dict[str, np.ndarray]:
    """The labels of every finished block of a run (``labels.load_labels``' fields)."""
    paths = sorted(out_dir.glob("block-[0-9]*[0-9].npz"))
    if not paths:
        raise FileNotFoundError(f"no block-*.npz in {out_dir}")
    parts = [np.load(p) for p in paths]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("current", "mask", "ply", "scores", "strong")}


def summary(out_dir: Path) -> dict:
    """Counts by label source, the positions left out by ply, and labels per CPU-second."""
    out: dict = {"blocks": 0, "positions": 0, "book": 0, "strong": 0, "weak": 0, "unproved": 0,
                 "cpu_play_s": 0.0, "cpu_label_s": 0.0}
    left: dict[int, int] = {}
    for path in sorted(out_dir.glob("block-[0-9]*[0-9].npz")):
        with np.load(path) as z:
            out["blocks"] += 1
            out["positions"] += len(z["keys"])
            for name, code in (("book", BOOK), ("strong", STRONG), ("weak", WEAK)):
                out[name] += int((z["source"] == code).sum())
            out["unproved"] += len(z["unproved_ply"])
            for p in z["unproved_ply"].tolist():
                left[p] = left.get(p, 0) + 1
            out["cpu_play_s"] += float(z["cpu_play_s"])
            out["cpu_label_s"] += float(z["cpu_label_s"])
    labelled = out["book"] + out["strong"] + out["weak"]
    out["labelled"] = labelled
    out["labels_per_cpu_s"] = labelled / out["cpu_label_s"] if out["cpu_label_s"] else None
    out["unproved_by_ply"] = {str(k): v for k, v in sorted(left.items())}
    return out


def _holds_blocks(folder: Path) -> bool:
    """True for ``c4 train labels`` blocks, False for ``c4 train pv`` chunks; FileNotFoundError for neither."""
    if any(folder.glob("block-*.npz")):
        return True
    if any(folder.glob("labels-*.npz")):
        return False
    raise FileNotFoundError(f"{folder}: no block-*.npz (c4 train labels) nor labels-*.npz (c4 train pv) there")


def load_folder(folder: Path, exclude: set[int] | frozenset[int] = frozenset()) -> dict[str, np.ndarray]:
    """One folder's labels, blocks or chunks, less the positions whose canonical key is in
    ``exclude`` (the held-out set)."""
    from .labels import _canonical, load_labels

    data = load_run(folder) if _holds_blocks(folder) else load_labels(folder)
    pairs = zip(data["current"], data["mask"], strict=True)
    keep = np.array([_canonical(int(c), int(m)) not in exclude for c, m in pairs], dtype=bool)
    return {k: v[keep] for k, v in data.items()}


def folder_summary(folder: Path) -> dict:
    """What a label folder holds (``summary`` of a block run, ``summarize`` of pv chunks)."""
    from .labels import summarize

    if _holds_blocks(folder):
        return summary(folder)
    return summarize(pickle.loads((folder / "positions.pkl").read_bytes()), folder)


def label_folders(spec: str) -> list[Path]:
    """The folders of a comma-separated ``--labels`` / ``--extra-labels`` value, each checked
    to hold labels (FileNotFoundError names the first that does not)."""
    folders = [Path(f.strip()) for f in spec.split(",") if f.strip()]
    for folder in folders:
        _holds_blocks(folder)
    return folders


def load_folders(spec: str, exclude: set[int] | frozenset[int] = frozenset()) -> dict[str, np.ndarray]:
    """The labels of comma-separated folders (``load_folder`` each), joined with each position once."""
    from .labels import merge

    parts = [load_folder(folder, exclude) for folder in label_folders(spec)]
    if not parts:
        raise FileNotFoundError("no label folder named")
    return merge(*parts)
