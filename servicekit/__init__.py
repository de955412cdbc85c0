"""Shared service plumbing: JSON logs with request ids, gRPC serving with
health, reflection and Prometheus metrics. Knows nothing of Connect Four."""
