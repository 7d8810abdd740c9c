"""What the vehicle pages share: the blueprint and what the templates use to show vehicles
and sessions."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from functools import partial
from urllib.parse import urlsplit

from flask import Blueprint, url_for
from flask_babel import format_datetime
from flask_babel import gettext as _

from portal.accounts.service import carrier_zone
from portal.fleet import sessions
from portal.fleet.models import Vehicle, VehicleSession
from portal.fleet.pages.forms import (
    EENHEID_LABELS,
    EENHEID_SHORT,
    END_REASONS,
    SESSION_STATUS_LABELS,
    SOORT_LABELS,
)
from portal.types import utcnow
from portal.web.kit import current_carrier_id, format_when

bp = Blueprint("fleet", __name__)

SESSION_PAGE_SIZE = 50  # sessions per page of a history


# --- helpers --------------------------------------------------------------------------


def driver_page_url(driver_id: uuid.UUID) -> str:
    return url_for("drivers.show", driver_id=driver_id)


def _safe_back(target: str | None, fallback: str) -> str:
    """Where to return after a write: a path of the vehicle pages only (no open redirect)."""
    if target and target.isprintable() and "\\" not in target and " " not in target:
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc and parts.path.startswith("/voertuigen"):
            return target
    return fallback


def _duration(start: datetime | None, end: datetime | None) -> str:
    """How long a session ran (or runs): '2 u 15 min', '40 min'."""
    if start is None:
        return "—"
    minutes = max(0, int(((end or utcnow()) - start).total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        return _("%(d)s d %(h)s u", d=days, h=hours)
    if hours:
        return _("%(h)s u %(m)s min", h=hours, m=minutes)
    return _("%(m)s min", m=minutes)


def _capacity(vehicle: Vehicle) -> str:
    if vehicle.capaciteit is None:
        return ""
    number = f"{vehicle.capaciteit:g}".replace(".", ",")
    return f"{number} {EENHEID_SHORT.get(vehicle.capaciteit_eenheid, vehicle.capaciteit_eenheid)}"


def _session_status(session: VehicleSession) -> str:
    return "expired" if sessions.is_expired(session) else session.status


def _helpers() -> dict:
    """What the templates use to show vehicles and sessions."""
    return {
        "soort_labels": SOORT_LABELS,
        "eenheid_labels": EENHEID_LABELS,
        "status_labels": SESSION_STATUS_LABELS,
        "end_reasons": END_REASONS,
        "when": partial(format_when, empty="—"),
        "duration": _duration,
        "capacity": _capacity,
        "session_status": _session_status,
        "driver_page_url": driver_page_url,
        "since": since,
    }


def since(moment: datetime | None) -> str:
    """When a session started: the time today, else the day and time."""
    if moment is None:
        return "—"
    zone = carrier_zone(current_carrier_id())
    if moment.astimezone(zone).date() == datetime.now(zone).date():
        return format_datetime(moment, "HH:mm")
    if utcnow() - moment < timedelta(days=6):
        return format_datetime(moment, "EEE HH:mm")
    return format_datetime(moment, "d MMM HH:mm")
