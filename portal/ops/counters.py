"""The metrics registry and the counters domain code increments (kept apart from
metrics.py, which reads the domains, so the domains can count without importing it)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter

REGISTRY = CollectorRegistry(auto_describe=True)
ATTEMPTS = Counter(
    "rijplan_worker_attempts",
    "Delivery attempts of the workers, by worker and result.",
    ["worker", "result"],
    registry=REGISTRY,
)


def attempt(worker: str, result: str) -> None:
    """Count one delivery attempt of a worker (push or webhook)."""
    ATTEMPTS.labels(worker, result).inc()
