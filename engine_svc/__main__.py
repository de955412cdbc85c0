"""``python -m engine_svc``: the engine service (settings: C4_ENGINE_*)."""

from .server import main

main()
