"""One module a benchmark; each defines ``register(subparsers)`` for ``c4 bench NAME``."""
