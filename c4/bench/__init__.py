"""One module a benchmark; each defines ``register(subparsers)`` for ``c4 bench NAME``.

Modules whose name starts with ``_`` are helpers of a benchmark, not registered.
Benchmarks that compose services (a service against the in-process code, the
solver service against the engine's players) live here, in the layer that may
import every other one.
"""
