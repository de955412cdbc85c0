"""Which learned models load here: checked once per weights file (and again
when the file or ``C4_NET_RUNTIME`` changes), a bad file or runtime logged
once as a warning."""

from __future__ import annotations

import logging
import os
import threading

from .weights import WeightsError

log = logging.getLogger(__name__)
_seen: dict[tuple[str, float, str], bool] = {}
_lock = threading.Lock()


def available(kind: str) -> bool:
    """True when the ``kind`` ("pv" or "dqn") weights file loads and checks out."""
    from .players import DQN_FILE, PV_FILE, _cached, model_path

    name = PV_FILE if kind == "pv" else DQN_FILE
    path = model_path(name)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = -1.0
    key = (str(path), mtime, os.environ.get("C4_NET_RUNTIME", ""))  # the runtime's choice can fail too
    with _lock:
        if key in _seen:
            return _seen[key]
    try:
        model = _cached(name, kind)
        ok = True
        log.info("learned players ready", extra={"model": kind, "runtime": getattr(model, "runtime", "numpy")})
    except WeightsError as exc:
        log.warning("learned players left out", extra={"model": kind, "reason": str(exc)})
        ok = False
    with _lock:
        _seen[key] = ok
    return ok
