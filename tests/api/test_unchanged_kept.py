"""An unchanged poll the database confirmed once is answered without asking it again, and
never after the carrier's rows changed: whether this process wrote them (its own commit),
another process did (PostgreSQL's change notice), the token was signed out, or the process
lost its change feed."""

from __future__ import annotations

import time

import psycopg
import pytest
from factories import bearer, create_task, driver_token, in_carrier

from portal import change_feed
from portal.api.unchanged import CONFIRMED, Confirmed, _feed_conninfo
from portal.audit.service import SYSTEM
from portal.drivers import tokens
from portal.extensions import db


def live_feed(app) -> change_feed.ChangeFeed:
    with app.app_context():
        feed = change_feed.feed_for(_feed_conninfo(app))
    assert feed.wait_live(), "the change feed did not connect"
    return feed


def polls(client, driver) -> tuple[str, dict]:
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    etag = client.get(url, headers=bearer(token)).headers["ETag"]
    return url, {**bearer(token), "If-None-Match": etag}


def admin(app) -> psycopg.Connection:
    return psycopg.connect(
        app.config["DATABASE_ADMIN_URL"].replace("+psycopg", ""), autocommit=True
    )


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_a_confirmed_unchanged_poll_costs_no_statement(app, client, carrier, driver, count_queries):
    create_task(app, carrier, driver, naam="Mest laden")
    live_feed(app)
    url, headers = polls(client, driver)

    with count_queries(cold=False) as first:
        assert client.get(url, headers=headers).status_code == 304
    with count_queries(cold=False) as second:
        again = client.get(url, headers=headers)

    assert first.messages == 1  # the database confirms it once
    assert again.status_code == 304 and second.messages == 0
    assert again.headers["ETag"] == headers["If-None-Match"]
    # Another ETag is no match for what was kept: Flask answers it in full.
    other = client.get(url, headers={**headers, "If-None-Match": '"ouder"'})
    assert other.status_code == 200 and other.get_json()[0]["naam"] == "Mest laden"


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_another_process_writing_ends_the_kept_answer(app, client, carrier, driver):
    task = create_task(app, carrier, driver, naam="Mest laden")
    feed = live_feed(app)
    url, headers = polls(client, driver)
    assert client.get(url, headers=headers).status_code == 304
    assert client.get(url, headers=headers).status_code == 304  # kept

    # Another worker (or an operator's SQL) renames the task: not this process's commit.
    with admin(app) as other:
        other.execute(
            "UPDATE taken SET naam = 'Mest laden Hengelo', updated_at = now() WHERE id = %s",
            (task.id,),
        )
    assert feed.sync(), "the change notice did not arrive"

    changed = client.get(url, headers=headers)
    assert changed.status_code == 200
    assert changed.get_json()[0]["naam"] == "Mest laden Hengelo"


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_a_commit_of_this_process_ends_the_kept_answer_at_once(app, client, carrier, driver):
    create_task(app, carrier, driver, naam="Mest laden")
    live_feed(app)
    url, headers = polls(client, driver)
    assert client.get(url, headers=headers).status_code == 304
    assert len(CONFIRMED) == 1

    # No waiting for the notice: the commit itself tells this process.
    create_task(app, carrier, driver, naam="Erbij gekomen")
    assert len(CONFIRMED) == 0
    assert client.get(url, headers=headers).status_code == 200


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_signing_out_ends_the_kept_answer(app, client, carrier, driver):
    live_feed(app)
    url, headers = polls(client, driver)
    assert client.get(url, headers=headers).status_code == 304
    assert client.get(url, headers=headers).status_code == 304

    in_carrier(
        app,
        carrier.id,
        lambda: tokens.sign_out_phone(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM),
    )
    refused = client.get(url, headers=headers)
    assert refused.status_code == 401
    assert refused.mimetype == "application/problem+json"


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_another_carriers_change_keeps_this_carriers_answer(
    app, client, carrier, driver, count_queries
):
    from factories import create_carrier, create_driver

    other = create_carrier(app, "Kuipers Transport")
    colleague = create_driver(app, other, "Sanne Kuipers")
    live_feed(app)
    url, headers = polls(client, driver)
    assert client.get(url, headers=headers).status_code == 304

    create_task(app, other, colleague, naam="Voer leveren")

    with count_queries(cold=False) as kept:
        assert client.get(url, headers=headers).status_code == 304
    assert kept.messages == 0


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_without_the_feed_every_unchanged_poll_asks_the_database(
    app, client, carrier, driver, count_queries, monkeypatch
):
    feed = live_feed(app)
    monkeypatch.setattr(change_feed, "feed_for", lambda conninfo: feed)  # not restarted
    url, headers = polls(client, driver)
    assert client.get(url, headers=headers).status_code == 304
    assert len(CONFIRMED) == 1

    feed.stop()  # the connection is gone: what it vouched for is forgotten
    assert len(CONFIRMED) == 0
    with count_queries(cold=False) as asked:
        assert client.get(url, headers=headers).status_code == 304
        assert client.get(url, headers=headers).status_code == 304
    assert asked.messages == 2  # nothing kept while no feed is live


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_no_feed_when_switched_off(app, client, carrier, driver, count_queries):
    app.config["CHANGE_FEED_URL"] = ""
    url, headers = polls(client, driver)
    with count_queries(cold=False) as asked:
        for _ in range(3):
            assert client.get(url, headers=headers).status_code == 304
    assert asked.messages == 3


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_the_feed_reconnects_and_forgets_what_it_missed(app):
    with app.app_context():
        conninfo = _feed_conninfo(app)
    heard = []
    lost = __import__("threading").Event()

    def subscriber(carrier_id):
        heard.append(carrier_id)
        if carrier_id is None:
            lost.set()

    feed = change_feed.ChangeFeed(conninfo, retry_after=0.01)
    change_feed.subscribe(subscriber)
    try:
        assert feed.wait_live()
        lost.clear()
        with admin(app) as other:
            ended = other.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE application_name = %s AND datname = current_database()",
                (change_feed.APPLICATION_NAME,),
            ).fetchone()[0]
        assert ended >= 1
        assert lost.wait(10), "the lost connection was not noticed"
        assert feed.sync(), "the feed did not come back"
    finally:
        change_feed._subscribers.remove(subscriber)
        feed.stop()
    assert None in heard


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_the_database_names_each_changed_carrier_once_per_statement(app, carrier, driver):
    from factories import create_carrier, create_driver

    other = create_carrier(app, "Kuipers Transport")
    colleague = create_driver(app, other, "Sanne Kuipers")
    for _ in range(3):
        create_task(app, carrier, driver)
        create_task(app, other, colleague)
    with admin(app) as listener, admin(app) as writer:
        listener.execute(f"LISTEN {change_feed.CHANNEL}")
        writer.execute("UPDATE taken SET naam = naam || '.'")  # six rows, two carriers
        writer.execute("UPDATE transporteurs SET naam = naam WHERE id = %s", (carrier.id,))
        writer.execute("BEGIN")
        writer.execute("DELETE FROM taken WHERE transporteur_id = %s", (other.id,))
        writer.execute("ROLLBACK")  # rolled back: no notice
        writer.execute("SELECT pg_notify(%s, 'einde')", (change_feed.CHANNEL,))
        heard = []
        for notice in listener.notifies(timeout=10):
            heard.append(notice.payload)
            if notice.payload == "einde":
                break
    assert sorted(heard[:2]) == sorted([str(carrier.id), str(other.id)])
    assert heard[2:] == [str(carrier.id), "einde"]


