"""The weights file of a learned player: one ``.npz`` (numpy's zip of arrays).

Every file holds a ``meta`` entry (JSON: ``kind`` "pv" or "dqn", the
architecture's sizes, a version) and the arrays that kind needs, each of a
shape that follows from the meta. :func:`read_weights` checks all of it and
raises :class:`WeightsError` with the file and the reason, so a missing,
truncated or wrong-shape file is refused when the player is made, never
half-way through a game.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

MODEL_DIR = Path(os.environ.get("C4_MODEL_DIR") or Path(__file__).resolve().parents[2] / "books" / "models")
FORMAT_VERSION = 1


class WeightsError(ValueError):
    """A weights file that cannot be used: missing, unreadable, or of the wrong shape."""


def pv_shapes(meta: dict) -> dict[str, tuple[int, ...]]:
    """The arrays of a policy/value net (a small residual conv net), by name."""
    c, blocks, hidden = int(meta["channels"]), int(meta["blocks"]), int(meta["value_hidden"])
    shapes: dict[str, tuple[int, ...]] = {"stem.w": (c, 2, 3, 3), "stem.b": (c,)}
    for i in range(blocks):
        for j in (1, 2):
            shapes[f"block{i}.conv{j}.w"] = (c, c, 3, 3)
            shapes[f"block{i}.conv{j}.b"] = (c,)
    shapes.update({
        "policy.conv.w": (2, c, 1, 1), "policy.conv.b": (2,),
        "policy.fc.w": (7, 2 * 42), "policy.fc.b": (7,),
        "value.conv.w": (1, c, 1, 1), "value.conv.b": (1,),
        "value.fc1.w": (hidden, 42), "value.fc1.b": (hidden,),
        "value.fc2.w": (1, hidden), "value.fc2.b": (1,),
    })
    return shapes


def dqn_shapes(meta: dict) -> dict[str, tuple[int, ...]]:
    """The arrays of the DQN's MLP: 84 inputs, hidden layers, 7 Q-values."""
    sizes = [84, *[int(h) for h in meta["hidden"]], 7]
    return {name: shape for i in range(len(sizes) - 1)
            for name, shape in ((f"fc{i}.w", (sizes[i + 1], sizes[i])), (f"fc{i}.b", (sizes[i + 1],)))}


SHAPES = {"pv": pv_shapes, "dqn": dqn_shapes}


def read_weights(path: str | os.PathLike, kind: str) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, arrays) of a weights file of ``kind``; WeightsError when it is unusable."""
    path = Path(path)
    if not path.is_file():
        raise WeightsError(f"weights file {path} does not exist (train one with `c4 train {kind}`)")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise WeightsError(f"weights file {path} cannot be read (truncated or not an .npz): {exc}") from None
    if "meta" not in arrays:
        raise WeightsError(f"weights file {path} has no meta entry")
    try:
        meta = json.loads(str(arrays.pop("meta")))
    except ValueError:
        raise WeightsError(f"weights file {path}: its meta entry is not JSON") from None
    if meta.get("kind") != kind:
        raise WeightsError(f"weights file {path} holds a {meta.get('kind')!r} model, not {kind!r}")
    if meta.get("version") != FORMAT_VERSION:
        raise WeightsError(f"weights file {path} is format {meta.get('version')!r}, "
                           f"this runtime reads {FORMAT_VERSION}")
    try:
        want = SHAPES[kind](meta)
    except (KeyError, TypeError, ValueError):
        raise WeightsError(f"weights file {path}: its meta lacks the sizes of a {kind} model") from None
    for name, shape in want.items():
        if name not in arrays:
            raise WeightsError(f"weights file {path} lacks the array {name}")
        if arrays[name].shape != shape:
            raise WeightsError(f"weights file {path}: {name} has shape {arrays[name].shape}, expected {shape}")
        if arrays[name].dtype != np.float32 or not np.isfinite(arrays[name]).all():
            raise WeightsError(f"weights file {path}: {name} is not finite float32")
    extra = set(arrays) - set(want)
    if extra:
        raise WeightsError(f"weights file {path} holds arrays this model has no use for: {sorted(extra)[:3]}")
    return meta, {k: np.ascontiguousarray(v) for k, v in arrays.items()}


def write_weights(path: str | os.PathLike, kind: str, meta: dict, arrays: dict[str, np.ndarray]) -> Path:
    """Write and re-read (so a file that would be refused is never left behind)."""
    path = Path(path)
    meta = {**meta, "kind": kind, "version": FORMAT_VERSION}
    tmp = path.with_name(path.name + ".tmp.npz")
    payload: dict = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()}
    payload["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(tmp, **payload)
    read_weights(tmp, kind)
    os.replace(tmp, path)
    return path
