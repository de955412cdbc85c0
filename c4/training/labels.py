"""Exact labels: every column's score from the analysis book or the solver.

For each position: the shipped analysis book first (strong scores); else the
solver's strong analysis within ``strong_budget`` nodes; else its weak
analysis (signs only) within ``node_budget``; else the position is left out and
counted. A label never holds a value nobody proved.

Labels are written in chunks (``labels-NNNNN.npz``) so a stopped run resumes
where it was: a chunk that exists is not labelled again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from connect4 import STANDARD, Position

FULL = -128  # the score of a full column
CHUNK = 400


@dataclass
class LabelStats:
    book: int = 0
    strong: int = 0
    weak: int = 0
    unproved: int = 0
    by_ply_unproved: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"book": self.book, "strong": self.strong, "weak": self.weak, "unproved": self.unproved,
                "unproved_by_ply": {str(k): v for k, v in sorted(self.by_ply_unproved.items())}}


def label_one(pos: Position, solver, book, node_budget: int, stats: LabelStats, strong_budget: int | None = None):
    """(scores tuple with None for full columns, strong: bool) or None when unproved."""
    from solver_svc.solver import BudgetExceeded

    if book is not None:
        hit = book.lookup(pos)
        if hit is not None:
            stats.book += 1
            return hit, True
    for weak, budget in ((False, strong_budget or node_budget), (True, node_budget)):
        try:
            scores = solver.analyze(pos, node_budget=budget, weak=weak)
        except BudgetExceeded:
            continue
        if weak:
            stats.weak += 1
        else:
            stats.strong += 1
        return tuple(scores), not weak
    stats.unproved += 1
    stats.by_ply_unproved[pos.ply] = stats.by_ply_unproved.get(pos.ply, 0) + 1
    return None


def label_positions(samples, out_dir: Path, node_budget: int, strong_budget: int | None = None,
                    progress=None) -> LabelStats:
    """Label ``samples`` (lists of moves) into chunk files under ``out_dir``."""
    from connect4.book import AnalysisBook
    from solver_svc.solver import Solver

    from books import BOOK_DIR

    out_dir.mkdir(parents=True, exist_ok=True)
    book = AnalysisBook.load(Path(BOOK_DIR) / "7x6-analysis.txt", STANDARD)
    solver = Solver(STANDARD)
    stats = LabelStats()
    for start in range(0, len(samples), CHUNK):
        path = out_dir / f"labels-{start // CHUNK:05d}.npz"
        if path.exists():
            if progress:
                progress(min(start + CHUNK, len(samples)))
            continue
        cur, msk, ply, scores, strong = [], [], [], [], []
        for i, s in enumerate(samples[start:start + CHUNK]):
            pos = Position.from_moves(s.moves)
            solver.reset()
            got = label_one(pos, solver, book, node_budget, stats, strong_budget)
            if got is not None:
                sc, st = got
                cur.append(pos.current)
                msk.append(pos.mask)
                ply.append(pos.ply)
                scores.append([FULL if v is None else v for v in sc])
                strong.append(st)
            if progress:
                progress(start + i + 1)
        np.savez(path, current=np.array(cur, dtype=np.uint64), mask=np.array(msk, dtype=np.uint64),
                 ply=np.array(ply, dtype=np.int8), scores=np.array(scores, dtype=np.int8).reshape(-1, 7),
                 strong=np.array(strong, dtype=bool))
    return stats


def _chunks(out_dir: Path, count: int | None):
    paths = sorted(out_dir.glob("labels-*.npz"))
    if count is not None:
        paths = [p for p in paths if int(p.stem.split("-")[1]) * CHUNK < count]
    return paths


FIELDS = ("current", "mask", "ply", "scores", "strong")  # a labels set's arrays


def load_labels(out_dir: Path, count: int | None = None) -> dict[str, np.ndarray]:
    """The chunks of ``out_dir`` (those of the first ``count`` positions) concatenated."""
    parts = [np.load(p) for p in _chunks(out_dir, count)]
    if not parts:
        raise FileNotFoundError(f"no labels-*.npz in {out_dir}")
    return {k: np.concatenate([p[k] for p in parts]) for k in FIELDS}


def read_labels_file(path: Path | str) -> dict[str, np.ndarray]:
    """One labels ``.npz`` (e.g. the shipped held-out set); KeyError when an array is missing."""
    with np.load(path) as z:
        return {k: z[k] for k in FIELDS}


def canonical_keys(path: Path | str) -> set[int]:
    """The canonical keys of a labels ``.npz``'s positions (a set never to train on)."""
    with np.load(path) as z:
        return {_canonical(int(c), int(m)) for c, m in zip(z["current"], z["mask"], strict=True)}


