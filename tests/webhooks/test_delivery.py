"""The worker against a receiver on 127.0.0.1: retries on the schedule (a chosen clock, no
sleeps), answers cut off by time and size, no redirect followed, at least once with the same
event id after a crash, order per task, pause after a day of failures, resending."""

from __future__ import annotations

from datetime import timedelta

import pytest
from factories import create_task, in_carrier

from portal.audit.service import SYSTEM
from portal.extensions import db
from portal.types import utcnow
from portal.webhooks import failures, outbox, resending, service
from portal.webhooks.worker import _send
from webhooks.support import (
    attempts,
    deliveries,
    endpoint_state,
    register,
    run_pass,
    sender,
)


def rename(app, carrier, task, naam):
    from portal.tasks import service as tasks

    in_carrier(
        app,
        carrier.id,
        lambda: tasks.update_task(
            carrier_id=carrier.id, task_id=task.id, data={"naam": naam}, actor=SYSTEM
        ),
    )


def test_fails_times_out_then_accepts_on_the_backoff_schedule(app, carrier, receiver):
    register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [503, ("hang",), 200]
    create_task(app, carrier, None)
    start = utcnow() + timedelta(seconds=1)
    slow = sender(timeout=0.5)

    assert run_pass(app, slow, start) == {"queued": 1}
    (first,) = deliveries(app, carrier)
    assert first["volgende_poging_op"] == start + outbox.BACKOFF[0]
    assert failures.english(first["fout"]) == "the endpoint is temporarily unavailable (HTTP 503)"

    assert run_pass(app, slow, start + timedelta(seconds=59)) == {}  # not due yet
    second_at = start + outbox.BACKOFF[0]
    assert run_pass(app, slow, second_at) == {"queued": 1}
    (second,) = deliveries(app, carrier)
    assert second["volgende_poging_op"] == second_at + outbox.BACKOFF[1]
    assert failures.english(second["fout"]) == "no answer within 0.5 seconds"

    assert run_pass(app, slow, second_at + outbox.BACKOFF[1]) == {"sent": 1}
    (done,) = deliveries(app, carrier)
    assert done["status"] == "sent" and done["pogingen"] == 3
    log = attempts(app, carrier, done["id"])
    assert [(a["poging"], a["resultaat"], a["http_status"]) for a in log] == [
        (1, "retry", 503),
        (2, "retry", None),
        (3, "sent", 200),
    ]
    assert log[0]["antwoord"] == "receiver says no"
    assert log[1]["duur_ms"] >= 400  # cut off at the time limit
    assert log[2]["antwoord"] == '{"ok": true}'
    # The same event each time.
    assert len({r.event["id"] for r in receiver.received}) == 1
    assert [r.headers["rijplan-delivery-attempt"] for r in receiver.received] == ["1", "2", "3"]


def test_retries_follow_the_whole_schedule_then_fail_and_pause_the_endpoint(app, carrier, receiver):
    endpoint_id, _secret = register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [500] * outbox.MAX_ATTEMPTS
    create_task(app, carrier, None)
    at = utcnow() + timedelta(seconds=1)
    for attempt in range(1, outbox.MAX_ATTEMPTS):
        assert run_pass(app, now=at) == {"queued": 1}
        (row,) = deliveries(app, carrier)
        assert row["volgende_poging_op"] == at + outbox.BACKOFF[attempt - 1]
        at = row["volgende_poging_op"]
    total = sum(outbox.BACKOFF, timedelta())
    assert timedelta(hours=20) < total < timedelta(hours=30)  # about a day
    assert run_pass(app, now=at) == {"failed": 1}
    (row,) = deliveries(app, carrier)
    assert row["status"] == "failed" and row["pogingen"] == outbox.MAX_ATTEMPTS
    assert failures.code_of(row["fout"]) == "given_up"
    state = endpoint_state(app, carrier, endpoint_id)
    assert state["actief"] is False
    assert failures.code_of(state["pauze_reden"]) == "given_up"

    # Paused: new events wait, unscheduled; resuming sends them.
    create_task(app, carrier, None, naam="Later")
    assert run_pass(app, now=at + timedelta(minutes=1)) == {}
    in_carrier(
        app,
        carrier.id,
        lambda: service.set_active(
            carrier_id=carrier.id, endpoint_id=endpoint_id, active=True, actor=SYSTEM
        ),
    )
    assert run_pass(app) == {"sent": 1}
    assert receiver.events[-1]["data"]["naam"] == "Later"


