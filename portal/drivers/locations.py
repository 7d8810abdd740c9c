"""Drivers' positions: the only door to the chauffeur_locaties table and to the last known
position kept on each driver. Apart from service.py for its own rules (batches, duplicates,
clock skew, a last known position that never moves back in time)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from portal.drivers.models import Driver, DriverLocation
from portal.drivers.service import get_driver
from portal.errors import ValidationFailed
from portal.extensions import db
from portal.types import new_id, utcnow

logger = logging.getLogger(__name__)

# A phone's clock may run a little ahead of ours; further ahead, a point is refused.
MAX_CLOCK_SKEW = timedelta(minutes=2)
MAX_POINTS = 1000  # points in one PUT .../locatie


@dataclass(frozen=True)
class Point:
    """One position as a phone reports it."""

    lat: float
    lng: float
    recorded_at: datetime
    accuracy: float | None = None
    speed: float | None = None
    heading: float | None = None


@dataclass(frozen=True)
class Recorded:
    """What PUT .../locatie did: points received, newly stored, and already known."""

    received: int
    stored: int
    driver: Driver

    @property
    def duplicates(self) -> int:
        return self.received - self.stored


def _millis(moment: datetime) -> datetime:
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def _check_points(points: Sequence[Point], now: datetime, batch: bool) -> None:
    def name(i: int, field: str) -> str:
        return f"punten.{i}.{field}" if batch else field

    errors = []
    if not points:
        errors.append({"field": "punten", "code": "no_points", "message": "at least one point"})
    if len(points) > MAX_POINTS:
        errors.append(
            {
                "field": "punten",
                "code": "too_many_points",
                "message": f"at most {MAX_POINTS} points",
            }
        )
    for i, point in enumerate(points[:MAX_POINTS]):
        if not -90 <= point.lat <= 90:
            errors.append(
                {"field": name(i, "lat"), "code": "out_of_range", "message": "between -90 and 90"}
            )
        if not -180 <= point.lng <= 180:
            errors.append(
                {"field": name(i, "lng"), "code": "out_of_range", "message": "between -180 and 180"}
            )
        if point.recorded_at.tzinfo is None:
            errors.append(
                {
                    "field": name(i, "recorded_at"),
                    "code": "no_time_zone",
                    "message": "needs a time zone",
                }
            )
        elif point.recorded_at > now + MAX_CLOCK_SKEW:
            errors.append(
                {
                    "field": name(i, "recorded_at"),
                    "code": "in_the_future",
                    "message": "lies in the future (more than 2 minutes ahead of the server)",
                }
            )
    if errors:
        raise ValidationFailed(errors)


def record_locations(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    points: Sequence[Point],
    batch: bool = True,
    now: datetime | None = None,
) -> Recorded:
    """Store a driver's points; a point already known (same driver and recorded_at) is
    skipped, and the last known position only ever moves forward in time."""
    now = now or utcnow()
    _check_points(points, now, batch)
    driver = get_driver(carrier_id=carrier_id, driver_id=driver_id)
    unique: dict[datetime, Point] = {}
    for point in points:
        unique.setdefault(_millis(point.recorded_at), point)
    rows = [
        {
            "transporteur_id": carrier_id,
            "id": new_id(),
            "chauffeur_id": driver.id,
            "lat": point.lat,
            "lng": point.lng,
            "recorded_at": at,
            "accuracy": point.accuracy,
            "speed": point.speed,
            "heading": point.heading,
            "received_at": now,
        }
        for at, point in unique.items()
    ]
    stored = _insert_new(rows)
    _move_last_position(carrier_id, driver.id, *max(unique.items(), key=lambda item: item[0]))
    logger.debug("driver %s: %s points, %s new", driver.id, len(points), stored)
    return Recorded(received=len(points), stored=stored, driver=driver)


def _insert_new(rows: list[dict]) -> int:
    """Insert the points the driver's track does not have yet; answers how many."""
    dialect = postgresql if db.session.get_bind().dialect.name == "postgresql" else sqlite
    table = DriverLocation.__table__
    stmt = (
        dialect.insert(table)
        .values(rows)
        .on_conflict_do_nothing(index_elements=["transporteur_id", "chauffeur_id", "recorded_at"])
        .returning(table.c.id)  # only the rows inserted: rowcount is unreliable here
    )
    return len(db.session.execute(stmt).all())


def _move_last_position(
    carrier_id: uuid.UUID, driver_id: uuid.UUID, newest_at: datetime, newest: Point
) -> None:
    """The driver's last known position becomes the newest point, unless it is newer already:
    a late point (or a concurrent request with older points) changes nothing."""
    db.session.execute(
        update(Driver)
        .where(
            Driver.transporteur_id == carrier_id,
            Driver.id == driver_id,
            or_(Driver.last_recorded_at.is_(None), Driver.last_recorded_at < newest_at),
        )
        .values(
            last_lat=newest.lat,
            last_lng=newest.lng,
            last_recorded_at=newest_at,
            last_accuracy=newest.accuracy,
            last_speed=newest.speed,
            last_heading=newest.heading,
        )
        .execution_options(synchronize_session="fetch")
    )


def track(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, van: datetime, tot: datetime, limit: int
) -> list[DriverLocation]:
    """The driver's points from van up to tot, oldest first, at most limit of them."""
    stmt = (
        select(DriverLocation)
        .where(
            DriverLocation.transporteur_id == carrier_id,
            DriverLocation.chauffeur_id == driver_id,
            DriverLocation.recorded_at >= van,
            DriverLocation.recorded_at < tot,
        )
        .order_by(DriverLocation.recorded_at)
        .limit(limit)
    )
    return list(db.session.scalars(stmt))
