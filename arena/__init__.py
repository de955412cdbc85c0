"""arena: matches, ladder ratings, verdicts against the perfect player, audits, terminal play.

Layer 2: imports the game library, and the engine and solver in-process (or
their gRPC stubs with ``--via-grpc``). Modules:

* :mod:`.stats` scores and Wilson intervals; :mod:`.elo` the maximum-likelihood Elo fit;
* :mod:`.openings` paired random openings and the round-robin schedule;
* :mod:`.players` player adapters (ladder, perfect; in-process or gRPC);
* :mod:`.match` one game; :mod:`.runner` the round robin; :mod:`.report` tables and plots;
* :mod:`.versus` a game against the perfect player with verdicts; :mod:`.audit` regret per move;
* :mod:`.board` Unicode boards; :mod:`.play` a game in the terminal.
"""