def test_a_4xx_fails_at_once_and_a_redirect_is_not_followed(app, carrier, receiver):
    register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [410, ("redirect", "http://169.254.169.254/latest/meta-data")]
    create_task(app, carrier, None, naam="A")
    create_task(app, carrier, None, naam="B")
    assert run_pass(app) == {"failed": 2}
    rows = deliveries(app, carrier)
    assert [failures.code_of(r["fout"]) for r in rows] == ["refused", "redirect"]
    assert len(receiver.received) == 2  # nothing went to the redirect's address


def test_a_ten_megabyte_answer_is_cut_off(app, carrier, receiver):
    register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [("big", 10 * 1024 * 1024)]
    create_task(app, carrier, None)
    assert run_pass(app) == {"sent": 1}
    (row,) = deliveries(app, carrier)
    (attempt,) = attempts(app, carrier, row["id"])
    assert len(attempt["antwoord"]) == 1024  # the first bytes kept


def test_a_worker_crash_between_send_and_record_sends_again_with_the_same_event_id(
    app, carrier, receiver
):
    register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    create_task(app, carrier, None)
    now = utcnow() + timedelta(seconds=1)
    with app.app_context():
        from portal.tenancy import carrier_scope

        with carrier_scope(db.session, carrier.id):
            (item,) = outbox.claim_due(carrier_id=carrier.id, now=now)
            db.session.commit()
            _send(sender(), item, now)  # posted, then the worker dies: nothing recorded
        db.session.rollback()
    assert run_pass(app, now=now + timedelta(minutes=1)) == {}  # still held by the claim
    assert run_pass(app, now=now + outbox.LEASE + timedelta(seconds=1)) == {"sent": 1}
    first, second = receiver.received
    assert first.event["id"] == second.event["id"]
    assert first.body == second.body
    (row,) = deliveries(app, carrier)
    assert row["status"] == "sent" and row["pogingen"] == 2


def test_a_worker_with_a_shorter_lease_has_its_claims_taken_over_sooner(app, carrier, receiver):
    register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    create_task(app, carrier, None)
    now = utcnow() + timedelta(seconds=1)
    with app.app_context():
        from portal.tenancy import carrier_scope

        with carrier_scope(db.session, carrier.id):
            outbox.claim_due(carrier_id=carrier.id, now=now, lease=timedelta(seconds=8))
            db.session.commit()  # then the worker is killed
    assert run_pass(app, now=now + timedelta(seconds=7)) == {}
    assert run_pass(app, now=now + timedelta(seconds=9)) == {"sent": 1}


def test_the_worker_refuses_a_lease_shorter_than_one_post(app):
    app.config["WEBHOOKS_TIMEOUT"] = 10.0
    result = app.test_cli_runner().invoke(args=["deliver-webhooks", "--once", "--lease", "5"])
    assert result.exit_code == 2
    assert "the lease must be longer" in result.output


def test_events_of_one_task_arrive_in_order_even_when_the_first_must_wait(app, carrier, receiver):
    register(app, carrier, receiver.url(), ["taak.aangemaakt", "taak.gewijzigd"])
    task = create_task(app, carrier, None, naam="T0")
    rename(app, carrier, task, "T1")
    rename(app, carrier, task, "T2")
    other = create_task(app, carrier, None, naam="Ander")
    receiver.script = [503]  # the task's first event must wait
    now = utcnow() + timedelta(seconds=1)
    assert run_pass(app, now=now) == {"queued": 1, "sent": 1}
    assert [e["data"]["naam"] for e in receiver.events] == ["T0", "Ander"]
    # Nothing of the task overtakes its first event while that one waits.
    assert run_pass(app, now=now + timedelta(seconds=30)) == {}
    assert run_pass(app, now=now + outbox.BACKOFF[0]) == {"sent": 3}
    names = [e["data"]["naam"] for e in receiver.events]
    assert names == ["T0", "Ander", "T0", "T1", "T2"]
    assert other  # the other task's event did not wait for this one


