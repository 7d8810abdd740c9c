"""What an operator runs the portal by: a request id on every request, log line and audit
entry (request_ids.py), JSON logs (logs.py), health and readiness checks (health.py) and
Prometheus metrics (metrics.py)."""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    from portal import request_ids
    from portal.ops import health, logs, metrics

    request_ids.init_app(app)
    logs.init_app(app)
    metrics.init_app(app)
    app.register_blueprint(health.bp)
