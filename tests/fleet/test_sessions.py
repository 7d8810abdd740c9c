"""Vehicle sessions: start (pending), scan the cab's QR sticker (active), end; the sticker's
signature, rotation and carrier; one active session per vehicle and per driver, held by the
database also when two phones scan at the same moment."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from factories import bearer, create_driver, driver_token, in_carrier
from sqlalchemy.exc import IntegrityError

from portal.extensions import db

API = "/api/v1"


@pytest.fixture
def truck(carrier, make_vehicle):
    return make_vehicle(carrier, "BX-12-LP", soort="opleggertrekker")


@pytest.fixture
def token(client, driver) -> str:
    return driver_token(client, driver)


def problem(response) -> dict:
    assert response.mimetype == "application/problem+json", response.get_data(as_text=True)
    return response.get_json()


def test_a_driver_starts_a_pending_session_and_the_scan_makes_it_active(
    client, driver, truck, token, payload_of, calls
):
    started = calls.start(token)
    assert started.status_code == 201, started.get_json()
    session = started.get_json()
    assert session["status"] == "pending" and session["vehicle_id"] is None
    assert session["chauffeur_id"] == str(driver.id) and session["verlopen"] is False
    assert started.headers["Location"] == f"/api/v1/vehicle_sessions/{session['id']}"
    created = datetime.fromisoformat(session["created_at"])
    assert datetime.fromisoformat(session["verloopt_op"]) - created == timedelta(minutes=15)

    scanned = calls.validate(token, session["id"], payload_of(truck))
    assert scanned.status_code == 200, scanned.get_json()
    active = scanned.get_json()
    assert active["status"] == "active" and active["vehicle_id"] == str(truck.id)
    assert active["kenteken"] == "BX-12-LP" and active["gestart_op"].endswith("Z")

    read = client.get(f"{API}/vehicle_sessions/{session['id']}", headers=bearer(token))
    assert read.get_json()["status"] == "active"
    mine = client.get(f"{API}/vehicle_sessions?status=active", headers=bearer(token))
    assert [s["id"] for s in mine.get_json()] == [session["id"]]


def test_a_session_started_for_a_vehicle_takes_only_that_vehicles_sticker(
    carrier, truck, token, make_vehicle, payload_of, calls
):
    tank = make_vehicle(carrier, "OB-12-CD")
    started = calls.start(token, truck.id)
    assert started.get_json()["vehicle_id"] == str(truck.id)
    other = calls.validate(token, started.get_json()["id"], payload_of(tank))
    assert other.status_code == 422
    body = problem(other)
    assert body["type"].endswith("/qr-refused") and body["reden"] == "other_vehicle"
    assert "OB-12-CD" in body["detail"] and "BX-12-LP" in body["detail"]
    assert body["errors"][0]["field"] == "qr"
    right = calls.validate(token, started.get_json()["id"], payload_of(truck))
    assert right.status_code == 200


def test_starting_for_an_unknown_or_deactivated_vehicle_is_422(
    app, carrier, other_carrier, token, make_vehicle, calls
):
    from portal.audit.service import SYSTEM
    from portal.fleet import service

    foreign = make_vehicle(other_carrier, "BX-12-LP")
    parked = make_vehicle(carrier, "VZH-56-E")
    in_carrier(
        app,
        carrier.id,
        lambda: service.set_active(
            carrier_id=carrier.id, vehicle_id=parked.id, actief=False, actor=SYSTEM
        ),
    )
    for vehicle_id in (foreign.id, uuid.uuid4(), parked.id):
        response = calls.start(token, vehicle_id)
        assert response.status_code == 422
        assert problem(response)["errors"][0]["field"] == "vehicle_id"


@pytest.mark.parametrize(
    "forge",
    [
        lambda p: p[:-3] + ("AAA" if not p.endswith("AAA") else "BBB"),  # signature changed
        lambda p: p.replace(".1.", ".2."),  # the version changed, the signature kept
        lambda p: "RPV1.x.1.y",
        lambda p: "https://example.com/voertuig/BX-12-LP",
        lambda p: p + "A",
    ],
    ids=["signature", "version", "garbage", "url", "longer"],
)
def test_a_forged_or_damaged_sticker_is_refused(client, truck, token, payload_of, calls,
                                                session_row, carrier, forge):  # fmt: skip
    session_id = calls.start(token).get_json()["id"]
    response = calls.validate(token, session_id, forge(payload_of(truck)))
    assert response.status_code == 422
    body = problem(response)
    assert body["type"].endswith("/qr-refused") and body["reden"] == "invalid"
    assert "forged or damaged" in body["detail"]
    assert session_row(carrier, session_id)["status"] == "pending"


def test_a_sticker_signed_with_another_secret_is_forged(app, truck, token, payload_of, calls):
    from portal.fleet import qr

    real = payload_of(truck)
    sticker = in_carrier(app, truck.carrier_id, lambda: qr.read(real))
    original = app.config["SECRET_KEY"]
    app.config["SECRET_KEY"] = "another-secret"
    try:
        with app.app_context():
            forged = qr.payload(
                carrier_id=sticker.carrier_id, vehicle_id=sticker.vehicle_id, versie=1
            )
    finally:
        app.config["SECRET_KEY"] = original
    assert forged != real
    session_id = calls.start(token).get_json()["id"]
    response = calls.validate(token, session_id, forged)
    assert response.status_code == 422 and problem(response)["reden"] == "invalid"


def test_a_rotated_sticker_stops_working_and_the_new_one_works(
    app, carrier, truck, token, payload_of, calls
):
    from portal.audit.service import SYSTEM
    from portal.fleet import service

    old = payload_of(truck)
    in_carrier(
        app,
        carrier.id,
        lambda: service.rotate_qr(carrier_id=carrier.id, vehicle_id=truck.id, actor=SYSTEM),
    )
    new = payload_of(truck)
    assert new != old
    session_id = calls.start(token).get_json()["id"]
    refused = calls.validate(token, session_id, old)
    assert refused.status_code == 422
    body = problem(refused)
    assert body["reden"] == "rotated" and "BX-12-LP" in body["detail"]
    accepted = calls.validate(token, session_id, new)
    assert accepted.status_code == 200 and accepted.get_json()["status"] == "active"


def test_another_carriers_sticker_is_refused_as_any_unknown_vehicle(
    app, carrier, other_carrier, token, make_vehicle, payload_of, calls
):
    """A real sticker of another carrier gets the answer of a sticker naming no vehicle of
    this carrier: the answer tells nothing about other carriers (no existence oracle)."""
    import uuid

    from portal.fleet import qr

    theirs = make_vehicle(other_carrier, "BX-12-LP")
    with app.app_context():
        nowhere = qr.payload(carrier_id=carrier.id, vehicle_id=uuid.uuid4(), versie=1)
    answers = []
    for payload in (payload_of(theirs), nowhere):
        session_id = calls.start(token).get_json()["id"]
        response = calls.validate(token, session_id, payload)
        assert response.status_code == 422
        body = problem(response)
        answers.append((body["reden"], body["detail"]))
    assert answers[0] == answers[1]
    assert answers[0][0] == "unknown_vehicle" and "another carrier" not in answers[0][1]


def test_a_vehicle_someone_drives_is_refused_with_who(app, client, carrier, driver, truck, token,
                                                      payload_of, calls, session_row):  # fmt: skip
    calls.active(token, payload_of(truck))
    piet = create_driver(app, carrier, "Piet Bakker")
    piet_token = driver_token(client, piet)
    session_id = calls.start(piet_token).get_json()["id"]
    refused = calls.validate(piet_token, session_id, payload_of(truck))
    assert refused.status_code == 409
    body = problem(refused)
    assert body["reden"] == "vehicle_in_use"
    assert "BX-12-LP" in body["detail"] and "Jan Chauffeur" in body["detail"]
    assert session_row(carrier, session_id)["status"] == "pending"


def test_a_driver_who_drives_must_end_first(client, carrier, truck, token, make_vehicle,
                                            payload_of, calls):  # fmt: skip
    first = calls.active(token, payload_of(truck))
    again = calls.start(token)
    assert again.status_code == 409
    body = problem(again)
    assert body["reden"] == "driver_busy" and body["sessie_id"] == first
    assert "BX-12-LP" in body["detail"]
    assert calls.end(token, first).status_code == 200
    tank = make_vehicle(carrier, "OB-12-CD")
    assert calls.active(token, payload_of(tank))


def test_a_new_start_replaces_a_waiting_one(carrier, token, calls, session_row):
    first = calls.start(token).get_json()["id"]
    second = calls.start(token).get_json()["id"]
    assert first != second
    row = session_row(carrier, first)
    assert row["status"] == "ended" and row["einde_reden"] == "vervangen"
    assert session_row(carrier, second)["status"] == "pending"


def test_ending_frees_the_vehicle_and_the_driver(app, client, carrier, truck, token, payload_of,
                                                 calls, session_row):  # fmt: skip
    session_id = calls.active(token, payload_of(truck))
    ended = calls.end(token, session_id)
    assert ended.status_code == 200
    data = ended.get_json()
    assert data["status"] == "ended" and data["einde_reden"] == "chauffeur"
    assert data["beeindigd_op"].endswith("Z")
    again = calls.end(token, session_id)
    assert again.status_code == 409 and problem(again)["reden"] == "ended"
    piet_token = driver_token(client, create_driver(app, carrier, "Piet Bakker"))
    assert calls.active(piet_token, payload_of(truck))  # the vehicle is free
    assert calls.start(token).status_code == 201  # and so is the driver
    assert session_row(carrier, session_id)["beeindigd_door"] == "Jan Chauffeur"


def test_a_pending_session_can_be_called_off(token, calls):
    session_id = calls.start(token).get_json()["id"]
    response = calls.end(token, session_id)
    assert response.status_code == 200 and response.get_json()["gestart_op"] is None
    scan = calls.validate(token, session_id, "RPV1.whatever")
    assert scan.status_code == 409 and problem(scan)["reden"] == "not_pending"


def test_a_session_that_waited_too_long_is_refused(app, carrier, truck, token, payload_of, calls):
    from portal.fleet import sessions

    session_id = calls.start(token).get_json()["id"]

    def expire():
        session = sessions.get_session(carrier_id=carrier.id, session_id=uuid.UUID(session_id))
        session.verloopt_op = datetime.now(UTC) - timedelta(seconds=1)

    in_carrier(app, carrier.id, expire)
    response = calls.validate(token, session_id, payload_of(truck))
    assert response.status_code == 409 and problem(response)["reden"] == "expired"
    listed = calls.client.get(f"{API}/vehicle_sessions/{session_id}", headers=bearer(token))
    assert listed.get_json()["verlopen"] is True


def test_a_deactivated_vehicle_can_not_be_driven(app, carrier, truck, token, payload_of, calls):
    from portal.audit.service import SYSTEM
    from portal.fleet import service

    payload = payload_of(truck)
    session_id = calls.start(token).get_json()["id"]
    in_carrier(
        app,
        carrier.id,
        lambda: service.set_active(
            carrier_id=carrier.id, vehicle_id=truck.id, actief=False, actor=SYSTEM
        ),
    )
    response = calls.validate(token, session_id, payload)
    assert response.status_code == 409 and problem(response)["reden"] == "vehicle_inactive"


def test_only_the_driver_scans_and_only_its_own_session(app, client, carrier, truck, token,
                                                        api_key, payload_of, calls):  # fmt: skip
    session_id = calls.start(token).get_json()["id"]
    key_scan = calls.validate(api_key.key, session_id, payload_of(truck))
    assert key_scan.status_code == 403
    key_start = calls.start(api_key.key)
    assert key_start.status_code == 403
    piet_token = driver_token(client, create_driver(app, carrier, "Piet Bakker"))
    assert calls.validate(piet_token, session_id, payload_of(truck)).status_code == 403
    assert calls.end(piet_token, session_id).status_code == 403
    assert client.get(
        f"{API}/vehicle_sessions/{session_id}", headers=bearer(piet_token)
    ).status_code == 403  # fmt: skip
    # An integration with vehicles:write may end any session of its carrier.
    ended = calls.end(api_key.key, session_id)
    assert ended.status_code == 200 and ended.get_json()["einde_reden"] == "kantoor"


def test_another_carriers_session_is_404_and_changes_nothing(
    app, client, carrier, other_carrier, token, api_key, make_vehicle, payload_of, calls,
    session_row,
):  # fmt: skip
    theirs = make_vehicle(other_carrier, "BX-12-LP")
    sanne = create_driver(app, other_carrier, "Sanne Kuipers")
    their_session = calls.active(driver_token(client, sanne), payload_of(theirs))
    mine = make_vehicle(carrier, "OB-12-CD")
    for caller in (token, api_key.key):
        assert calls.validate(caller, their_session, payload_of(mine)).status_code == 404
        assert calls.end(caller, their_session).status_code == 404
        read = client.get(f"{API}/vehicle_sessions/{their_session}", headers=bearer(caller))
        assert read.status_code == 404
    assert session_row(other_carrier, their_session)["status"] == "active"
    listed = client.get(f"{API}/vehicle_sessions", headers=bearer(api_key.key))
    assert listed.get_json() == [] and listed.headers["X-Total-Count"] == "0"


def test_an_idempotency_key_answers_a_retry_with_the_first_response(
    app, carrier, truck, token, payload_of, calls
):
    from portal.fleet import sessions

    first = calls.start(token, **{"Idempotency-Key": "start-1"})
    retry = calls.start(token, **{"Idempotency-Key": "start-1"})
    assert first.status_code == retry.status_code == 201
    assert retry.get_json()["id"] == first.get_json()["id"]
    assert retry.headers["Idempotent-Replayed"] == "true"
    page = in_carrier(
        app,
        carrier.id,
        lambda: sessions.list_sessions(carrier_id=carrier.id, filters=sessions.SessionFilters()),
        lambda p: p.total,
    )
    assert page == 1
    session_id = first.get_json()["id"]
    scan = calls.validate(token, session_id, payload_of(truck), **{"Idempotency-Key": "scan-1"})
    again = calls.validate(token, session_id, payload_of(truck), **{"Idempotency-Key": "scan-1"})
    assert scan.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    other_body = calls.validate(token, session_id, "RPV1.ander", **{"Idempotency-Key": "scan-1"})
    assert other_body.status_code == 422


def test_the_session_list_filters_and_checks_its_query(app, client, carrier, driver, truck, token,
                                                       api_key, payload_of, calls):  # fmt: skip
    calls.active(token, payload_of(truck))
    key = bearer(api_key.key)
    active = client.get(f"{API}/vehicle_sessions?status=active", headers=key).get_json()
    assert [s["kenteken"] for s in active] == ["BX-12-LP"]
    by_driver = client.get(
        f"{API}/vehicle_sessions", query_string={"chauffeur": driver.user_token}, headers=key
    )
    assert by_driver.headers["X-Total-Count"] == "1"
    by_vehicle = client.get(
        f"{API}/vehicle_sessions", query_string={"vehicle_id": str(truck.id)}, headers=key
    )
    assert by_vehicle.headers["X-Total-Count"] == "1"
    for bad in ({"status": "kapot"}, {"chauffeur": "onbekend"}, {"limit": "0"}):
        assert (
            client.get(f"{API}/vehicle_sessions", query_string=bad, headers=key).status_code == 422
        )
    piet = create_driver(app, carrier, "Piet Bakker")
    other = client.get(
        f"{API}/vehicle_sessions",
        query_string={"chauffeur": piet.user_token},
        headers=bearer(token),
    )
    assert other.status_code == 403


# --- the database holds one active session per vehicle and per driver -------------------


def _pending(carrier, chauffeur_id, vehicle_id=None, status="pending"):
    from portal.fleet.models import VehicleSession

    now = datetime.now(UTC)
    session = VehicleSession(
        transporteur_id=carrier.id,
        id=uuid.uuid4(),
        chauffeur_id=chauffeur_id,
        vehicle_id=vehicle_id,
        status=status,
        created_at=now,
        verloopt_op=now + timedelta(minutes=15),
        gestart_op=now if status == "active" else None,
    )
    db.session.add(session)
    return session


def refused(app, carrier, make) -> None:
    """make() adds a row the database must refuse on flush."""
    from portal.tenancy import carrier_scope

    with app.app_context(), carrier_scope(db.session, carrier.id):
        make()
        with pytest.raises(IntegrityError):
            db.session.flush()
        db.session.rollback()


def test_the_index_refuses_a_second_active_session_of_a_vehicle(app, carrier, truck):
    anna = create_driver(app, carrier, "Anna")
    henk = create_driver(app, carrier, "Henk")
    in_carrier(app, carrier.id, lambda: _pending(carrier, anna.id, truck.id, "active"))
    refused(app, carrier, lambda: _pending(carrier, henk.id, truck.id, "active"))
    # Ended and pending sessions of the vehicle are as many as needed.
    in_carrier(app, carrier.id, lambda: _pending(carrier, henk.id, truck.id, "ended"))
    in_carrier(app, carrier.id, lambda: _pending(carrier, henk.id, truck.id, "pending"))


def test_the_index_refuses_a_second_active_session_of_a_driver(app, carrier, driver, truck,
                                                               make_vehicle):  # fmt: skip
    tank = make_vehicle(carrier, "OB-12-CD")
    in_carrier(app, carrier.id, lambda: _pending(carrier, driver.id, truck.id, "active"))
    refused(app, carrier, lambda: _pending(carrier, driver.id, tank.id, "active"))


def test_an_active_session_without_a_vehicle_is_refused_by_the_database(app, carrier, driver):
    refused(app, carrier, lambda: _pending(carrier, driver.id, None, "active"))


def test_two_sessions_of_one_driver_cannot_both_become_active(
    app, carrier, driver, truck, make_vehicle, payload_of
):
    """Two pending sessions of one driver (two phones that started before either scanned):
    the second scan is refused with a 409, not a 500."""
    from portal.fleet import sessions

    tank = make_vehicle(carrier, "OB-12-CD")
    truck_qr, tank_qr = payload_of(truck), payload_of(tank)
    ids = in_carrier(
        app,
        carrier.id,
        lambda: [_pending(carrier, driver.id).id, _pending(carrier, driver.id).id],
    )
    in_carrier(
        app,
        carrier.id,
        lambda: sessions.validate_session(
            carrier_id=carrier.id, session_id=ids[0], payload=truck_qr
        ),
    )
    with pytest.raises(sessions.SessionConflict) as refused:
        in_carrier(
            app,
            carrier.id,
            lambda: sessions.validate_session(
                carrier_id=carrier.id, session_id=ids[1], payload=tank_qr
            ),
        )
    assert refused.value.extra["reden"] == "driver_busy"


def test_when_the_friendly_check_misses_a_race_the_index_gives_a_409(
    app, client, carrier, driver, truck, token, payload_of, calls, monkeypatch
):
    """The check before the write can be outrun by another phone; the unique index then
    refuses the write and the service names the session that won."""
    from portal.fleet import sessions

    henk = create_driver(app, carrier, "Henk")
    winner = calls.active(driver_token(client, henk), payload_of(truck))
    monkeypatch.setattr(sessions, "_active_of_vehicle", _blind_once(sessions._active_of_vehicle))
    session_id = calls.start(token).get_json()["id"]
    refused = calls.validate(token, session_id, payload_of(truck))
    assert refused.status_code == 409, refused.get_json()
    body = problem(refused)
    assert body["reden"] == "vehicle_in_use" and body["sessie_id"] == winner
    assert "Henk" in body["detail"]


def _blind_once(lookup):
    """The lookup, answering None the first time: the check that a race slips past."""
    calls = {"n": 0}

    def blind(*args, **kwargs):
        calls["n"] += 1
        return None if calls["n"] == 1 else lookup(*args, **kwargs)

    return blind


# --- PostgreSQL: two real connections at once -------------------------------------------


@pytest.mark.postgres_only  # two concurrent writers need PostgreSQL
def test_two_phones_scanning_one_vehicle_at_once_leave_one_active_session(
    app, carrier, truck, payload_of
):
    from portal.fleet import sessions

    phones = [create_driver(app, carrier, name) for name in ("Anna", "Henk")]
    clients = [app.test_client() for _ in phones]
    tokens = [driver_token(c, d) for c, d in zip(clients, phones, strict=True)]
    payload = payload_of(truck)
    ids = [
        c.post(f"{API}/vehicle_sessions", json={}, headers=bearer(t)).get_json()["id"]
        for c, t in zip(clients, tokens, strict=True)
    ]
    barrier = threading.Barrier(2)
    results: list = [None, None]

    def scan(i: int) -> None:
        barrier.wait()
        results[i] = clients[i].post(
            f"{API}/vehicle_sessions/{ids[i]}/validate",
            json={"qr": payload},
            headers=bearer(tokens[i]),
        )

    threads = [threading.Thread(target=scan, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(r.status_code for r in results) == [200, 409]
    refused = next(r for r in results if r.status_code == 409).get_json()
    assert refused["reden"] == "vehicle_in_use"
    active = in_carrier(
        app,
        carrier.id,
        lambda: sessions.list_sessions(
            carrier_id=carrier.id, filters=sessions.SessionFilters(statuses=("active",))
        ),
        lambda page: [s.id for s in page.sessions],
    )
    assert len(active) == 1


@pytest.mark.postgres_only  # two concurrent writers need PostgreSQL
def test_a_scan_waiting_on_an_uncommitted_winner_gets_a_409_when_it_commits(
    app, carrier, driver, truck, token, payload_of, calls
):
    """Deterministic interleaving: connection A has made its session active but not committed;
    the app's scan for the same vehicle passes the friendly check (A is invisible), blocks on
    the unique index, and gets a 409 as soon as A commits."""
    henk = create_driver(app, carrier, "Henk")
    winner = in_carrier(app, carrier.id, lambda: _pending(carrier, henk.id).id)
    session_id = calls.start(token).get_json()["id"]
    payload = payload_of(truck)
    url = app.config["SQLALCHEMY_DATABASE_URI"].replace("postgresql+psycopg://", "postgresql://")
    admin = app.config["DATABASE_ADMIN_URL"].replace("postgresql+psycopg://", "postgresql://")
    result: dict = {}
    with psycopg.connect(url) as a, psycopg.connect(admin, autocommit=True) as watcher:
        a.execute("SELECT set_config('app.transporteur_id', %s, true)", (str(carrier.id),))
        a.execute(
            "UPDATE voertuig_sessies SET status = 'active', vehicle_id = %s, gestart_op = now() "
            "WHERE transporteur_id = %s AND id = %s",
            (truck.id, carrier.id, winner),
        )
        waiting_before = _lock_waits(watcher)

        def scan():
            result["response"] = calls.validate(token, session_id, payload)

        thread = threading.Thread(target=scan)
        thread.start()
        deadline = time.monotonic() + 20
        while _lock_waits(watcher) <= waiting_before:  # the scan now waits on A's index entry
            assert time.monotonic() < deadline, "the scan never waited on the index"
            assert thread.is_alive(), result["response"].get_json()
        a.commit()
        thread.join(timeout=20)
    response = result["response"]
    assert response.status_code == 409, response.get_json()
    assert response.get_json()["reden"] == "vehicle_in_use"
    assert response.get_json()["sessie_id"] == str(winner)


def _lock_waits(conn) -> int:
    return conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock'"
    ).fetchone()[0]
