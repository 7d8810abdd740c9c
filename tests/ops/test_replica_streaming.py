"""A real streaming replica, made by `bash scripts/drills.sh replica` with pg_basebackup from
a primary cluster of the drill's own (RIJPLAN_TEST_PG points at it): lists are read there
once it has replayed the carrier's changes, never before; row-level security holds there;
with the replica stopped every read falls back to the primary and nothing fails.

RIJPLAN_TEST_REPLICA: host:port of the replica; RIJPLAN_TEST_REPLICA_DIR: its data folder
(stopped and started with pg_ctl, as RIJPLAN_TEST_REPLICA_AS, e.g. `runuser -u postgres --`)."""

from __future__ import annotations

import os
import shlex
import subprocess
import time

import psycopg
import pytest
from conftest import APP_ROLE, backend_config
from factories import (
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_task,
    driver_token,
)
from factories import replica_outcomes as outcomes
from factories import replica_reads_since as since

from portal import change_feed, create_app, replica
from portal.extensions import db

REPLICA = os.environ.get("RIJPLAN_TEST_REPLICA")
pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.skipif(not REPLICA, reason="no streaming replica (scripts/drills.sh replica)"),
]
PG_CTL = "/usr/lib/postgresql/15/bin/pg_ctl"


def on_replica(url: str) -> str:
    host_port = url.split("@", 1)[1].split("/", 1)[0]
    return url.replace(host_port, REPLICA, 1)


@pytest.fixture
def app(backend, request, tmp_path):
    config = backend_config(backend, request, tmp_path)
    config["DATABASE_REPLICA_URL"] = on_replica(config["SQLALCHEMY_DATABASE_URI"])
    config["REPLICA_RETRY_SECONDS"] = 0.2
    app = create_app(config)
    yield app
    with app.app_context():
        db.engine.dispose()
        replica.engine().dispose()


@pytest.fixture
def feed(app) -> change_feed.ChangeFeed:
    with app.app_context():
        feed = change_feed.feed_for(change_feed.app_conninfo(app))
    assert feed.wait_live(), "the change feed did not connect"
    return feed


def superuser_on_replica(app) -> psycopg.Connection:
    return psycopg.connect(
        on_replica(app.config["DATABASE_ADMIN_URL"]).replace("+psycopg", ""), autocommit=True
    )


def caught_up(app, deadline: float = 30.0) -> None:
    """Wait until the replica has replayed everything the primary has written so far."""
    with psycopg.connect(app.config["DATABASE_ADMIN_URL"].replace("+psycopg", "")) as primary:
        (target,) = primary.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()
    with superuser_on_replica(app) as standby:
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            (done,) = standby.execute(
                "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (target,)
            ).fetchone()
            if done:
                return
            standby.execute("SELECT pg_sleep(0.02)")  # a poll of the replica's progress
    raise AssertionError("the replica did not catch up")


def test_row_level_security_holds_on_the_replica(app, carrier, driver):
    other = create_carrier(app, "Kuipers Veevervoer")
    create_task(app, carrier, driver, naam="Mest laden")
    create_task(app, other, create_driver(app, other, "Sanne Kuipers"), naam="Varkens")
    caught_up(app)
    url = on_replica(app.config["SQLALCHEMY_DATABASE_URI"]).replace("+psycopg", "")
    assert f"{APP_ROLE}@" in url  # the app's own role: neither superuser nor owner
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,)

        def names(carrier_id) -> list[str]:
            conn.execute("SELECT set_config('app.transporteur_id', %s, true)", (carrier_id,))
            return [r[0] for r in conn.execute("SELECT naam FROM taken ORDER BY naam")]

        assert names("") == []
        assert names(str(carrier.id)) == ["Mest laden"]
        assert names(str(other.id)) == ["Varkens"]
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("DELETE FROM taken")


