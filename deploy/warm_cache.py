"""Fill the numba cache by starting each service until it reports SERVING.

The image build runs this with ``NUMBA_CACHE_DIR`` set, so a container starts
with every kernel its service compiles during warm-up already on disk
(``@njit(cache=True)``): the services' own warm-up code decides what gets
compiled, nothing is listed twice. Each service runs on a free loopback port,
without Redis, and is stopped with SIGTERM once SERVING. Then the bookgen
worker's own warm-up (what a worker runs before it takes tasks) runs once, for
the kernels only workers use, and one ``c4 solve`` line (its fast start's
machine code).

    NUMBA_CACHE_DIR=/var/cache/c4/numba python deploy/warm_cache.py

Exit code 0 when every service came up SERVING; 1 otherwise.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from c4.stack.plan import free_port  # noqa: E402
from c4.stack.probe import grpc_health  # noqa: E402

SERVICES = {
    "engine": ("engine_svc", "C4_ENGINE_"),
    "solver": ("solver_svc", "C4_SOLVER_"),
}
TIMEOUT_S = float(os.environ.get("C4_WARM_TIMEOUT_S", "1800"))


def warm(name: str, module: str, prefix: str) -> bool:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.endswith("REDIS_URL")}
    env.update({f"{prefix}HOST": "127.0.0.1", f"{prefix}PORT": str(port), f"{prefix}METRICS_PORT": "0",
                "PYTHONUNBUFFERED": "1"})
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", module], env=env, cwd=REPO)
    try:
        while time.monotonic() - started < TIMEOUT_S:
            if proc.poll() is not None:
                print(f"warm_cache: {name} exited with code {proc.returncode}", file=sys.stderr)
                return False
            ok, _ = grpc_health(f"127.0.0.1:{port}", "", 1.0)
            if ok:
                print(f"warm_cache: {name} SERVING after {time.monotonic() - started:.1f}s", file=sys.stderr)
                return True
            time.sleep(0.5)
        print(f"warm_cache: {name} not SERVING after {TIMEOUT_S:.0f}s", file=sys.stderr)
        return False
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def warm_bookgen() -> bool:
    """The worker's warm-up (``C4_BOOKGEN_WARM`` boards), without a worker or Redis."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("REDIS_URL")}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", "from books.bookgen.tasks import _warm; _warm()"],
                          env=env, cwd=REPO, timeout=TIMEOUT_S)
    print(f"warm_cache: bookgen warm-up {'done' if done.returncode == 0 else 'failed'} "
          f"after {time.monotonic() - started:.1f}s", file=sys.stderr)
    return done.returncode == 0


LARGE_BOARDS = """
from engine_svc.server import EngineServicer, prewarm, prewarm_boards
from engine_svc.settings import EngineSettings
from solver_svc.server import prewarm_sizes
from solver_svc.settings import SolverSettings
from solver_svc.warming import compile_kernels

engine = EngineSettings()
prewarm(EngineServicer(engine), prewarm_boards(engine.prewarm)).join()
for g in prewarm_sizes(SolverSettings().prewarm):
    compile_kernels(g)
"""


def warm_large_boards() -> bool:
    """The large boards the services pre-warm in the background once serving
    (C4_ENGINE_PREWARM, C4_SOLVER_PREWARM): compiled here to the end, so a
    container loads them from the cache instead of compiling them at start."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("REDIS_URL")}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", LARGE_BOARDS], env=env, cwd=REPO, timeout=TIMEOUT_S)
    print(f"warm_cache: large boards {'done' if done.returncode == 0 else 'failed'} "
          f"after {time.monotonic() - started:.1f}s", file=sys.stderr)
    return done.returncode == 0


def warm_solve() -> bool:
    """One ``c4 solve`` line: it writes the batch kernel's machine code, so a
    container's ``c4 solve`` starts without numba (solver_svc/solver/native.py)."""
    done = subprocess.run([sys.executable, "-m", "c4.main", "solve", "52753311433677442422121"],
                          cwd=REPO, timeout=TIMEOUT_S, capture_output=True, text=True)
    ok = done.returncode == 0 and done.stdout == "52753311433677442422121 8\n"
    print(f"warm_cache: c4 solve {'answered' if ok else 'failed: ' + done.stderr[-300:]}", file=sys.stderr)
    return ok


def main() -> int:
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if not cache:
        print("warm_cache: NUMBA_CACHE_DIR is not set; the cache goes beside the sources", file=sys.stderr)
    ok = all([*(warm(name, module, prefix) for name, (module, prefix) in SERVICES.items()), warm_bookgen(),
              warm_large_boards(), warm_solve()])
    if cache:
        files = sum(1 for p in Path(cache).rglob("*") if p.suffix in (".nbi", ".nbc"))
        print(f"warm_cache: {files} cache files in {cache}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
