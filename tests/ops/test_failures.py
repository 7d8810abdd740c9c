"""Failures at the edges of a request: a connection the database dropped after the answer
was made, a request refused before the app's views, settings an operator gives in the
environment."""

from __future__ import annotations

import pytest
from factories import bearer, create_api_key
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from portal import config


def test_a_session_that_cannot_end_does_not_lose_the_answer(app, client, carrier, monkeypatch):
    """The database restarted between the view and the end of the request: the ROLLBACK
    that ends the session fails, and the answer already made is still the one given."""
    key = create_api_key(app, carrier)
    close = Session.close
    failures = []

    def dropped(session):
        if not failures:
            failures.append(session)
            raise OperationalError("ROLLBACK", {}, Exception("server closed the connection"))
        return close(session)

    monkeypatch.setattr(Session, "close", dropped)
    answer = client.get("/api/v1/klanten", headers=bearer(key.key))

    assert failures, "the session's end was not reached"
    assert answer.status_code == 200 and answer.get_json() == []
    monkeypatch.setattr(Session, "close", close)
    assert client.get("/api/v1/klanten", headers=bearer(key.key)).status_code == 200


def test_a_request_the_csrf_check_refuses_carries_a_request_id(client):
    refused = client.post(
        "/login", data={"email": "x@example.nl"}, headers={"X-Request-ID": "trace-csrf-0001"}
    )
    assert refused.status_code == 400
    assert refused.headers["X-Request-ID"] == "trace-csrf-0001"


@pytest.mark.parametrize(
    ("given", "kept"),
    [(None, None), ("", ""), ("postgresql://feed@db:5432/rijplan",) * 2],
)
def test_the_change_feed_is_set_in_the_environment(monkeypatch, given, kept):
    if given is None:
        monkeypatch.delenv("CHANGE_FEED_URL", raising=False)
    else:
        monkeypatch.setenv("CHANGE_FEED_URL", given)
    assert config.load()["CHANGE_FEED_URL"] == kept


def test_a_workers_metrics_are_served_where_it_is_told():
    """A worker has no web app: --metrics-bind serves its attempts for Prometheus."""
    import socket
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    from portal import counters

    counters.attempt("webhooks", "sent")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server, thread = counters.serve(f"127.0.0.1:{port}")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
            text = answer.read().decode()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    sent = ("rijplan_worker_attempts_total", (("result", "sent"), ("worker", "webhooks")))
    assert samples[sent] >= 1


@pytest.mark.parametrize("command", ["deliver-webhooks", "send-notifications"])
def test_a_worker_refuses_a_metrics_address_it_cannot_use(app, command):
    result = app.test_cli_runner().invoke(args=[command, "--once", "--metrics-bind", "nowhere"])
    assert result.exit_code == 2 and "is not HOST:PORT" in result.output
