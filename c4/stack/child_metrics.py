"""The supervisor's children as Prometheus metrics (``c4 up``'s /metrics)."""

from __future__ import annotations

from .supervisor import Supervisor


class SupervisorCollector:
    """Prometheus view of the children: ``c4_stack_child_up``, ``c4_stack_child_restarts_total``
    (every restart, never reset), ``c4_stack_child_backoff_step`` and ``c4_stack_child_unresponsive``."""

    def __init__(self, supervisor: Supervisor):
        self.supervisor = supervisor

    def collect(self):
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        up = GaugeMetricFamily("c4_stack_child_up", "1 when the child runs and is ready", labels=["child"])
        restarts = CounterMetricFamily("c4_stack_child_restarts", "Restarts of the child since the stack started",
                                       labels=["child"])
        step = GaugeMetricFamily("c4_stack_child_backoff_step",
                                 "Back-off step of the child's next restart (reset after a minute of health)",
                                 labels=["child"])
        silent = GaugeMetricFamily("c4_stack_child_unresponsive",
                                   "1 while the child runs but does not answer its liveness probe", labels=["child"])
        for c in self.supervisor.children:
            up.add_metric([c.spec.name], 1 if c.state == "ready" and c.running() else 0)
            restarts.add_metric([c.spec.name], c.restarts)
            step.add_metric([c.spec.name], c.backoff_step)
            silent.add_metric([c.spec.name], 1 if c.state == "unresponsive" else 0)
        yield up
        yield restarts
        yield step
        yield silent
