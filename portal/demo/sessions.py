"""Demo vehicle sessions: who drove which vehicle on the last days and today."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from portal.fleet import service as fleet
from portal.fleet.rules import MOTORISED


def seed_vehicle_sessions(carrier_id, driver_rows, vehicles, planner) -> None:
    """Who drove what: each driver a day in a vehicle on the last three days, and today the
    first drivers on the road (scanned in), the last one's session ended by the office."""
    from portal.audit.service import Actor
    from portal.fleet import sessions

    zone = ZoneInfo("Europe/Amsterdam")
    today = datetime.now(zone).date()
    now = datetime.now(UTC)
    cabs = [v for v in vehicles if v.soort in MOTORISED]
    office = Actor("user", planner.id, planner.naam)

    def drive(driver, vehicle, start, end, by=None):
        me = Actor("driver", driver.id, driver.naam)
        session = sessions.start_session(carrier_id=carrier_id, driver_id=driver.id, actor=me)
        sessions.validate_session(
            carrier_id=carrier_id,
            session_id=session.id,
            payload=fleet.sticker_payload(vehicle),
            driver_id=driver.id,
        )
        if end is not None:
            sessions.end_session(
                carrier_id=carrier_id,
                session_id=session.id,
                actor=by or me,
                driver_id=None if by else driver.id,
            )
            session.beeindigd_op = end
        session.created_at = start - timedelta(minutes=1)
        session.verloopt_op = session.created_at + sessions.PENDING_TTL
        session.gestart_op = start

    for days_back in (3, 2, 1):
        day = today - timedelta(days=days_back)
        for index, driver in enumerate(driver_rows):
            vehicle = cabs[(index + days_back) % len(cabs)]
            start = datetime.combine(day, time(6, 15 + index * 10), tzinfo=zone).astimezone(UTC)
            drive(driver, vehicle, start, start + timedelta(hours=9, minutes=20 + index * 15))
    for index, driver in enumerate(driver_rows):
        vehicle = cabs[index % len(cabs)]
        start = now - timedelta(hours=2, minutes=40 - index * 25)
        if index == len(driver_rows) - 1 and index > 0:
            drive(driver, vehicle, start, now - timedelta(minutes=35), by=office)
        else:
            drive(driver, vehicle, start, None)
