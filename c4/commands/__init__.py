"""One module a subcommand; each defines ``register(subparsers)``."""