def summarize(samples, out_dir: Path, count: int | None = None) -> dict:
    """Where the labels of the finished chunks came from (book, strong or weak
    solve) and how many positions were left out unproved, by ply: recounted
    from the chunks and the positions, so it holds however often a run resumed."""
    from connect4.book import AnalysisBook

    from books import BOOK_DIR

    book = AnalysisBook.load(Path(BOOK_DIR) / "7x6-analysis.txt", STANDARD)
    out: dict = {"positions": 0, "book": 0, "strong": 0, "weak": 0, "unproved": 0}
    left: dict[int, int] = {}
    for path in _chunks(out_dir, count):
        start = int(path.stem.split("-")[1]) * CHUNK
        chunk = samples[start:start + CHUNK]
        data = np.load(path)
        labelled = {(int(c), int(m)) for c, m in zip(data["current"], data["mask"], strict=True)}
        for smp in chunk:
            pos = Position.from_moves(smp.moves)
            out["positions"] += 1
            if (pos.current, pos.mask) not in labelled:
                out["unproved"] += 1
                left[pos.ply] = left.get(pos.ply, 0) + 1
        in_book = sum(book.lookup(Position.from_moves(smp.moves)) is not None for smp in chunk)
        out["book"] += in_book
        out["strong"] += int(data["strong"].sum()) - in_book
        out["weak"] += int((~data["strong"]).sum())
    out["unproved_by_ply"] = {str(k): v for k, v in sorted(left.items())}
    return out


def targets(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Policy target (uniform over the columns that keep the best score) and
    value target (the sign of the best score: +1 win, 0 draw, -1 loss)."""
    s = scores.astype(np.int16)
    legal = s != FULL
    masked = np.where(legal, s, -1000)
    best = masked.max(axis=1, keepdims=True)
    keep = (masked == best) & legal
    policy = keep / keep.sum(axis=1, keepdims=True)
    value = np.sign(best[:, 0]).astype(np.float32)
    return policy.astype(np.float32), value


def book_labels(exclude: set[int] | frozenset[int] = frozenset()) -> dict[str, np.ndarray]:
    """Every entry of the shipped analysis book as a label (strong scores of
    the early plies), less the positions whose canonical key is in ``exclude``."""
    from connect4.book import AnalysisBook
    from connect4.keys import decode_key

    from books import BOOK_DIR

    book = AnalysisBook.load(Path(BOOK_DIR) / "7x6-analysis.txt", STANDARD)
    cur, msk, ply, scores = [], [], [], []
    for key, sc in book.entries.items():
        c, m = decode_key(key)
        if _canonical(c, m) in exclude:
            continue
        cur.append(c)
        msk.append(m)
        ply.append(bin(m).count("1"))
        scores.append([FULL if v is None else v for v in sc])
    return {"current": np.array(cur, np.uint64), "mask": np.array(msk, np.uint64), "ply": np.array(ply, np.int8),
            "scores": np.array(scores, np.int8).reshape(-1, 7), "strong": np.ones(len(cur), bool)}


def _canonical(current: int, mask: int) -> int:
    """Pons' key of the position or of its mirror image, the smaller (as Position.canonical_key)."""
    from connect4.keys import mirror_bits

    key = current + mask + STANDARD.bottom_mask
    mirror = mirror_bits(current, STANDARD) + mirror_bits(mask, STANDARD) + STANDARD.bottom_mask
    return min(key, mirror)


def merge(*parts: dict) -> dict[str, np.ndarray]:
    """Label sets joined, each position once (the first set's label wins)."""
    out = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    keys = [_canonical(int(c), int(m)) for c, m in zip(out["current"], out["mask"], strict=True)]
    _, first = np.unique(np.array(keys, dtype=np.uint64), return_index=True)
    first.sort()
    return {k: v[first] for k, v in out.items()}
