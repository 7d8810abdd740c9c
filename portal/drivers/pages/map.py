"""Where the drivers are: a map of the active drivers' last known positions (htmx refreshes
them) with the same in a table, and one driver's track of a day as a line and a table.
"""

from __future__ import annotations

import itertools
import math
from datetime import UTC, date, datetime, time, timedelta
from functools import partial

from flask import current_app, make_response, render_template, request, url_for

from portal.accounts.permissions import role_required
from portal.drivers import locations, service
from portal.drivers.models import Driver, DriverLocation
from portal.drivers.pages.forms import TrackForm
from portal.drivers.pages.kit import STALE_AFTER, age, bp, driver_route, kmh, metres
from portal.types import iso, utcnow
from portal.web import is_fragment
from portal.web.kit import Pager, current_carrier_id, current_zone, format_when

MAP_LIMIT = 1000  # drivers on the map; a carrier with more filters the list instead
TRACK_LIMIT = 10_000  # points of one day's track (a point every 10 s is 8,640 a day)
TRACK_PER_PAGE = 100  # rows of the track's table per page


# --- the map --------------------------------------------------------------------------


def _marker(driver: Driver, now: datetime) -> dict:
    return {
        "id": str(driver.id),
        "naam": driver.naam,
        "lat": driver.last_lat,
        "lng": driver.last_lng,
        "recorded_at": iso(driver.last_recorded_at),
        "tijd": format_when(driver.last_recorded_at, kind="recent"),
        "leeftijd": age(driver.last_recorded_at, now),
        "nauwkeurigheid": driver.last_accuracy,
        "oud": now - driver.last_recorded_at > STALE_AFTER,
        "url": url_for("drivers.track", driver_id=driver.id),
    }


def map_settings() -> dict:
    return {
        "tile_url": current_app.config.get("MAP_TILE_URL") or "",
        "attribution": current_app.config.get("MAP_TILE_ATTRIBUTION") or "",
    }


@bp.get("/chauffeurs/kaart")
@role_required("planner")
def positions():
    """Where the active drivers are: a map of last known positions and the same in a table."""
    now = utcnow()
    drivers, total = service.search_drivers(
        carrier_id=current_carrier_id(), filters=service.DriverFilters(actief=True, limit=MAP_LIMIT)
    )
    located = [d for d in drivers if d.last_recorded_at is not None]
    located.sort(key=lambda d: d.last_recorded_at, reverse=True)
    context = {
        "drivers": drivers,
        "total": total,
        "located": located,
        "unlocated": [d for d in drivers if d.last_recorded_at is None],
        "markers": [_marker(d, now) for d in located],
        "now": now,
        "age": age,
        "when": partial(format_when, kind="recent"),
        "metres": metres,
        "kmh": kmh,
        "stale_after": STALE_AFTER,
        "map": map_settings(),
        "limit": MAP_LIMIT,
    }
    template = "drivers/_positions.html" if is_fragment() else "drivers/map.html"
    return render_template(template, **context)


# --- a day's track --------------------------------------------------------------------


def _distance_km(points: list[DriverLocation]) -> float:
    """The length of the track along its points (great-circle), in kilometres."""
    total = 0.0
    for a, b in itertools.pairwise(points):
        lat1, lng1, lat2, lng2 = map(math.radians, (a.lat, a.lng, b.lat, b.lng))
        h = (
            math.sin((lat2 - lat1) / 2) ** 2
            + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
        )
        total += 2 * 6371.0088 * math.asin(min(1.0, math.sqrt(h)))
    return total


@driver_route("/chauffeurs/<uuid:driver_id>/rit")
def track(driver: Driver):
    """A driver's track of one day (carrier's time zone): a line on the map and a table."""
    zone = current_zone()
    today = datetime.now(zone).date()
    form = TrackForm(request.args)
    valid = form.validate()
    day: date = (form.datum.data if valid else None) or today
    if not valid or form.datum.data is None:
        form.datum.data = day
    start = datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone).astimezone(UTC)
    points = locations.track(
        carrier_id=current_carrier_id(),
        driver_id=driver.id,
        van=start,
        tot=end,
        limit=TRACK_LIMIT + 1,
    )
    truncated = len(points) > TRACK_LIMIT
    points = points[:TRACK_LIMIT]
    pager, shown = Pager.asked(TRACK_PER_PAGE).of(points)
    day_args = {} if day == today else {"datum": day.isoformat()}
    context = {
        "driver": driver,
        "form": form,
        "day": day,
        "today": today,
        "points": points,
        "shown": shown,
        "first_index": pager.offset,
        "pager": pager,
        "truncated": truncated,
        "limit": TRACK_LIMIT,
        "line": [[round(p.lat, 6), round(p.lng, 6)] for p in points],
        "distance": _distance_km(points),
        "day_args": day_args,
        "prev_day": (day - timedelta(days=1)).isoformat(),
        "next_day": (day + timedelta(days=1)).isoformat() if day < today else None,
        "metres": metres,
        "kmh": kmh,
        "map": map_settings(),
    }
    return make_response(render_template("drivers/track.html", **context), 200 if valid else 422)
