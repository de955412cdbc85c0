"""engine_svc: the heuristic Connect Four engine, the player ladder and its gRPC service.

Layer 1: imports only the game library :mod:`connect4` (and servicekit in the
server). ``engine_svc.search.Engine`` is the search; ``engine_svc.players``
makes players from spec strings; ``python -m engine_svc`` serves them.
"""
