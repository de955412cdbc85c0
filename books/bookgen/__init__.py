"""bookgen: distributed opening-book generation on Celery and Redis.

* :mod:`.app`: the Celery application (Redis broker, late acks, prefetch 1).
* :mod:`.tasks`: the worker tasks: solve or analyse one position in-process
  with the numba solver, results stored in Redis under the position key;
  ``bookgen.learn`` for the gateway.
* :mod:`.store`: the Redis result store shared by workers and coordinator.
* :mod:`.opening`: the coordinator of ``c4 bookgen opening``.
* :mod:`.corrective` and :mod:`.learn`: the engine's corrective book.
* :mod:`.workers`: starting local worker processes.

See docs/bookgen.md.
"""
