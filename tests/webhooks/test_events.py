"""Every change worth telling reaches a subscribed receiver exactly once, as the API's own
shapes in a signed envelope; a change that is refused or rolled back tells nothing."""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from factories import (
    bearer,
    create_task,
    create_vehicle,
    driver_token,
    in_carrier,
    publish_questionnaire,
)

from portal import events
from portal.audit.service import SYSTEM
from portal.extensions import db
from portal.webhooks.event_docs import EVENTS
from webhooks.support import deliveries, register, run_pass

TASK = {
    "type": "mest_laden",
    "naam": "Mest laden Enter",
    "hoeveelheid": 30,
    "eenheid": "ton",
    "adres": "Veldweg 88",
    "stad": "Enter",
    "gepland_op": "2026-11-23T07:30:00.000Z",
}


def readme_recipe():
    """The receiver's verification as the README shows it, run as written."""
    text = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(import hashlib.*?def verified.*?)```", text, re.S)
    assert code, "the README shows how to verify a delivery"
    scope: dict = {}
    exec(code.group(1), scope)  # our own README's example
    return scope["verified"]


verify_like_the_readme = readme_recipe()


def test_every_event_type_reaches_the_receiver_once_per_change(
    app, client, carrier, driver, api_key, receiver
):
    _endpoint, secret = register(app, carrier, receiver.url())
    publish_questionnaire(app, carrier)
    token = driver_token(client, driver)
    key = bearer(api_key.key)

    created = client.post(f"/api/v1/users/{driver.user_token}/taken", json=TASK, headers=key)
    assert created.status_code == 201, created.get_json()
    task_id = created.get_json()["id"]
    assert client.patch(f"/api/v1/taken/{task_id}", json={"naam": "Mest Enter"}, headers=key)
    for status in ("ontvangen", "gestart"):
        moved = client.patch(
            f"/api/v1/taken/{task_id}/status", json={"status": status}, headers=bearer(token)
        )
        assert moved.status_code == 200, moved.get_json()
    answered = client.post(
        "/api/v1/questionnaire_answers",
        json={"taak_id": task_id, "answers": {"gewicht": 28000}, "indienen": True},
        headers=bearer(token),
    )
    assert answered.status_code == 201, answered.get_json()
    done = client.post(
        f"/api/v1/taken/{task_id}/afronding", json={"kilometers": 42}, headers=bearer(token)
    )
    assert done.status_code == 200, done.get_json()
    other = create_task(app, carrier, driver, naam="Voer leveren")
    assert client.delete(f"/api/v1/taken/{other.id}", headers=key).status_code == 200

    from portal.messages import service as messages

    (message,) = in_carrier(
        app,
        carrier.id,
        lambda: messages.send_message(
            carrier_id=carrier.id,
            driver_ids=[driver.id],
            titel="Let op",
            tekst="Omleiding",
            actor=SYSTEM,
        ),
        lambda rows: [m.id for m in rows],
    )
    for _ in range(2):  # read twice: one change
        assert (
            client.post(
                f"/api/v1/notificaties/{message}/gelezen", headers=bearer(token)
            ).status_code
            == 200
        )

    from portal.fleet import service as fleet

    truck = create_vehicle(app, carrier)
    payload = in_carrier(
        app,
        carrier.id,
        lambda: fleet.sticker_payload(
            fleet.get_vehicle(carrier_id=carrier.id, vehicle_id=truck.id)
        ),
    )
    started = client.post("/api/v1/vehicle_sessions", headers=bearer(token))
    assert started.status_code == 201, started.get_json()
    valid = client.post(
        f"/api/v1/vehicle_sessions/{started.get_json()['id']}/validate",
        json={"qr": payload},
        headers=bearer(token),
    )
    assert valid.status_code == 200, valid.get_json()

    from portal.hours import weeks
    from portal.hours.totals import IsoWeek

    last_week = IsoWeek.of(date.today() - timedelta(days=7))
    in_carrier(
        app,
        carrier.id,
        lambda: weeks.approve_week(
            carrier_id=carrier.id, driver_id=driver.id, week=last_week, actor=SYSTEM
        ),
    )

    assert run_pass(app).get("sent") == 12
    types = [event["type"] for event in receiver.events]
    assert types == [
        "taak.aangemaakt",
        "taak.gewijzigd",
        "taak.status_gewijzigd",
        "taak.status_gewijzigd",
        "antwoorden.ingediend",
        "taak.status_gewijzigd",
        "taak.afgerond",
        "taak.aangemaakt",
        "taak.verwijderd",
        "bericht.gelezen",
        "voertuigsessie.actief",
        "werkweek.goedgekeurd",
    ]
    assert set(types) == set(events.EVENT_TYPES)
    by_type = {}
    for request in receiver.received:
        event = request.event
        by_type.setdefault(event["type"], []).append(event)
        assert set(event) == {"id", "type", "created_at", "transporteur_id", "data"}
        EVENTS[event["type"]].model_validate(event)  # as the OpenAPI document describes it
        assert event["transporteur_id"] == str(carrier.id)
        assert request.headers["rijplan-event-id"] == event["id"]
        assert request.headers["rijplan-event-type"] == event["type"]
        assert verify_like_the_readme(secret, request.headers["rijplan-signature"], request.body)
        assert not verify_like_the_readme(
            secret, request.headers["rijplan-signature"], request.body + b" "
        )
    assert len({e["id"] for e in receiver.events}) == 12

    # The same shapes as the API answers.
    api_task = client.get(f"/api/v1/taken/{task_id}", headers=key).get_json()
    completed = by_type["taak.afgerond"][0]["data"]
    assert completed["taak"] == api_task
    assert completed["facturatieregel"]["kilometers"] == 42
    assert completed["facturatieregel"]["hoeveelheid"] == 30
    # The proof of delivery opens without an account.
    proof = urlsplit(completed["bewijs"]["url"])
    assert proof.path.startswith("/bewijs/")
    shipper = app.test_client()
    opened = shipper.get(proof.path)
    assert opened.status_code == 200 and "Mest Enter" in opened.get_data(as_text=True)
    pdf = shipper.get(urlsplit(completed["bewijs"]["pdf"]).path)
    assert pdf.headers["Content-Type"] == "application/pdf"
    assert [
        e["data"]["van"] + ">" + e["data"]["naar"] for e in by_type["taak.status_gewijzigd"]
    ] == [
        "gepland>ontvangen",
        "ontvangen>gestart",
        "gestart>afgerond",
    ]
    assert by_type["taak.gewijzigd"][0]["data"]["naam"] == "Mest Enter"
    assert by_type["taak.verwijderd"][0]["data"]["taak"]["naam"] == "Voer leveren"
    assert by_type["antwoorden.ingediend"][0]["data"]["answers"] == {"gewicht": 28000}
    assert by_type["bericht.gelezen"][0]["data"]["status"] == "read"
    assert by_type["voertuigsessie.actief"][0]["data"]["status"] == "active"
    assert by_type["werkweek.goedgekeurd"][0]["data"]["week"] == last_week.label
    # Nothing more to send.
    assert run_pass(app) == {}


def test_only_the_subscribed_types_are_written_and_sent(app, client, carrier, api_key, receiver):
    register(app, carrier, receiver.url(), ["taak.verwijderd"])
    task = create_task(app, carrier, None)
    assert deliveries(app, carrier) == []
    assert client.delete(f"/api/v1/taken/{task.id}", headers=bearer(api_key.key)).status_code == 200
    assert [d["type"] for d in deliveries(app, carrier)] == ["taak.verwijderd"]
    assert run_pass(app) == {"sent": 1}


def test_a_carrier_without_endpoints_writes_no_events(app, carrier, driver):
    create_task(app, carrier, driver)
    from sqlalchemy import func, select

    from portal.webhooks.models import WebhookEvent

    assert (
        in_carrier(
            app,
            carrier.id,
            lambda: db.session.scalar(select(func.count()).select_from(WebhookEvent)),
        )
        == 0
    )


def test_a_refused_change_tells_nothing(app, client, carrier, driver, api_key, receiver):
    register(app, carrier, receiver.url())
    task = create_task(app, carrier, driver, status="gestart", require_photos=True, min_fotos=1)
    token = driver_token(client, driver)
    refused = client.patch(
        f"/api/v1/taken/{task.id}/status", json={"status": "afgerond"}, headers=bearer(token)
    )
    assert refused.status_code == 422
    assert [d["type"] for d in deliveries(app, carrier)] == ["taak.aangemaakt"]


def test_a_rolled_back_transaction_and_savepoint_drop_their_events(app, carrier, receiver):
    register(app, carrier, receiver.url())
    from portal.tasks import service as tasks

    task = create_task(app, carrier, None)
    with app.app_context():
        from portal.tenancy import carrier_scope

        with carrier_scope(db.session, carrier.id):
            tasks.update_task(
                carrier_id=carrier.id, task_id=task.id, data={"naam": "Weg"}, actor=SYSTEM
            )
            db.session.rollback()
            with db.session.begin_nested():
                pass
            savepoint = db.session.begin_nested()
            tasks.update_task(
                carrier_id=carrier.id, task_id=task.id, data={"naam": "Ook weg"}, actor=SYSTEM
            )
            savepoint.rollback()
            tasks.update_task(
                carrier_id=carrier.id, task_id=task.id, data={"naam": "Blijft"}, actor=SYSTEM
            )
            db.session.commit()
    assert [d["type"] for d in deliveries(app, carrier)] == ["taak.aangemaakt", "taak.gewijzigd"]
    run_pass(app)
    assert receiver.events[1]["data"]["naam"] == "Blijft"


def test_a_task_changed_twice_in_one_request_is_told_once_in_its_final_state(
    app, carrier, receiver
):
    register(app, carrier, receiver.url())
    from portal.tasks import service as tasks

    task = create_task(app, carrier, None)

    def twice():
        tasks.update_task(carrier_id=carrier.id, task_id=task.id, data={"naam": "A"}, actor=SYSTEM)
        tasks.update_task(carrier_id=carrier.id, task_id=task.id, data={"naam": "B"}, actor=SYSTEM)

    in_carrier(app, carrier.id, twice)
    run_pass(app)
    assert [(e["type"], e["data"]["naam"]) for e in receiver.events] == [
        ("taak.aangemaakt", "Mest laden Enter"),
        ("taak.gewijzigd", "B"),
    ]


def test_a_receiver_that_never_answers_does_not_slow_the_planners_request(
    app, client, carrier, driver, api_key, receiver
):
    """Delivery is the worker's: the request that makes the change contacts no receiver."""
    register(app, carrier, receiver.url())
    receiver.script = [("hang",)] * 5
    created = client.post(
        f"/api/v1/users/{driver.user_token}/taken", json=TASK, headers=bearer(api_key.key)
    )
    assert created.status_code == 201
    assert receiver.received == []
    assert [d["status"] for d in deliveries(app, carrier)] == ["queued"]
