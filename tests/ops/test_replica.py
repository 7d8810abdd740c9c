"""Reads that tolerate a little lag may go to a replica (portal/replica.py): which carrier's
reads it may answer, and what happens when it cannot.

The streaming replica itself (pg_basebackup, replay paused, stopped and started again) is
drilled by tests/ops/test_replica_streaming.py under `bash scripts/drills.sh replica`."""

from __future__ import annotations

import socket
import uuid

import pytest
from conftest import backend_config
from factories import bearer, create_task, driver_token
from factories import replica_outcomes as outcomes
from factories import replica_reads_since as since

from portal import change_feed, create_app, replica
from portal.extensions import db

A, B = uuid.uuid4(), uuid.uuid4()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fences(monkeypatch) -> tuple[replica.Fences, Clock]:
    clock = Clock()
    monkeypatch.setattr(replica.time, "monotonic", clock)
    return replica.Fences(), clock


def test_nothing_goes_to_the_replica_before_the_feed_placed_its_start(fences):
    f, clock = fences
    assert f.fence(A) == "no_feed"
    f.changed(None)
    f.positioned(None, 500, clock.now)
    assert f.fence(A) == 500  # every commit before the feed listened is behind 500


def test_a_change_fences_its_carrier_until_its_position_is_known(fences):
    f, clock = fences
    f.positioned(None, 500, clock.now)
    clock.now += 1
    f.unplaced(A)  # flushed by this process, or noticed from another
    assert f.fence(A) == "fenced"
    assert f.fence(B) == 500  # another carrier's reads are not held up

    clock.now += 0.001
    f.positioned(frozenset({A}), 900, clock.now)
    assert f.fence(A) == 900  # the replica must have replayed past A's change
    assert f.fence(B) == 500


def test_a_write_flushed_after_the_position_was_asked_stays_fenced(fences):
    f, clock = fences
    f.positioned(None, 500, clock.now)
    asked_at = clock.now
    clock.now += 0.001
    f.unplaced(A)  # a newer write than the position knows of
    f.positioned(frozenset({A}), 900, asked_at)
    assert f.fence(A) == "fenced"


def test_a_write_that_never_commits_holds_its_carrier_back_only_a_moment(fences):
    f, clock = fences
    f.positioned(None, 500, clock.now)
    f.unplaced(A)  # flushed, then rolled back: no notice comes
    assert f.fence(A) == "fenced"
    clock.now += replica.PENDING_AT_MOST
    assert f.fence(A) == 500


def test_a_bulk_write_of_an_unknown_carrier_fences_everyone(fences):
    f, clock = fences
    f.positioned(None, 500, clock.now)
    f.unplaced(None)
    assert f.fence(A) == "fenced" and f.fence(B) == "fenced"


def test_a_lost_feed_sends_every_read_to_the_primary_until_it_listens_again(fences):
    f, clock = fences
    f.positioned(None, 500, clock.now)
    f.changed(None)  # the feed lost its connection: anything may have changed
    assert f.fence(A) == "no_feed"
    f.positioned(None, 700, clock.now)
    assert f.fence(A) == 700


def test_a_replica_that_does_not_answer_is_left_alone_for_a_while(fences):
    f, clock = fences
    f.positioned(None, 500, clock.now)
    f.mark_down(5)
    assert f.fence(A) == "down"
    clock.now += 5
    assert f.fence(A) == 500


def test_a_wal_position_compares_as_a_number():
    assert change_feed.lsn("0/16B3748") == 0x16B3748
    assert change_feed.lsn("1/0") > change_feed.lsn("0/FFFFFFFF")


# --- the app with a replica configured ---------------------------------------------------


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def replica_url(request):
    return getattr(request, "param", "primary")


@pytest.fixture
def app(backend, request, tmp_path, replica_url):
    config = backend_config(backend, request, tmp_path)
    primary = config["SQLALCHEMY_DATABASE_URI"]
    if backend == "postgresql":
        if replica_url == "primary":  # a "replica" that is not in recovery: always current
            config["DATABASE_REPLICA_URL"] = primary
        else:
            port = primary.split("@", 1)[1].split("/", 1)[0]
            config["DATABASE_REPLICA_URL"] = primary.replace(port, f"127.0.0.1:{closed_port()}")
    config["REPLICA_RETRY_SECONDS"] = 60
    app = create_app(config)
    yield app
    with app.app_context():
        db.engine.dispose()
        if replica.engine() is not None:
            replica.engine().dispose()


def live_feed(app) -> change_feed.ChangeFeed:
    with app.app_context():
        feed = change_feed.feed_for(change_feed.app_conninfo(app))
    assert feed.wait_live(), "the change feed did not connect"
    return feed


@pytest.mark.postgres_only  # the replica is PostgreSQL's
def test_a_drivers_list_is_read_where_the_replica_may_answer(app, client, carrier, driver):
    create_task(app, carrier, driver, naam="Mest laden")
    feed = live_feed(app)
    token = driver_token(client, driver)
    assert feed.sync()  # the driver's sign-in (a write) is placed
    url = f"/api/v1/users/{driver.user_token}/taken"

    before = outcomes()
    answer = client.get(url, headers=bearer(token))

    assert answer.status_code == 200 and answer.get_json()[0]["naam"] == "Mest laden"
    assert since(before) == {"replica": 1}


@pytest.mark.postgres_only
@pytest.mark.parametrize("replica_url", ["unreachable"], indirect=True)
def test_a_replica_that_does_not_answer_costs_nothing_but_a_fallback(app, client, carrier, driver):
    create_task(app, carrier, driver, naam="Mest laden")
    feed = live_feed(app)
    token = driver_token(client, driver)
    assert feed.sync()
    url = f"/api/v1/users/{driver.user_token}/taken"

    before = outcomes()
    answers = [client.get(url, headers=bearer(token)) for _ in range(3)]

    assert [a.status_code for a in answers] == [200, 200, 200]
    assert all(a.get_json()[0]["naam"] == "Mest laden" for a in answers)
    # The first read tried the replica and fell back; the next ones did not try again.
    assert since(before) == {"down": 3}


@pytest.mark.sqlite_only
def test_on_sqlite_a_replica_setting_changes_nothing(app, client, carrier, driver):
    create_task(app, carrier, driver, naam="Mest laden")
    token = driver_token(client, driver)
    before = outcomes()
    answer = client.get(f"/api/v1/users/{driver.user_token}/taken", headers=bearer(token))
    assert answer.get_json()[0]["naam"] == "Mest laden"
    assert since(before) == {}
