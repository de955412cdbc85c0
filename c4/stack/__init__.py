"""Running the whole stack: readiness probes, a process supervisor and the
plan of processes behind ``c4 up``.

Deploy-neutral: the same probes serve ``c4 up`` (is a child ready?) and the
container health checks of ``docker-compose.yml``
(``python -m c4.stack.probe grpc 127.0.0.1:50051``).
"""
