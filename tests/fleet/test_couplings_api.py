"""Couplings over the API: integrations list, make, read and end them (scopes, refusals
with the rule's code); a driver's tasks list both plates, the poll's fast path writing the
same bytes as the ORM path and a new ETag when a coupling changes; a QR scan of either part
records the coupling."""

from __future__ import annotations

from datetime import UTC, date, datetime

import orjson
import pytest
from factories import Ref, bearer, create_api_key, create_task, driver_token, in_carrier

from portal.extensions import db
from portal.tasks import service as tasks
from portal.tasks.schemas import serialize_task
from portal.tenancy import carrier_scope

API = "/api/v1"
NOW = datetime(2026, 12, 7, 9, 30, tzinfo=UTC)  # Monday 7 December, 10:30 in Amsterdam
DAY = date(2026, 12, 7)


@pytest.fixture(autouse=True)
def fixed_day(monkeypatch):
    """The day a scan couples for, whatever the wall clock."""
    from portal.fleet import coupling_reads

    monkeypatch.setattr(coupling_reads, "utcnow", lambda: NOW)


def vehicle(app, carrier, kenteken, soort, vlootnummer=None):
    from portal.fleet.models import Vehicle

    def make():
        row = Vehicle(
            transporteur_id=carrier.id, kenteken=kenteken, soort=soort, vlootnummer=vlootnummer
        )
        db.session.add(row)
        db.session.flush()
        return row

    return in_carrier(app, carrier.id, make, lambda v: Ref(v.id, carrier.id, naam=kenteken))


@pytest.fixture
def pair(app, carrier):
    """A farm tractor and a manure tanker on its repeat plate (fleet number 7)."""
    return (
        vehicle(app, carrier, "VZH-56-E", "landbouwtrekker"),
        vehicle(app, carrier, None, "landbouwaanhanger", vlootnummer="7"),
    )


@pytest.fixture
def key(app, carrier):
    return create_api_key(app, carrier)


def test_an_integration_couples_reads_and_uncouples(client, carrier, pair, key):
    url = f"{API}/transporteurs/{carrier.id}/koppelingen"
    body = {"trekkend_id": str(pair[0].id), "getrokken_id": str(pair[1].id), "datum": "2026-12-07"}
    made = client.post(url, json=body, headers=bearer(key.key))
    assert made.status_code == 201, made.get_json()
    coupling = made.get_json()
    assert coupling["bron"] == "api" and coupling["ontkoppeld_op"] is None

    listed = client.get(f"{url}?datum=2026-12-07", headers=bearer(key.key))
    assert [c["id"] for c in listed.get_json()] == [coupling["id"]]
    assert listed.headers["X-Total-Count"] == "1"
    one = client.get(f"{url}/{coupling['id']}", headers=bearer(key.key))
    assert one.get_json()["getrokken_id"] == str(pair[1].id)

    ended = client.delete(f"{url}/{coupling['id']}", headers=bearer(key.key))
    assert ended.status_code == 200 and ended.get_json()["ontkoppeld_op"]
    again = client.delete(f"{url}/{coupling['id']}", headers=bearer(key.key))
    assert again.status_code == 409 and again.get_json()["code"] == "already_uncoupled"
    assert client.get(f"{url}?datum=2026-12-07", headers=bearer(key.key)).get_json() == []
    history = client.get(f"{url}?alle=true", headers=bearer(key.key)).get_json()
    assert [c["id"] for c in history] == [coupling["id"]]


def test_two_motorised_vehicles_are_refused_naming_the_rule(app, client, carrier, pair, key):
    truck = vehicle(app, carrier, "BX-14-LP", "vrachtwagen")
    body = {"trekkend_id": str(truck.id), "getrokken_id": str(pair[0].id), "datum": "2026-12-07"}
    refused = client.post(
        f"{API}/transporteurs/{carrier.id}/koppelingen", json=body, headers=bearer(key.key)
    )
    assert refused.status_code == 409
    assert refused.mimetype == "application/problem+json"
    assert refused.get_json()["code"] == "two_motorised"
    assert "motorised" in refused.get_json()["detail"]


def test_a_key_without_the_vehicles_scope_may_not_couple(app, client, carrier, pair):
    from portal.accounts.service import create_api_key as create

    _, secret = in_carrier(
        app,
        carrier.id,
        lambda: create(carrier_id=carrier.id, naam="Alleen taken", scopes="tasks:read"),
    )
    url = f"{API}/transporteurs/{carrier.id}/koppelingen"
    assert client.get(url, headers=bearer(secret)).status_code == 403
    body = {"trekkend_id": str(pair[0].id), "getrokken_id": str(pair[1].id), "datum": "2026-12-07"}
    assert client.post(url, json=body, headers=bearer(secret)).status_code == 403


def _orm_answer(app, carrier, driver) -> bytes:
    with app.app_context(), carrier_scope(db.session, carrier.id):
        filters = tasks.TaskFilters(chauffeur_id=driver.id, default_window=True)
        page = tasks.list_tasks(carrier_id=carrier.id, filters=filters)
        return orjson.dumps([serialize_task(t, page.definitions) for t in page.tasks])


