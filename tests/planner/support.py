"""What the planner's database tests share: a fixed week, vehicles as stored."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from factories import Ref, in_carrier

ZONE = ZoneInfo("Europe/Amsterdam")
NOW = datetime(2026, 12, 6, 18, 0, tzinfo=ZONE).astimezone(UTC)  # Sunday before the week
MONDAY = datetime(2026, 12, 7, 0, 0, tzinfo=ZONE).astimezone(UTC)


def at(day: int, hour: int) -> datetime:
    return datetime(2026, 12, 7 + day, hour, 0, tzinfo=ZONE).astimezone(UTC)


def vehicle(app, carrier, kenteken, soort="vrachtwagen"):
    from portal.extensions import db
    from portal.fleet.models import Vehicle

    def make():
        row = Vehicle(transporteur_id=carrier.id, kenteken=kenteken, soort=soort)
        db.session.add(row)
        db.session.flush()
        return row

    return in_carrier(app, carrier.id, make, lambda v: Ref(v.id, carrier.id, naam=kenteken))
