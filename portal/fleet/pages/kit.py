"""What the vehicle pages share: the blueprint, the route of one vehicle, the answer after a
write, and what the templates use to show vehicles and sessions."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from functools import partial

from flask import Blueprint, flash, redirect, url_for
from flask_babel import format_datetime, format_decimal
from flask_babel import gettext as _
from markupsafe import Markup, escape

from portal.accounts.permissions import object_route
from portal.accounts.service import carrier_zone
from portal.fleet import service, sessions
from portal.fleet.capabilities import parameters_of
from portal.fleet.models import Vehicle, VehicleSession
from portal.fleet.pages.forms import (
    EENHEID_LABELS,
    EENHEID_SHORT,
    END_REASONS,
    SESSION_STATUS_LABELS,
    SOORT_LABELS,
)
from portal.types import utcnow
from portal.unit_of_work import refused
from portal.web.kit import current_carrier_id, format_when, safe_back

bp = Blueprint("fleet", __name__)

SESSION_PAGE_SIZE = 50  # sessions per page of a history


# --- helpers --------------------------------------------------------------------------


def driver_page_url(driver_id: uuid.UUID) -> str:
    return url_for("drivers.show", driver_id=driver_id)


def back_to(target: str | None, fallback: str) -> str:
    """Where to return after a write: a path of the vehicle pages only (no open redirect)."""
    return safe_back(target, within="/voertuigen", fallback=fallback)


def vehicle_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one vehicle (another carrier's id: 404 whatever the method)."""

    def load(vehicle_id: uuid.UUID):
        return service.get_vehicle(carrier_id=current_carrier_id(), vehicle_id=vehicle_id)

    return object_route(bp, rule, load, methods=methods)


def done(vehicle_id: uuid.UUID, text: str, category: str = "info"):
    flash(text, category)
    return redirect(url_for("fleet.show", vehicle_id=vehicle_id), code=303)


def changed(vehicle_id: uuid.UUID):
    """Someone saved the vehicle at the same moment: nothing happened, try again."""
    return refused(
        done(
            vehicle_id,
            _("Dit voertuig is intussen gewijzigd. Bekijk het en probeer het opnieuw."),
            "error",
        )
    )


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


def vehicle_name(vehicle: Vehicle) -> Markup:
    """The vehicle as a plate, or, without one, its fleet number (marked as such)."""
    if vehicle.kenteken:
        return Markup('<span class="plate">%s</span>') % vehicle.kenteken
    title = escape(_("Vlootnummer (geen eigen kenteken)"))
    return Markup('<span class="fleet-number" title="%s">%s</span>') % (title, vehicle.label)


def capability_text(code: str, parameters: dict, names: dict[str, str]) -> str:
    """A capability with its parameters as people read them: 'Mesttank 18 m³'."""
    name = _(names.get(code, code))  # a default's Dutch name in the user's language
    values = []
    for parameter in parameters_of(code):
        value = parameters.get(parameter.name)
        if value is None:
            continue
        shown = format_decimal(value) if parameter.kind == "number" else str(value)
        values.append(f"{shown} {parameter.unit}" if parameter.unit else shown)
    if {"temp_min", "temp_max"} <= set(parameters) and len(values) == 2:
        values = [f"{values[0].removesuffix(' °C')} … {values[1]}"]
    return f"{name} {' '.join(values)}".strip()


def _session_status(session: VehicleSession) -> str:
    return "expired" if sessions.is_expired(session) else session.status


def template_helpers() -> dict:
    """What the templates use to show vehicles and sessions."""
    return {
        "soort_labels": SOORT_LABELS,
        "eenheid_labels": EENHEID_LABELS,
        "status_labels": SESSION_STATUS_LABELS,
        "end_reasons": END_REASONS,
        "when": partial(format_when, empty="—"),
        "duration": _duration,
        "capacity": _capacity,
        "vehicle_name": vehicle_name,
        "capability_text": capability_text,
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
