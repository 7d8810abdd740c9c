"""What an operator runs the portal by: health and readiness checks, request ids on answers,
log lines and audit entries, and Prometheus metrics that parse."""

from __future__ import annotations

import io
import json
import logging
import re

import pytest
from factories import bearer, create_api_key, create_driver, driver_token, in_carrier
from prometheus_client.parser import text_string_to_metric_families

TOKEN = "metrics-token-for-tests"


@pytest.fixture
def scraping(app):
    app.config["METRICS_TOKEN"] = TOKEN
    return app


def scrape(client) -> dict:
    response = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    samples = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_healthz_answers_without_a_session_or_the_database(app, client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.get_json() == {"status": "ok"}
    assert "Set-Cookie" not in response.headers
    assert response.headers["Cache-Control"] == "no-store"


def test_readyz_checks_database_schema_and_storage(app, client, monkeypatch):
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.get_json()
    assert ready.get_json()["checks"] == {"database": "ok", "migrations": "ok", "storage": "ok"}

    app.extensions["rijplan_migration_heads"] = {"f00dfeed0000"}  # a newer release's head
    behind = client.get("/readyz")
    assert behind.status_code == 503
    assert behind.get_json()["checks"]["migrations"] == "behind"
    del app.extensions["rijplan_migration_heads"]

    from portal.files.storage import get_storage

    storage = get_storage(app)

    def full(key, stream):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(storage, "put", full)
    down = client.get("/readyz")
    assert down.status_code == 503
    assert down.get_json() == {
        "status": "unavailable",
        "checks": {"database": "ok", "migrations": "ok", "storage": "unwritable"},
        "ms": down.get_json()["ms"],
    }


def test_a_request_id_is_taken_from_the_caller_or_made(client):
    made = client.get("/healthz").headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert client.get("/healthz").headers["X-Request-ID"] != made
    given = client.get("/healthz", headers={"X-Request-ID": "lb-7f3a9c21"})
    assert given.headers["X-Request-ID"] == "lb-7f3a9c21"
    # Anything that is no sane token (a header injection, a novel) is replaced.
    odd = client.get("/healthz", headers={"X-Request-ID": "x y<script>"})
    assert odd.headers["X-Request-ID"] != "x y<script>"


def test_an_audit_entry_carries_the_request_that_made_it(app, client, carrier):
    from portal.audit.models import AuditEntry
    from portal.extensions import db

    key = create_api_key(app, carrier)
    response = client.post(
        "/api/v1/klanten",
        json={"naam": "Loonbedrijf Smit"},
        headers={**bearer(key.key), "X-Request-ID": "trace-00000042"},
    )
    assert response.status_code == 201, response.get_json()
    ids = in_carrier(
        app,
        carrier.id,
        lambda: [
            row.request_id for row in db.session.query(AuditEntry).filter_by(entity="customer")
        ],
    )
    assert ids == ["trace-00000042"]


def test_json_log_lines_carry_the_request_id(app):
    from portal.ops import logs

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(logs.RequestIdFilter())
    handler.setFormatter(logs.json_formatter())
    logger = logging.getLogger("portal.test_ops")
    logger.addHandler(handler)
    try:
        with app.test_request_context("/healthz", headers={"X-Request-ID": "trace-12345678"}):
            app.preprocess_request()
            logger.warning("a line in a request")
        logger.warning("a line outside")
    finally:
        logger.removeHandler(handler)
    inside, outside = (json.loads(line) for line in stream.getvalue().splitlines())
    assert inside["message"] == "a line in a request"
    assert (inside["request_id"], inside["level"], inside["logger"]) == (
        "trace-12345678",
        "WARNING",
        "portal.test_ops",
    )
    assert "time" in inside and outside["request_id"] == "-"


def test_metrics_need_the_token_and_parse(scraping, client, carrier):
    assert client.get("/metrics").status_code == 401
    wrong = client.get("/metrics", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    key = create_api_key(scraping, carrier)
    for _ in range(3):
        client.get("/api/v1/klanten", headers=bearer(key.key))
    missing = "/api/v1/taken/00000000-0000-4000-8000-000000000000"
    client.get(missing, headers=bearer(key.key))
    samples = scrape(client)
    route = (("method", "GET"), ("route", "/api/v1/klanten"))
    assert samples[("rijplan_http_requests_total", (*route, ("status", "200")))] >= 3
    # By the route's template, never the raw path: ids do not make new series.
    assert not any(missing in str(labels) for _, labels in samples)
    assert any(
        name == "rijplan_http_request_duration_seconds_count"
        and dict(labels)["route"] == route[1][1]
        for name, labels in samples
    )
    assert ("rijplan_db_connections_in_use", ()) in samples


def test_metrics_are_off_without_a_token(client):
    assert client.get("/metrics").status_code == 404


def test_metrics_count_the_outbox_backlog_across_carriers(scraping, client, carrier, driver):
    from factories import create_carrier, create_driver

    from portal.audit.service import SYSTEM
    from portal.messages import service as messages

    other = create_carrier(scraping, "Ander")
    theirs = create_driver(scraping, other, "Karel")
    for owner, who in ((carrier, driver), (other, theirs)):
        in_carrier(
            scraping,
            owner.id,
            lambda owner=owner, who=who: messages.send_message(
                carrier_id=owner.id, driver_ids=[who.id], titel="Rit", tekst="Morgen 6 uur",
                actor=SYSTEM,
            ),
        )  # fmt: skip
    samples = scrape(client)
    # Both carriers' messages, not only one carrier's: the gauges count across carriers.
    assert samples[("rijplan_outbox_queued", (("queue", "berichten"),))] == 2
    assert samples[("rijplan_outbox_due", (("queue", "berichten"),))] == 2
    assert samples[("rijplan_outbox_queued", (("queue", "webhooks"),))] == 0


@pytest.mark.postgres_only
def test_a_database_that_does_not_answer_is_a_503_and_the_app_recovers(app, client, carrier):
    """The database goes away (a restart, a failover): requests answer 503 problem+json with
    Retry-After, not 500; readiness says so; once it is back the same app serves again, with
    no restart (the pool drops broken connections)."""
    import socket

    from portal.extensions import db

    key = create_api_key(app, carrier)
    driver = create_driver(app, carrier)
    token = driver_token(client, driver)
    tasks = f"/api/v1/users/{driver.user_token}/taken"  # read in one round trip (reads.py)
    assert client.get("/api/v1/klanten", headers=bearer(key.key)).status_code == 200
    assert client.get(tasks, headers=bearer(token)).status_code == 200
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead_port = probe.getsockname()[1]
    from sqlalchemy import create_engine

    engines = db._app_engines[app]  # the app's engines by bind key (Flask-SQLAlchemy)
    real = engines[None]
    engines[None] = create_engine(real.url.set(port=dead_port))
    try:
        down = client.get("/api/v1/klanten", headers=bearer(key.key))
        assert down.status_code == 503, down.get_data(as_text=True)
        assert down.mimetype == "application/problem+json"
        assert down.get_json()["code"] == "database_unavailable"
        assert down.headers["Retry-After"] == "5"
        poll = client.get(tasks, headers=bearer(token))
        assert (poll.status_code, poll.get_json()["code"]) == (503, "database_unavailable")
        ready = client.get("/readyz")
        assert (ready.status_code, ready.get_json()["checks"]["database"]) == (503, "unreachable")
        assert client.get("/healthz").status_code == 200  # the process itself is fine
    finally:
        engines[None].dispose()
        engines[None] = real
    back = client.get("/api/v1/klanten", headers=bearer(key.key))
    assert back.status_code == 200
    assert client.get(tasks, headers=bearer(token)).status_code == 200
    assert client.get("/readyz").status_code == 200
