"""The metrics registry and the counters that code outside Flask's request hooks increments
too (kept apart from metrics.py, which reads the domains, so the domains and the poll
middleware can count without importing it)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server

REGISTRY = CollectorRegistry(auto_describe=True)
ATTEMPTS = Counter(
    "rijplan_worker_attempts",
    "Delivery attempts of the workers, by worker and result.",
    ["worker", "result"],
    registry=REGISTRY,
)

REQUESTS = Counter(
    "rijplan_http_requests",
    "HTTP requests served, by route template and status.",
    ["method", "route", "status"],
    registry=REGISTRY,
)
LATENCY = Histogram(
    "rijplan_http_request_duration_seconds",
    "Time to answer a request, by route template.",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
    registry=REGISTRY,
)


def served(method: str, route: str, status: int, seconds: float) -> None:
    """Count one answered request (by its route's template, never the raw path)."""
    REQUESTS.labels(method, route, str(status)).inc()
    LATENCY.labels(method, route).observe(seconds)


def attempt(worker: str, result: str) -> None:
    """Count one delivery attempt of a worker (push or webhook)."""
    ATTEMPTS.labels(worker, result).inc()


def serve(bind: str):
    """Serve this process's metrics (a worker's: it has no web app) on bind, HOST:PORT, an
    internal address for Prometheus to scrape; the (server, thread), on a daemon thread."""
    host, _, port = bind.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"{bind!r} is not HOST:PORT")
    return start_http_server(int(port), addr=host.strip("[]"), registry=REGISTRY)