def test_resend_one_and_all_failed_of_a_period(app, carrier, receiver):
    endpoint_id, _ = register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [400, 400, 400]
    for naam in ("A", "B", "C"):
        create_task(app, carrier, None, naam=naam)
    assert run_pass(app) == {"failed": 3}
    rows = deliveries(app, carrier)

    in_carrier(
        app,
        carrier.id,
        lambda: resending.resend(carrier_id=carrier.id, delivery_id=rows[0]["id"], actor=SYSTEM),
    )
    assert run_pass(app) == {"sent": 1}
    assert receiver.events[-1]["data"]["naam"] == "A"

    count = in_carrier(
        app,
        carrier.id,
        lambda: resending.resend_failed(
            carrier_id=carrier.id,
            endpoint_id=endpoint_id,
            since=utcnow() - timedelta(hours=1),
            until=utcnow() + timedelta(minutes=1),
            actor=SYSTEM,
        ),
    )
    assert count == 2
    assert run_pass(app) == {"sent": 2}
    assert sorted(e["data"]["naam"] for e in receiver.events[-2:]) == ["B", "C"]
    # Resent deliveries carry their first event id again.
    ids = [e["id"] for e in receiver.events]
    assert len(set(ids)) == 3


def test_two_workers_never_send_one_delivery_twice(app, carrier, receiver):
    register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    for n in range(6):
        create_task(app, carrier, None, naam=f"T{n}")
    now = utcnow() + timedelta(seconds=1)
    with app.app_context():
        from portal.tenancy import carrier_scope

        with carrier_scope(db.session, carrier.id):
            first = outbox.claim_due(carrier_id=carrier.id, now=now, limit=3)
            db.session.commit()
            second = outbox.claim_due(carrier_id=carrier.id, now=now, limit=10)
            db.session.commit()
    assert len(first) == 3 and len(second) == 3
    assert not {c.id for c in first} & {c.id for c in second}


@pytest.mark.parametrize(
    "url, code",
    [
        ("file:///etc/passwd", "not_https"),
        ("http://hooks.example.nl/in", "not_https"),
        ("https://user:secret@hooks.transport.nl/in", "credentials"),
        ("https://127.0.0.1/in", "private_host"),
        ("https://10.1.2.3/in", "private_host"),
        ("https://metadata.internal/in", "private_host"),
        ("https://[::1]/in", "private_host"),
        ("https://169.254.169.254/latest", "private_host"),
        ("gopher://hooks.transport.nl", "not_https"),
    ],
)
def test_malicious_or_private_urls_are_refused(app, carrier, url, code):
    from portal.errors import ValidationFailed

    with pytest.raises(ValidationFailed) as refused:
        in_carrier(
            app,
            carrier.id,
            lambda: service.create_endpoint(
                carrier_id=carrier.id,
                data=service.EndpointIn(url=url, gebeurtenissen=["taak.aangemaakt"]),
                actor=SYSTEM,
            ),
        )
    assert refused.value.errors[0]["code"] == code


def test_a_name_that_resolves_to_a_private_address_is_refused_when_sending(monkeypatch):
    """A public-looking name registered earlier may point inward by the time of sending."""
    import socket

    from portal.webhooks.sender import HttpSender

    def resolve(host, port, *args, **kwargs):
        assert host == "hooks.transport.nl"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    answer = HttpSender().send("https://hooks.transport.nl/in", b"{}", {})
    assert answer.outcome == "failed"
    assert failures.read(answer.fout) == ("url_refused", {"reason": "private_host"})


def test_old_sent_and_failed_deliveries_are_pruned_queued_ones_kept(app, carrier, receiver):
    from sqlalchemy import update

    from portal.webhooks import worker
    from portal.webhooks.models import WebhookDelivery, WebhookEvent

    register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [200, 400, 503]
    for naam in ("Verstuurd", "Mislukt", "Wacht"):
        create_task(app, carrier, None, naam=naam)
    now = utcnow() + timedelta(seconds=1)
    assert run_pass(app, now=now) == {"sent": 1, "failed": 1, "queued": 1}

    def age_everything():
        long_ago = now - outbox.KEEP - timedelta(days=1)
        db.session.execute(update(WebhookDelivery).values(created_at=long_ago))
        db.session.execute(update(WebhookEvent).values(created_at=long_ago))

    in_carrier(app, carrier.id, age_everything)
    create_task(app, carrier, None, naam="Nieuw")
    worker._pruned.clear()
    later = now + outbox.BACKOFF[0]
    assert run_pass(app, now=later) == {"sent": 2}
    kept = deliveries(app, carrier)
    assert sorted(d["status"] for d in kept) == ["sent", "sent"]  # the waiting one and the new
    assert len(kept) == 2
