"""The drivers blueprint and what its pages share: the route of one driver, and a position's
age, accuracy and speed as people read them.

The pages are portal.drivers.pages.roster (the list, the form, the driver's page), access
(access actions and pairing) and map (the map and a day's track); portal.drivers.pages
gathers them.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from flask import Blueprint
from flask_babel import format_decimal, format_timedelta
from flask_babel import gettext as _

from portal.accounts.permissions import object_route
from portal.drivers import service
from portal.web.kit import current_carrier_id

bp = Blueprint("drivers", __name__)

STALE_AFTER = timedelta(minutes=30)  # a position older than this is shown as stale


def driver_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one driver (another carrier's id: 404 whatever the method)."""

    def load(driver_id: uuid.UUID):
        return service.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)

    return object_route(bp, rule, load, methods=methods)


def age(moment: datetime | None, now: datetime) -> str:
    """How long ago, as people say it: "5 minuten geleden"."""
    if moment is None:
        return ""
    delta = min(moment - now, timedelta(0))
    if delta > -timedelta(minutes=1):
        return _("zojuist")
    return format_timedelta(delta, granularity="minute", add_direction=True)


def metres(value: float | None) -> str:
    """A position's accuracy: "± 12 m"."""
    return f"± {format_decimal(round(value))} m" if value is not None else ""


def kmh(value: float | None) -> str:
    """A speed in metres a second as km/h."""
    return f"{format_decimal(round(value * 3.6))} km/u" if value is not None else ""
