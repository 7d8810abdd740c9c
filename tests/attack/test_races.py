"""Races: many requests at once against one row, over loopback on PostgreSQL as the app
role. Exactly one wins where one may; the others are refused clearly; nothing is written
twice and no update is lost."""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

from factories import bearer, create_api_key, create_carrier, create_driver, create_task, in_carrier

from attack.support import at_once
from portal.extensions import db


def _key_and_task(app, carrier, **state):
    driver = create_driver(app, carrier, email=f"{uuid.uuid4().hex[:8]}@example.nl")
    task = create_task(app, carrier, driver, naam="Mest laden Enter", **state)
    return create_api_key(app, carrier), driver, task


def test_twenty_edits_with_one_version_one_wins_and_is_what_is_stored(live):
    carrier = create_carrier(live.app)
    key, _driver, task = _key_and_task(live.app, carrier)
    path = f"/api/v1/taken/{task.id}"
    etag = live.call("GET", path, headers=bearer(key.key)).headers["ETag"]

    answers = at_once(
        20,
        lambda i: live.call(
            "PATCH",
            path,
            {"naam": f"Versie {i}", "opmerkingen": f"van schrijver {i}"},
            {**bearer(key.key), "If-Match": etag},
        ),
    )

    statuses = Counter(a.status for a in answers)
    print(f"20 PATCHes with If-Match {etag}: {dict(statuses)}")
    assert statuses == {200: 1, 412: 19}
    (winner,) = [a.json() for a in answers if a.status == 200]
    stored = live.call("GET", path, headers=bearer(key.key)).json()
    assert (stored["naam"], stored["opmerkingen"]) == (winner["naam"], winner["opmerkingen"])
    for refused in (a for a in answers if a.status == 412):
        assert refused.headers["Content-Type"] == "application/problem+json"


def test_ten_completions_of_one_task_make_one_billing_line(live):
    carrier = create_carrier(live.app)
    from sqlalchemy import func, select

    from portal.billing.models import BillingLine

    started = datetime.now(UTC) - timedelta(hours=1)
    key, _driver, task = _key_and_task(live.app, carrier, status="gestart", gestart_op=started)
    answers = at_once(
        10,
        lambda i: live.call(
            "POST",
            f"/api/v1/taken/{task.id}/afronding",
            {"hoeveelheid": 28.5, "eenheid": "ton"},
            bearer(key.key),
        ),
    )

    statuses = Counter(a.status for a in answers)
    print(f"10 completions of one task: {dict(statuses)}")
    print("  refused:", {a.json()["detail"] for a in answers if a.status >= 400})
    assert all(a.status < 500 for a in answers)
    assert statuses[200] + statuses[201] >= 1
    lines = in_carrier(
        live.app,
        carrier.id,
        lambda: db.session.scalar(
            select(func.count()).select_from(BillingLine).where(BillingLine.taak_id == task.id)
        ),
    )
    assert lines == 1


def test_one_idempotency_key_sent_twice_at_once_runs_once(live):
    carrier = create_carrier(live.app)
    key, driver, _task = _key_and_task(live.app, carrier)
    path = f"/api/v1/users/{driver.user_token}/taken"
    body = {"type": "mest_laden", "naam": "Eén keer"}
    headers = {**bearer(key.key), "Idempotency-Key": "tms-order-9000"}

    answers = at_once(2, lambda i: live.call("POST", path, body, headers))
    again = live.call("POST", path, body, headers)

    statuses = sorted(a.status for a in answers)
    print(f"the same Idempotency-Key twice at once: {statuses}, then {again.status}")
    assert statuses in ([201, 201], [201, 409])
    created = {a.json()["id"] for a in [*answers, again] if a.status == 201}
    assert len(created) == 1  # a replay names the same task
    listed = live.call("GET", path, headers=bearer(key.key)).json()
    assert [t["naam"] for t in listed].count("Eén keer") == 1


def test_ten_scans_of_one_vehicle_make_one_active_session(live):
    carrier = create_carrier(live.app)
    from factories import create_vehicle, driver_token

    from portal.fleet import service as fleet

    vehicle = create_vehicle(live.app, carrier, "BX-12-LP")
    payload = in_carrier(
        live.app,
        carrier.id,
        lambda: fleet.sticker_payload(
            fleet.get_vehicle(carrier_id=carrier.id, vehicle_id=vehicle.id)
        ),
    )
    client = live.app.test_client()
    drivers = [
        create_driver(live.app, carrier, f"Chauffeur {i}", email=f"c{i}@example.nl")
        for i in range(10)
    ]
    tokens = [driver_token(client, d) for d in drivers]
    sessions = [
        live.call("POST", "/api/v1/vehicle_sessions", {}, bearer(t)).json()["id"] for t in tokens
    ]

    answers = at_once(
        10,
        lambda i: live.call(
            "POST",
            f"/api/v1/vehicle_sessions/{sessions[i]}/validate",
            {"qr": payload},
            bearer(tokens[i]),
        ),
    )

    statuses = Counter(a.status for a in answers)
    print(f"10 drivers scanning one vehicle at once: {dict(statuses)}")
    assert statuses == {200: 1, 409: 9}
    busy = [a.json() for a in answers if a.status == 409]
    assert all(b["reden"] == "vehicle_in_use" for b in busy)
