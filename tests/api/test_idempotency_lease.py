"""A write whose worker died after claiming its Idempotency-Key: the retry is refused while
the claim's lease runs, then runs the write itself, once; on PostgreSQL it runs it at once,
as no transaction holds the claim's lock any more. A first request that comes back after its
lease was taken over does not write a second time."""

from __future__ import annotations

from datetime import timedelta

import pytest
from factories import bearer, in_carrier

from portal.idempotency import service as idempotency
from portal.tasks import service as tasks
from portal.types import utcnow

BODY = {"type": "mest_laden", "naam": "Mest Enter"}


def die_mid_request(monkeypatch):
    """The worker dies inside the handler, after the claim was committed (as gunicorn's
    timeout kills it): nothing of the write is committed, nothing is released."""

    def killed(**kwargs):
        raise SystemExit("worker timeout")

    monkeypatch.setattr(tasks, "create_task", killed)


def later(monkeypatch, by: timedelta) -> None:
    moment = utcnow() + by
    monkeypatch.setattr(idempotency, "utcnow", lambda: moment)


def created(client, driver, api_key) -> list[dict]:
    url = f"/api/v1/users/{driver.user_token}/taken"
    return client.get(url, headers=bearer(api_key.key)).get_json()


@pytest.mark.sqlite_only  # on PostgreSQL the retry need not wait: see the tests below
def test_a_retry_after_the_lease_runs_the_write_once(app, client, driver, api_key, monkeypatch):
    url = f"/api/v1/users/{driver.user_token}/taken"
    headers = {**bearer(api_key.key), "Idempotency-Key": "tms-order-4711"}
    with monkeypatch.context() as patched:
        die_mid_request(patched)
        with pytest.raises(SystemExit):
            client.post(url, json=BODY, headers=headers)

    # While the lease runs the first may still be working: refused, nothing written.
    busy = client.post(url, json=BODY, headers=headers)
    assert busy.status_code == 409
    assert busy.mimetype == "application/problem+json"
    assert "still being processed" in busy.get_json()["detail"]
    assert created(client, driver, api_key) == []

    # After it, the retry takes the claim over and writes; a further retry replays that.
    later(monkeypatch, idempotency.LEASE + timedelta(seconds=1))
    retried = client.post(url, json=BODY, headers=headers)
    again = client.post(url, json=BODY, headers=headers)

    assert retried.status_code == 201
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == retried.get_json()
    assert [t["naam"] for t in created(client, driver, api_key)] == ["Mest Enter"]


def test_a_first_request_back_after_a_takeover_does_not_write(app, carrier, api_key):
    caller, key, digest = f"api_key:{api_key.id}", "k-slow", "a" * 64

    def claim():
        record = idempotency.claim(
            carrier_id=carrier.id, caller=caller, key=key, request_hash=digest
        )
        return idempotency.Claim.of(record)

    slow = in_carrier(app, carrier.id, claim)
    with pytest.MonkeyPatch.context() as patched:
        later(patched, idempotency.LEASE + timedelta(seconds=1))
        retry = in_carrier(app, carrier.id, claim)
    assert retry.lease_until > slow.lease_until

    def finish(holder):
        return idempotency.complete(claim=holder, status=201, body="{}", headers={})

    assert in_carrier(app, carrier.id, lambda: finish(slow)) is False
    assert in_carrier(app, carrier.id, lambda: finish(retry)) is True
    replay = in_carrier(
        app,
        carrier.id,
        lambda: idempotency.claim(
            carrier_id=carrier.id, caller=caller, key=key, request_hash=digest
        ),
    )
    assert isinstance(replay, idempotency.Replay) and replay.status == 201


@pytest.mark.postgres_only  # two writers at once: SQLite lets one write at a time
def test_the_slow_first_request_answers_409_and_its_write_is_rolled_back(
    app, client, driver, api_key, monkeypatch
):
    url = f"/api/v1/users/{driver.user_token}/taken"
    headers = {**bearer(api_key.key), "Idempotency-Key": "tms-order-4712"}
    create = tasks.create_task

    def slow_create(**kwargs):
        # Meanwhile the lease ended and a retry took the claim over and wrote.
        task = create(**kwargs)
        with pytest.MonkeyPatch.context() as patched:
            later(patched, idempotency.LEASE + timedelta(seconds=1))
            carrier_id = kwargs["carrier_id"]
            in_carrier(
                app,
                carrier_id,
                lambda: idempotency._take_over(
                    idempotency._find(
                        carrier_id, f"api_key:{api_key.id}", headers["Idempotency-Key"]
                    ),
                    idempotency.utcnow(),
                    abandoned=False,
                ),
            )
        return task

    monkeypatch.setattr(tasks, "create_task", slow_create)
    late = client.post(url, json=BODY, headers=headers)

    assert late.status_code == 409
    assert created(client, driver, api_key) == []  # its write rolled back


def running_claim(app, key: str) -> int:
    """The advisory lock key of the running claim of key (as hold() takes it)."""
    import psycopg

    with psycopg.connect(app.config["DATABASE_ADMIN_URL"].replace("+psycopg", "")) as conn:
        (record_id,) = conn.execute(
            "SELECT id FROM idempotency_records WHERE key = %s AND status = 'running'", (key,)
        ).fetchone()
    return idempotency._lock_key(record_id)


@pytest.mark.postgres_only  # the claim's advisory lock is PostgreSQL's
def test_a_retry_after_its_worker_died_runs_the_write_at_once(
    app, client, driver, api_key, monkeypatch
):
    url = f"/api/v1/users/{driver.user_token}/taken"
    headers = {**bearer(api_key.key), "Idempotency-Key": "tms-order-4713"}
    with monkeypatch.context() as patched:
        die_mid_request(patched)
        with pytest.raises(SystemExit):
            client.post(url, json=BODY, headers=headers)
    running_claim(app, headers["Idempotency-Key"])  # left running, its lease not ended

    retried = client.post(url, json=BODY, headers=headers)  # no wait for the lease
    again = client.post(url, json=BODY, headers=headers)

    assert retried.status_code == 201
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert [t["naam"] for t in created(client, driver, api_key)] == ["Mest Enter"]


@pytest.mark.postgres_only
def test_a_claim_still_worked_on_is_refused_until_its_lease_ends(
    app, client, driver, api_key, monkeypatch
):
    import psycopg

    url = f"/api/v1/users/{driver.user_token}/taken"
    headers = {**bearer(api_key.key), "Idempotency-Key": "tms-order-4714"}
    with monkeypatch.context() as patched:
        die_mid_request(patched)
        with pytest.raises(SystemExit):
            client.post(url, json=BODY, headers=headers)
    lock = running_claim(app, headers["Idempotency-Key"])
    # Another worker is still at it: its transaction holds the claim's lock.
    with psycopg.connect(app.config["DATABASE_ADMIN_URL"].replace("+psycopg", "")) as worker:
        worker.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
        busy = client.post(url, json=BODY, headers=headers)
        assert busy.status_code == 409
        assert "still being processed" in busy.get_json()["detail"]
        assert busy.headers["Retry-After"] == "1"  # the first is at work: ask again soon
        assert created(client, driver, api_key) == []

        # A holder slower than its lease loses the claim all the same.
        later(monkeypatch, idempotency.LEASE + timedelta(seconds=1))
        retried = client.post(url, json=BODY, headers=headers)
        assert retried.status_code == 201
        worker.rollback()
    assert [t["naam"] for t in created(client, driver, api_key)] == ["Mest Enter"]