def test_the_drivers_tasks_list_both_plates_the_same_on_both_paths(
    app, client, carrier, driver, pair, key
):
    tractor, tanker = pair
    create_task(app, carrier, driver, naam="Mest Enter", vehicle_id=tractor.id, gepland_op=NOW)
    create_task(app, carrier, driver, naam="Zonder voertuig", gepland_op=NOW)
    token = driver_token(client, driver)
    url = f"{API}/users/{driver.user_token}/taken"
    solo = client.get(url, headers=bearer(token))
    assert [(t["kenteken"], t["getrokken_id"]) for t in solo.get_json()] == [
        ("VZH-56-E", None),
        (None, None),
    ]

    body = {"trekkend_id": str(tractor.id), "getrokken_id": str(tanker.id), "datum": "2026-12-07"}
    client.post(f"{API}/transporteurs/{carrier.id}/koppelingen", json=body, headers=bearer(key.key))
    polled = client.get(url, headers={**bearer(token), "If-None-Match": solo.headers["ETag"]})

    assert polled.status_code == 200  # a coupling changes the list's ETag
    first = polled.get_json()[0]
    assert (first["kenteken"], first["getrokken_id"]) == ("VZH-56-E", str(tanker.id))
    assert (first["getrokken_kenteken"], first["getrokken_vlootnummer"]) == (None, "7")
    assert polled.get_data() == _orm_answer(app, carrier, driver)


def test_a_tasks_own_trailer_wins_over_the_days_on_both_paths(
    app, client, carrier, driver, pair, key
):
    from datetime import timedelta

    tractor, tanker = pair
    cart = vehicle(app, carrier, "WX-13-BC", "landbouwaanhanger")
    early = create_task(app, carrier, driver, naam="Mest", vehicle_id=tractor.id, gepland_op=NOW)
    late = create_task(
        app,
        carrier,
        driver,
        naam="Stro",
        vehicle_id=tractor.id,
        gepland_op=NOW + timedelta(hours=3),
    )
    url = f"{API}/transporteurs/{carrier.id}/koppelingen"
    for body in (
        {"trekkend_id": str(tractor.id), "getrokken_id": str(tanker.id), "datum": "2026-12-07"},
        {"trekkend_id": str(tractor.id), "getrokken_id": str(cart.id), "taak_id": str(late.id)},
    ):
        made = client.post(url, json=body, headers=bearer(key.key))
        assert made.status_code == 201, made.get_json()

    token = driver_token(client, driver)
    polled = client.get(f"{API}/users/{driver.user_token}/taken", headers=bearer(token))

    towed = {t["id"]: t["getrokken_id"] for t in polled.get_json()}
    assert towed == {str(early.id): str(tanker.id), str(late.id): str(cart.id)}
    assert polled.get_data() == _orm_answer(app, carrier, driver)


def _active_session(client, token, payload) -> str:
    started = client.post(f"{API}/vehicle_sessions", json={}, headers=bearer(token))
    session_id = started.get_json()["id"]
    done = client.post(
        f"{API}/vehicle_sessions/{session_id}/validate", json={"qr": payload}, headers=bearer(token)
    )
    assert done.status_code == 200, done.get_json()
    return session_id


def test_a_driver_couples_the_trailer_by_scanning_its_sticker(
    client, carrier, driver, pair, payload_of
):
    tractor, tanker = pair
    token = driver_token(client, driver)
    session_id = _active_session(client, token, payload_of(tractor))

    scanned = client.post(
        f"{API}/vehicle_sessions/{session_id}/koppelen",
        json={"qr": payload_of(tanker)},
        headers=bearer(token),
    )

    assert scanned.status_code == 201, scanned.get_json()
    coupling = scanned.get_json()
    assert (coupling["trekkend_id"], coupling["getrokken_id"]) == (str(tractor.id), str(tanker.id))
    assert (coupling["datum"], coupling["bron"]) == ("2026-12-07", "qr_scan")
    # The tractor's own sticker couples nothing.
    wrong = client.post(
        f"{API}/vehicle_sessions/{session_id}/koppelen",
        json={"qr": payload_of(tractor)},
        headers=bearer(token),
    )
    assert wrong.status_code == 422 and wrong.get_json()["reden"] == "not_towed"


def test_scanning_a_coupled_trailer_starts_the_session_on_its_tractor(
    client, carrier, driver, pair, key, payload_of
):
    tractor, tanker = pair
    token = driver_token(client, driver)
    started = client.post(f"{API}/vehicle_sessions", json={}, headers=bearer(token)).get_json()
    validate = f"{API}/vehicle_sessions/{started['id']}/validate"

    alone = client.post(validate, json={"qr": payload_of(tanker)}, headers=bearer(token))
    assert alone.status_code == 422 and alone.get_json()["reden"] == "towed_not_coupled"

    body = {"trekkend_id": str(tractor.id), "getrokken_id": str(tanker.id), "datum": "2026-12-07"}
    client.post(f"{API}/transporteurs/{carrier.id}/koppelingen", json=body, headers=bearer(key.key))
    active = client.post(validate, json={"qr": payload_of(tanker)}, headers=bearer(token))
    assert active.status_code == 200, active.get_json()
    assert active.get_json()["vehicle_id"] == str(tractor.id)
    assert active.get_json()["status"] == "active"
