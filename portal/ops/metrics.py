"""Prometheus metrics at `GET /metrics` (text format 0.0.4), for a bearer of METRICS_TOKEN
only (without a token configured the route answers 404: nothing is exposed by accident).

- `rijplan_http_requests_total{method,route,status}` and
  `rijplan_http_request_duration_seconds{method,route}`: by the route's template
  (`/api/v1/taken/<uuid:task_id>`), never the raw path, so ids do not explode the series;
- `rijplan_db_connections_in_use`: connections the app holds from its pool right now;
- `rijplan_outbox_due{queue}` and `rijplan_outbox_queued{queue}`: messages and webhook
  deliveries waiting, due now and in all (one query, across carriers, read by the owner's
  function on PostgreSQL);
- `rijplan_worker_attempts_total{worker,result}`: delivery attempts the push and webhook
  workers made.

Under gunicorn with several workers, set PROMETHEUS_MULTIPROC_DIR (gunicorn.conf.py does):
every process writes its figures there and a scrape adds them up.
"""

from __future__ import annotations

import hmac
import os
import time

from flask import Blueprint, Flask, Response, abort, current_app, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Gauge,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from sqlalchemy import event

from portal import counters
from portal.counters import REGISTRY
from portal.extensions import db
from portal.messages import outbox as messages
from portal.webhooks import outbox as webhooks

bp = Blueprint("ops_metrics", __name__)

POOL_IN_USE = Gauge(
    "rijplan_db_connections_in_use",
    "Database connections checked out of the app's pool.",
    registry=REGISTRY,
    multiprocess_mode="livesum",
)


class OutboxCollector:
    """The outboxes' backlog, read from the database at scrape time."""

    def collect(self):
        due = GaugeMetricFamily(
            "rijplan_outbox_due", "Outbox entries due for delivery now.", labels=["queue"]
        )
        queued = GaugeMetricFamily(
            "rijplan_outbox_queued", "Outbox entries waiting, due or later.", labels=["queue"]
        )
        for name, source in (("berichten", messages), ("webhooks", webhooks)):
            now_due, waiting = source.backlog()
            due.add_metric([name], now_due)
            queued.add_metric([name], waiting)
        yield due
        yield queued


def _route() -> str:
    rule = request.url_rule
    return rule.rule if rule is not None else "unmatched"


def _watch_pool(app: Flask) -> None:
    with app.app_context():
        engine = db.engine
    if getattr(engine, "_rijplan_pool_watched", False):
        return
    engine._rijplan_pool_watched = True
    event.listen(engine, "checkout", lambda *_: POOL_IN_USE.inc())
    event.listen(engine, "checkin", lambda *_: POOL_IN_USE.dec())


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    _watch_pool(app)

    @app.before_request
    def _start():
        g.metrics_started = time.perf_counter()

    @app.after_request
    def _count(response):
        started = g.get("metrics_started")
        if started is not None and request.endpoint != "ops_metrics.metrics":
            elapsed = time.perf_counter() - started
            counters.served(request.method, _route(), response.status_code, elapsed)
        return response


def _registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    return registry


@bp.get("/metrics")
def metrics():
    token = current_app.config.get("METRICS_TOKEN")
    if not token:
        abort(404)
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return Response(
            "a bearer token is needed\n",
            status=401,
            headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
            mimetype="text/plain",
        )
    # The backlog in a registry of this scrape's own: scrapes at the same time never meet.
    backlog = CollectorRegistry(auto_describe=False)
    backlog.register(OutboxCollector())
    body = generate_latest(_registry()) + generate_latest(backlog)
    return Response(body, mimetype=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})