def test_lists_are_read_on_the_replica_and_never_behind_a_change(
    app, client, carrier, driver, feed
):
    task = create_task(app, carrier, driver, naam="Mest laden")
    key = create_api_key(app, carrier)
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    caught_up(app)
    assert feed.sync()
    before = outcomes()
    assert client.get(url, headers=bearer(token)).get_json()[0]["naam"] == "Mest laden"
    assert since(before) == {"replica": 1}

    # The planner's system renames the task, and the driver's phone asks at once, thirty
    # times over: each answer shows the latest name, whichever database gave it.
    seen = []
    before = outcomes()
    for n in range(30):
        renamed = client.patch(
            f"/api/v1/taken/{task.id}", json={"naam": f"Mest laden {n}"}, headers=bearer(key.key)
        )
        assert renamed.status_code == 200, renamed.get_json()
        seen.append(client.get(url, headers=bearer(token)).get_json()[0]["naam"])
    assert seen == [f"Mest laden {n}" for n in range(30)]
    routed = since(before)
    print(f"\nwrite then read at once, 30 times: {routed}")
    # Each went to the replica once the write's notice had placed it and the replica had
    # replayed past it, else to the primary: the paused replay below proves the fence.
    assert sum(routed.values()) == 30 and set(routed) <= {"replica", "fenced", "behind"}


def test_a_replica_behind_a_carriers_change_does_not_answer_for_it(
    app, client, carrier, driver, feed
):
    task = create_task(app, carrier, driver, naam="Mest laden")
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    caught_up(app)
    with superuser_on_replica(app) as standby:
        standby.execute("SELECT pg_wal_replay_pause()")
        try:
            # Another worker renames it: this process hears the notice, not the commit.
            with psycopg.connect(
                app.config["DATABASE_ADMIN_URL"].replace("+psycopg", ""), autocommit=True
            ) as other:
                other.execute(
                    "UPDATE taken SET naam = 'Mest laden Hengelo' WHERE id = %s", (task.id,)
                )
            assert feed.sync(), "the change notice did not arrive"
            before = outcomes()
            answer = client.get(url, headers=bearer(token))
            assert answer.get_json()[0]["naam"] == "Mest laden Hengelo"
            assert since(before) == {"behind": 1}  # asked the replica, which had not replayed it
        finally:
            standby.execute("SELECT pg_wal_replay_resume()")
    caught_up(app)
    before = outcomes()
    assert client.get(url, headers=bearer(token)).get_json()[0]["naam"] == "Mest laden Hengelo"
    assert since(before) == {"replica": 1}


def pg_ctl(*args: str) -> None:
    prefix = shlex.split(os.environ.get("RIJPLAN_TEST_REPLICA_AS", ""))
    folder = os.environ["RIJPLAN_TEST_REPLICA_DIR"]
    subprocess.run([*prefix, PG_CTL, "-D", folder, *args], check=True, capture_output=True)


def test_with_the_replica_stopped_reads_fall_back_and_nothing_fails(
    app, client, carrier, driver, feed
):
    create_task(app, carrier, driver, naam="Mest laden")
    token = driver_token(client, driver)
    url = f"/api/v1/users/{driver.user_token}/taken"
    caught_up(app)
    assert feed.sync()
    assert client.get(url, headers=bearer(token)).status_code == 200  # a pooled connection

    pg_ctl("stop", "-m", "fast", "-w")
    try:
        before = outcomes()
        answers = [client.get(url, headers=bearer(token)) for _ in range(20)]
        assert {a.status_code for a in answers} == {200}
        assert all(a.get_json()[0]["naam"] == "Mest laden" for a in answers)
        stopped = since(before)
        assert stopped.get("down", 0) >= 1 and "replica" not in stopped
    finally:
        pg_ctl("start", "-w", "-l", os.environ["RIJPLAN_TEST_REPLICA_DIR"] + ".log")
    caught_up(app)
    before = outcomes()
    end = time.monotonic() + 30
    while "replica" not in since(before) and time.monotonic() < end:
        assert client.get(url, headers=bearer(token)).status_code == 200
    print(f"\nreplica stopped, 20 reads: {stopped}; back: {since(before)}")
    assert "replica" in since(before), "reads did not return to the replica"
