"""The outbox worker against a Web Push service served by the test on 127.0.0.1: retries
with backoff, subscriptions that are gone, the encrypted body and the VAPID signature,
carriers under row-level security, and the send-notifications command."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from factories import create_carrier, create_driver, in_carrier

from messages.support import (
    Device,
    attempts,
    jwt_claims,
    send,
    state,
    subscribe,
    subscription_count,
    vapid_is_valid,
)
from portal.extensions import db
from portal.messages import outbox, service
from portal.messages.push import WebPushChannel, public_key_of
from portal.messages.worker import deliver_due
from portal.types import utcnow

NO_DEVICE = "no phone registered for push notifications; the message is in the app"


def run_pass(app, channel, now=None, limit=100):
    with app.app_context():
        return dict(deliver_due(channel=channel, now=now, limit=limit))


def test_a_failed_first_attempt_is_retried_and_the_message_is_sent(
    app, carrier, driver, push_service, device, channel
):
    push_service.script = [500, 201]
    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver], "Weegbon", "Fotografeer de weegbon.")
    start = utcnow()

    assert run_pass(app, channel, start) == {"queued": 1}
    first = state(app, carrier, message_id)
    assert first["status"] == "queued"
    assert first["fout"] == "push service temporarily unavailable (HTTP 500)"
    assert first["volgende_poging_op"] == start + timedelta(seconds=30)

    # Not due yet: nothing is sent before the backoff has passed.
    assert run_pass(app, channel, start + timedelta(seconds=10)) == {}
    assert len(push_service.received) == 1

    assert run_pass(app, channel, start + timedelta(seconds=31)) == {"sent": 1}
    sent = state(app, carrier, message_id)
    assert sent["status"] == "sent"
    assert sent["verzonden_op"] == start + timedelta(seconds=31)
    assert sent["fout"] is None and sent["pogingen"] == 2
    assert attempts(app, carrier, message_id) == [
        (1, "retry", 500, "push service temporarily unavailable (HTTP 500)"),
        (2, "sent", 201, None),
    ]
    # Nothing left to do.
    assert run_pass(app, channel, start + timedelta(hours=2)) == {}
    assert len(push_service.received) == 2


def test_the_push_is_encrypted_for_the_device_and_signed_with_vapid(
    app, carrier, driver, push_service, device, channel, vapid
):
    subscribe(app, carrier, driver, push_service.endpoint("device-1"), device)
    tekst = "Rij via de N279. " * 100  # 1700 characters: the push carries the start
    (message_id,) = send(app, carrier, [driver], "Omleiding Kanaaldijk", tekst)
    assert run_pass(app, channel) == {"sent": 1}

    (request,) = push_service.received
    assert request.path == "/push/device-1"
    assert request.headers["content-encoding"] == "aes128gcm"
    assert int(request.headers["ttl"]) == 86400
    assert vapid_is_valid(request.headers["authorization"], vapid[1])
    claims = jwt_claims(request.headers["authorization"])
    assert claims["sub"] == "mailto:planning@example.nl"
    assert claims["aud"] == f"http://127.0.0.1:{push_service.port}"
    assert b"Omleiding" not in request.body  # encrypted, not plain JSON
    payload = device.decrypt(request.body)
    assert payload["type"] == "bericht"
    assert payload["id"] == str(message_id)
    assert payload["titel"] == "Omleiding Kanaaldijk"
    assert payload["url"] == f"/api/v1/notificaties/{message_id}"
    assert tekst.startswith(payload["tekst"][:-1]) and len(payload["tekst"]) == 500
    # Another device cannot read it.
    with pytest.raises(Exception):  # noqa: B017 (any decryption failure)
        Device.new().decrypt(request.body)


def test_a_gone_subscription_is_removed_and_the_message_fails(
    app, carrier, driver, push_service, device, channel
):
    push_service.script = [410]
    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver])
    assert run_pass(app, channel) == {"failed": 1}
    failed = state(app, carrier, message_id)
    assert failed["status"] == "failed"
    assert failed["fout"] == "the push subscription no longer exists (HTTP 410)"
    assert failed["fout_code"] == "subscription_gone"
    assert failed["volgende_poging_op"] is None
    assert attempts(app, carrier, message_id) == [
        (1, "failed", 410, "the push subscription no longer exists (HTTP 410)")
    ]
    assert subscription_count(app, carrier) == 0
    # No retry: the push service is not asked again.
    assert run_pass(app, channel, utcnow() + timedelta(hours=3)) == {}
    assert len(push_service.received) == 1


def test_a_driver_without_a_device_fails_with_the_reason_and_keeps_the_inbox(
    app, carrier, driver, channel
):
    (message_id,) = send(app, carrier, [driver])
    assert run_pass(app, channel) == {"failed": 1}
    failed = state(app, carrier, message_id)
    assert (failed["status"], failed["fout_code"]) == ("failed", "no_subscription")
    assert attempts(app, carrier, message_id) == [(1, "failed", None, NO_DEVICE)]
    # The driver still finds it in the app, and reading it is recorded.
    in_carrier(
        app,
        carrier.id,
        lambda: service.mark_read(carrier_id=carrier.id, message_id=message_id),
    )
    assert state(app, carrier, message_id)["status"] == "read"


def test_retries_back_off_and_give_up_after_five_attempts(
    app, carrier, driver, push_service, device, channel
):
    push_service.script = [503] * 5
    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver])
    now = utcnow()
    waits = []
    for _ in range(4):
        assert run_pass(app, channel, now) == {"queued": 1}
        due = state(app, carrier, message_id)["volgende_poging_op"]
        waits.append(due - now)
        now = due
    assert waits == [
        timedelta(seconds=30),
        timedelta(minutes=2),
        timedelta(minutes=10),
        timedelta(hours=1),
    ]
    assert run_pass(app, channel, now) == {"failed": 1}
    failed = state(app, carrier, message_id)
    assert failed["fout_code"] == "given_up"
    assert failed["fout"] == (
        "given up after 5 attempts: push service temporarily unavailable (HTTP 503)"
    )
    assert [a[1] for a in attempts(app, carrier, message_id)] == ["retry"] * 4 + ["failed"]
    assert len(push_service.received) == 5


def test_retry_after_from_the_push_service_is_honoured(
    app, carrier, driver, push_service, device, channel
):
    push_service.script = [(429, {"Retry-After": "600"})]
    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver])
    now = utcnow()
    assert run_pass(app, channel, now) == {"queued": 1}
    assert state(app, carrier, message_id)["volgende_poging_op"] == now + timedelta(minutes=10)


def test_a_redirect_is_not_followed(app, carrier, driver, push_service, device, channel):
    push_service.script = [(307, {"Location": push_service.endpoint("elsewhere")})]
    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver])
    assert run_pass(app, channel) == {"failed": 1}
    refused = state(app, carrier, message_id)["fout"]
    assert refused == "the push service refused the message (HTTP 307)"
    assert [r.path for r in push_service.received] == ["/push/abc"]


def test_one_accepting_device_is_enough_and_a_gone_one_is_forgotten(
    app, carrier, driver, push_service, channel
):
    push_service.script = [410, 201]
    subscribe(app, carrier, driver, push_service.endpoint("old-phone"), Device.new())
    subscribe(app, carrier, driver, push_service.endpoint("new-phone"), Device.new())
    (message_id,) = send(app, carrier, [driver])
    assert run_pass(app, channel) == {"sent": 1}
    assert [r.path for r in push_service.received] == ["/push/old-phone", "/push/new-phone"]
    recorded = sorted(a[1:3] for a in attempts(app, carrier, message_id))
    assert recorded == [("failed", 410), ("sent", 201)]
    assert subscription_count(app, carrier) == 1


def test_a_message_read_while_queued_is_not_pushed(
    app, carrier, driver, push_service, device, channel
):
    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver])
    in_carrier(
        app, carrier.id, lambda: service.mark_read(carrier_id=carrier.id, message_id=message_id)
    )
    assert run_pass(app, channel) == {}
    assert push_service.received == []


def test_a_message_read_during_its_push_stays_read(
    app, carrier, driver, push_service, device, channel
):
    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver])
    now = utcnow()
    with app.app_context():
        from portal.tenancy import carrier_scope

        with carrier_scope(db.session, carrier.id):
            (claimed,) = outbox.claim_due(carrier_id=carrier.id, now=now)
            db.session.commit()
            service.mark_read(carrier_id=carrier.id, message_id=message_id, now=now)
            db.session.commit()
            target = claimed.targets[0]
            results = [(target, channel.send(target, claimed.message))]
            status = outbox.record_outcome(
                carrier_id=carrier.id, claimed=claimed, results=results, now=now
            )
            db.session.commit()
    assert status == "read"
    after = state(app, carrier, message_id)
    assert after["status"] == "read" and after["verzonden_op"] == now
    assert after["claim_id"] is None


def test_claimed_messages_are_not_claimed_again(app, carrier, driver, channel):
    send(app, carrier, [driver])
    now = utcnow()

    def claim():
        return len(outbox.claim_due(carrier_id=carrier.id, now=now))

    assert in_carrier(app, carrier.id, claim) == 1
    # A second worker at the same moment finds nothing: the first holds a lease.
    assert in_carrier(app, carrier.id, claim) == 0
    # After the lease the message is due again (the first worker died).
    later = now + outbox.LEASE

    def claim_later():
        return len(outbox.claim_due(carrier_id=carrier.id, now=later))

    assert in_carrier(app, carrier.id, claim_later) == 1


def test_a_shorter_lease_hands_a_killed_workers_messages_on_sooner(app, carrier, driver, channel):
    send(app, carrier, [driver])
    now = utcnow()

    def claim(at, **lease):
        return lambda: len(outbox.claim_due(carrier_id=carrier.id, now=at, **lease))

    assert in_carrier(app, carrier.id, claim(now, lease=timedelta(seconds=30))) == 1
    assert in_carrier(app, carrier.id, claim(now + timedelta(seconds=29))) == 0
    assert in_carrier(app, carrier.id, claim(now + timedelta(seconds=30))) == 1


def test_the_push_worker_refuses_a_lease_too_short_for_a_push(app):
    result = app.test_cli_runner().invoke(args=["send-notifications", "--once", "--lease", "2"])
    assert result.exit_code == 2 and "--lease" in result.output


def test_one_pass_serves_every_carrier_in_its_own_scope(app, push_service, channel):
    carriers = [create_carrier(app, name) for name in ("Van der Berg", "Kuipers")]
    ids = []
    for index, carrier in enumerate(carriers):
        driver = create_driver(app, carrier, f"Chauffeur {index}")
        subscribe(app, carrier, driver, push_service.endpoint(f"c{index}"), Device.new())
        ids.append(send(app, carrier, [driver])[0])
    assert run_pass(app, channel) == {"sent": 2}
    for carrier, message_id in zip(carriers, ids, strict=True):
        assert state(app, carrier, message_id)["status"] == "sent"
        assert len(attempts(app, carrier, message_id)) == 1
    assert sorted(r.path for r in push_service.received) == ["/push/c0", "/push/c1"]


def test_the_batch_limit_leaves_the_rest_for_the_next_pass(app, carrier, push_service, channel):
    drivers = [create_driver(app, carrier, f"Chauffeur {i}") for i in range(3)]
    for index, driver in enumerate(drivers):
        subscribe(app, carrier, driver, push_service.endpoint(f"d{index}"), Device.new())
    send(app, carrier, drivers)
    assert run_pass(app, channel, limit=2) == {"sent": 2}
    assert run_pass(app, channel, limit=2) == {"sent": 1}


def test_an_endpoint_on_a_private_address_is_refused_at_send_time(
    app, carrier, driver, push_service, device, vapid
):
    strict = WebPushChannel(private_key=vapid[0], subject="mailto:planning@example.nl")
    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver])
    assert run_pass(app, strict) == {"failed": 1}
    assert state(app, carrier, message_id)["fout"].startswith("push service address refused")
    assert push_service.received == []


def test_a_channel_that_breaks_becomes_a_retry(app, carrier, driver, device, push_service):
    class Broken:
        def send(self, target, message):
            raise RuntimeError("bug")

    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver])
    assert run_pass(app, Broken()) == {"queued": 1}
    broken = state(app, carrier, message_id)["fout"]
    assert broken == "internal error in the push worker (RuntimeError)"


@pytest.mark.postgres_only
def test_a_locked_message_is_skipped_by_another_worker(
    app, backend, carrier, driver, push_service, device, channel
):
    """FOR UPDATE SKIP LOCKED: a worker passes a row another worker holds, without waiting."""
    import psycopg

    subscribe(app, carrier, driver, push_service.endpoint(), device)
    (message_id,) = send(app, carrier, [driver])
    url = app.config["SQLALCHEMY_DATABASE_URI"].replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url) as other:
        other.execute("SELECT set_config('app.transporteur_id', %s, true)", (str(carrier.id),))
        locked = other.execute(
            "SELECT id FROM berichten WHERE id = %s FOR UPDATE", (message_id,)
        ).fetchall()
        assert len(locked) == 1
        assert run_pass(app, channel) == {}
        other.rollback()
    assert run_pass(app, channel) == {"sent": 1}


@pytest.mark.postgres_only
def test_the_worker_learns_which_carriers_are_due_and_nothing_else(app, backend, carrier, driver):
    from datetime import UTC, datetime, timedelta

    import psycopg

    _queued, done = send(app, carrier, [driver]) + send(app, carrier, [driver])
    in_carrier(app, carrier.id, lambda: service.mark_read(carrier_id=carrier.id, message_id=done))
    url = app.config["SQLALCHEMY_DATABASE_URI"].replace("postgresql+psycopg://", "postgresql://")
    later = datetime.now(UTC) + timedelta(minutes=1)
    with psycopg.connect(url) as conn:
        conn.execute("SELECT set_config('app.outbox_dispatch', 'on', true)")  # no key
        assert conn.execute("SELECT count(*) FROM berichten").fetchone()[0] == 0
        due = conn.execute("SELECT * FROM rijplan_berichten_te_versturen(%s, 10)", (later,))
        assert due.fetchall() == [(carrier.id,)]
        assert conn.execute("UPDATE berichten SET titel = 'x'").rowcount == 0


# --- the commands ------------------------------------------------------------------------


def test_send_notifications_once_pushes_what_is_due(
    app, carrier, driver, push_service, device, vapid
):
    app.config.update(
        VAPID_PRIVATE_KEY=vapid[0],
        VAPID_SUBJECT="mailto:planning@example.nl",
        WEBPUSH_ALLOW_PRIVATE=True,
    )
    subscribe(app, carrier, driver, push_service.endpoint(), device)
    first, second = send(app, carrier, [driver]) + send(app, carrier, [driver])
    result = app.test_cli_runner().invoke(args=["send-notifications", "--once", "--batch", "1"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"sent": 2, "queued": 0, "failed": 0, "read": 0}
    assert {state(app, carrier, m)["status"] for m in (first, second)} == {"sent"}


def test_send_notifications_refuses_to_start_without_vapid_keys(app):
    app.config.update(VAPID_PRIVATE_KEY=None)
    result = app.test_cli_runner().invoke(args=["send-notifications", "--once"])
    assert result.exit_code == 1
    assert "generate-vapid-keys" in result.stderr


def test_generate_vapid_keys_prints_a_working_pair(app):
    runner = app.test_cli_runner()
    pair = json.loads(runner.invoke(args=["generate-vapid-keys"]).stdout)
    assert public_key_of(pair["VAPID_PRIVATE_KEY"]) == pair["VAPID_PUBLIC_KEY"]
    env = runner.invoke(args=["generate-vapid-keys", "--env"]).stdout.splitlines()
    assert env[0].startswith("VAPID_PRIVATE_KEY=") and len(env[0]) > 50
    assert env[1].startswith("# ")


def test_every_pass_leaves_a_heartbeat_the_portal_reads(app, channel):
    """The portal tells a running worker from a stopped one by the time of its last poll."""
    start = utcnow()
    with app.app_context():
        assert not service.worker_state(configured=True, now=start).running
        deliver_due(channel=channel, now=start, interval=5.0)
        state_now = service.worker_state(configured=True, now=start + timedelta(seconds=20))
        assert state_now.running and state_now.last_seen == start
        later = service.worker_state(configured=True, now=start + timedelta(minutes=3))
        assert not later.running and later.last_seen == start
        assert not service.worker_state(configured=False, now=start).pushing
