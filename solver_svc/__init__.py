"""solver_svc: the exact solver of the platform (layer 1).

:mod:`solver_svc.solver` is the numba exact solver library; the gRPC service
around it lives beside it in this package.
"""
