"""Demo positions: the routes the demo drivers' phones reported."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from portal.drivers import locations

# Routes the demo drivers drove: (from, to) as (lat, lng), between farms of tasks.PLACES.
ROUTES = [
    ((52.5790, 6.2840), (52.2935, 6.5790)),  # Nieuwleusen -> Enter
    ((52.3480, 5.9830), (52.1650, 5.5300)),  # Epe -> Voorthuizen
    ((51.6230, 5.4330), (51.5100, 5.6400)),  # Schijndel -> Aarle-Rixtel
]


def seed_positions(carrier_id, driver_rows) -> None:
    """Today's route of all drivers but the last (no phone yet), one of them gone quiet
    two hours ago; and yesterday's route of the first."""
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    for index, driver in enumerate(driver_rows[:-1]):
        start, end = ROUTES[index % len(ROUTES)]
        until = now - (timedelta(minutes=3) if index == 0 else timedelta(hours=2))
        for day_back in (1, 0) if index == 0 else (0,):
            last = until - timedelta(days=day_back)
            for step in range(91):  # three hours, a point every two minutes, as sent
                f = step / 90
                wobble = ((step * 7919) % 13 - 6) / 20000
                point = locations.Point(
                    lat=start[0] + (end[0] - start[0]) * f + wobble,
                    lng=start[1] + (end[1] - start[1]) * f - wobble,
                    recorded_at=last - timedelta(minutes=2 * (90 - step)),
                    accuracy=float(5 + step % 9),
                    speed=0.0 if step in (0, 45, 90) else 14.0 + step % 8,
                    heading=float((135 + step * 3) % 360),
                )
                locations.record_locations(
                    carrier_id=carrier_id,
                    driver_id=driver.id,
                    points=[point],
                    now=point.recorded_at + timedelta(seconds=2),
                )
