"""The drivers service: its rules, the search, and the positions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from factories import create_driver, in_carrier

from portal.audit.service import SYSTEM
from portal.drivers import locations, service
from portal.drivers.locations import Point
from portal.drivers.service import DriverFilters
from portal.errors import NotFound, ValidationFailed


def run(app, carrier, fn, convert=lambda x: x):
    return in_carrier(app, carrier.id, fn, convert)


def test_a_driver_needs_a_name_and_a_unique_email_within_its_carrier(app, carrier, other_carrier):
    create_driver(app, carrier, "Jan", email="jan@example.nl")
    with pytest.raises(ValidationFailed) as refused:
        run(app, carrier, lambda: service.create_driver(carrier_id=carrier.id, naam=" "))
    assert refused.value.errors == [{"field": "naam", "message": "required"}]
    with pytest.raises(ValidationFailed) as taken:
        run(
            app,
            carrier,
            lambda: service.create_driver(
                carrier_id=carrier.id, naam="Jan twee", email=" JAN@example.nl "
            ),
        )
    assert taken.value.errors == [{"field": "email", "message": "already in use"}]
    other = create_driver(app, other_carrier, "Jan", email="jan@example.nl")
    assert other.id


def test_updating_keeps_the_own_email_and_refuses_an_unknown_language(app, carrier):
    jan = create_driver(app, carrier, "Jan", email="jan@example.nl")

    def update(**values):
        return run(
            app,
            carrier,
            lambda: service.update_driver(
                carrier_id=carrier.id,
                driver_id=jan.id,
                **{"naam": "Jan", "email": "jan@example.nl", "telefoon": None, "taal": "nl"}
                | values,
                actor=SYSTEM,
            ),
            lambda d: (d.naam, d.email, d.taal),
        )

    assert update(naam="Jan de Vries") == ("Jan de Vries", "jan@example.nl", "nl")
    with pytest.raises(ValidationFailed) as refused:
        update(taal="de")
    assert refused.value.errors[0]["field"] == "taal"
    entries = run(
        app,
        carrier,
        lambda: service.history(carrier_id=carrier.id, driver_id=jan.id),
        lambda rows: [row.action for row in rows],
    )
    assert entries == ["created", "updated"]


def test_the_search_is_by_name_case_insensitive_and_counts_all(app, carrier):
    for naam in ("zwart", "Anna", "bakker", "Zeeman"):
        create_driver(app, carrier, naam)
    page, total = run(
        app,
        carrier,
        lambda: service.search_drivers(carrier_id=carrier.id, filters=DriverFilters(limit=2)),
        lambda result: ([d.naam for d in result[0]], result[1]),
    )
    assert (page, total) == (["Anna", "bakker"], 4)


def test_a_foreign_driver_is_not_found(app, carrier, other_carrier):
    stranger = create_driver(app, other_carrier, "Sanne")
    with pytest.raises(NotFound):
        run(app, carrier, lambda: service.get_driver(carrier_id=carrier.id, driver_id=stranger.id))
    with pytest.raises(NotFound):
        run(
            app,
            carrier,
            lambda: locations.record_locations(
                carrier_id=carrier.id,
                driver_id=stranger.id,
                points=[Point(lat=52.0, lng=6.0, recorded_at=datetime.now(UTC))],
            ),
        )


def test_the_last_known_position_only_moves_forward(app, carrier, driver):
    now = datetime.now(UTC)

    def send(*points):
        return run(
            app,
            carrier,
            lambda: locations.record_locations(
                carrier_id=carrier.id, driver_id=driver.id, points=list(points)
            ),
            lambda r: (r.received, r.stored, r.driver.last_lat, r.driver.last_recorded_at),
        )

    newest = (now - timedelta(minutes=1)).replace(microsecond=0)
    assert send(Point(52.5, 6.5, newest)) == (1, 1, 52.5, newest)
    assert send(Point(51.0, 5.0, now - timedelta(hours=2))) == (1, 1, 52.5, newest)
    # The same moment again, with other coordinates: ignored, not stored twice.
    assert send(Point(40.0, 4.0, newest)) == (1, 0, 52.5, newest)


def test_points_are_checked_before_anything_is_stored(app, carrier, driver):
    now = datetime.now(UTC)
    with pytest.raises(ValidationFailed) as refused:
        run(
            app,
            carrier,
            lambda: locations.record_locations(
                carrier_id=carrier.id,
                driver_id=driver.id,
                points=[
                    Point(52.0, 6.0, now - timedelta(minutes=3)),
                    Point(95.0, 6.0, now),
                    Point(52.0, 6.0, now + timedelta(minutes=3)),
                ],
            ),
        )
    assert [e["field"] for e in refused.value.errors] == ["punten.1.lat", "punten.2.recorded_at"]
    track = run(
        app,
        carrier,
        lambda: locations.track(
            carrier_id=carrier.id,
            driver_id=driver.id,
            van=now - timedelta(days=1),
            tot=now + timedelta(days=1),
            limit=10,
        ),
        len,
    )
    assert track == 0


def test_the_track_is_the_window_in_time_order_and_limited(app, carrier, driver):
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    points = [Point(52.0 + n / 100, 6.0, start + timedelta(minutes=n)) for n in (5, 1, 3, 2, 4)]
    run(
        app,
        carrier,
        lambda: locations.record_locations(
            carrier_id=carrier.id, driver_id=driver.id, points=points
        ),
    )
    minutes = run(
        app,
        carrier,
        lambda: locations.track(
            carrier_id=carrier.id,
            driver_id=driver.id,
            van=start + timedelta(minutes=2),
            tot=start + timedelta(minutes=5),
            limit=2,
        ),
        lambda rows: [int((r.recorded_at - start).total_seconds() // 60) for r in rows],
    )
    assert minutes == [2, 3]


def test_deactivating_twice_changes_nothing_the_second_time(app, carrier, driver):
    for _ in range(2):
        run(
            app,
            carrier,
            lambda: service.deactivate_driver(
                carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM
            ),
        )
    actions = run(
        app,
        carrier,
        lambda: service.history(carrier_id=carrier.id, driver_id=driver.id),
        lambda rows: [row.action for row in rows],
    )
    assert actions == ["created", "deactivated"]
    version = run(
        app,
        carrier,
        lambda: service.get_driver(carrier_id=carrier.id, driver_id=driver.id),
        lambda d: (d.actief, d.token_version),
    )
    assert version == (False, 2)


def test_a_deactivated_driver_frees_the_vehicle_and_gets_no_more_pushes(app, carrier, driver):
    """What leaving means lives in the service, so the portal, the API and a command all
    do the same: the session on the vehicle ends and the phones are forgotten."""
    from portal.fleet import service as fleet
    from portal.fleet import sessions
    from portal.messages import service as messages
    from portal.messages.models import PushSubscription

    def arrange():
        vehicle = fleet.create_vehicle(carrier_id=carrier.id, kenteken="BX-12-LP")
        session = sessions.start_session(
            carrier_id=carrier.id, driver_id=driver.id, vehicle_id=vehicle.id, actor=SYSTEM
        )
        messages.subscribe(
            carrier_id=carrier.id,
            driver_id=driver.id,
            endpoint="https://push.example.net/telefoon",
            p256dh="sleutel",
            auth="geheim",
        )
        return session.id

    session_id = run(app, carrier, arrange)
    run(
        app,
        carrier,
        lambda: service.deactivate_driver(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM),
    )

    def outcome():
        from sqlalchemy import func, select

        from portal.extensions import db

        session = sessions.get_session(carrier_id=carrier.id, session_id=session_id)
        phones = db.session.scalar(
            select(func.count())
            .select_from(PushSubscription)
            .where(PushSubscription.transporteur_id == carrier.id)
        )
        return session.status, phones

    assert run(app, carrier, outcome) == ("ended", 0)


def test_a_signed_out_phone_gets_no_more_pushes_and_the_driver_stays(app, carrier, driver):
    """Signing a lost phone out is one service call: its tokens refused and its push
    subscriptions forgotten, the driver still active."""
    from sqlalchemy import func, select

    from portal.drivers import tokens
    from portal.extensions import db
    from portal.messages import service as messages
    from portal.messages.models import PushSubscription

    def phones():
        return db.session.scalar(
            select(func.count())
            .select_from(PushSubscription)
            .where(PushSubscription.transporteur_id == carrier.id)
        )

    def arrange():
        messages.subscribe(
            carrier_id=carrier.id,
            driver_id=driver.id,
            endpoint="https://push.example.net/verloren-telefoon",
            p256dh="sleutel",
            auth="geheim",
        )
        return phones()

    assert run(app, carrier, arrange) == 1
    run(
        app,
        carrier,
        lambda: tokens.sign_out_phone(carrier_id=carrier.id, driver_id=driver.id, actor=SYSTEM),
    )
    state = run(
        app,
        carrier,
        lambda: (phones(), service.get_driver(carrier_id=carrier.id, driver_id=driver.id).actief),
    )
    assert state == (0, True)
