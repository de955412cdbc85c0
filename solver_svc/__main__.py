"""``python -m solver_svc``: the solver service (settings: C4_SOLVER_*)."""

from .server import main

main()