def test_a_read_under_way_when_its_carrier_changed_is_not_kept():
    import uuid

    kept = Confirmed()
    carrier_id = uuid.uuid4()
    later = time.time() + 60
    before = kept.generation(carrier_id)
    kept.forget(carrier_id)  # the change's notice arrives while the read is under way
    kept.put("token", "/pad", "e1", carrier_id, later, before)
    assert kept.etag("token", "/pad") is None

    kept.put("token", "/pad", "e1", carrier_id, later, kept.generation(carrier_id))
    assert kept.etag("token", "/pad") == "e1"
    kept.put("token", "/oud", "e0", carrier_id, time.time() - 1, kept.generation(carrier_id))
    assert kept.etag("token", "/oud") is None  # expired (the token, the day or the minute)
    kept.forget(uuid.uuid4())
    assert kept.etag("token", "/pad") == "e1"  # another carrier's change
    kept.forget(None)
    assert kept.etag("token", "/pad") is None


@pytest.mark.sqlite_only
def test_sqlite_keeps_nothing(app, client, carrier, driver, count_queries):
    url, headers = polls(client, driver)
    for _ in range(2):
        assert client.get(url, headers=headers).status_code == 304
    assert len(CONFIRMED) == 0
    with app.app_context():
        assert _feed_conninfo(app) is None
    assert db  # the app's engine, untouched


@pytest.mark.postgres_only  # change notices are PostgreSQL's
def test_polls_answered_before_flask_are_counted_in_the_request_metrics(
    app, client, carrier, driver
):
    from portal.counters import REGISTRY

    create_task(app, carrier, driver, naam="Mest laden")
    live_feed(app)
    url, headers = polls(client, driver)
    labels = {
        "method": "GET",
        "route": "/api/v1/users/<user_token:user_token>/taken",
        "status": "304",
    }

    def count() -> float:
        return REGISTRY.get_sample_value("rijplan_http_requests_total", labels) or 0.0

    before = count()
    assert client.get(url, headers=headers).status_code == 304  # confirmed by the database
    assert client.get(url, headers=headers).status_code == 304  # kept
    assert count() - before == 2
