"""The tacho blueprint and what its pages share: a refusal, a size, a moment and a period as
people read them, the driver and vehicle choices of a form, and the route of one file.

The pages themselves are portal.tacho.upload_views (the list and the upload) and
portal.tacho.file_views (one file); portal.tacho.views gathers them.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta

from flask import Blueprint
from flask_babel import format_date, format_datetime, format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import object_route
from portal.drivers import service as drivers
from portal.fleet import service as fleet
from portal.tacho import service
from portal.tacho.models import TachoFile
from portal.tacho.pages.forms import GENERATIE_LABELS, SOORT_LABELS
from portal.web.kit import current_carrier_id

bp = Blueprint("tacho", __name__)

EN_DASH = "\u2013"
CARD_NAMES = {
    "workshop": _l("werkplaatskaart"),
    "control": _l("controlekaart"),
    "company": _l("bedrijfskaart"),
}


def parse_uuid(value: str) -> uuid.UUID | None:
    """The UUID a form value names, or None."""
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return None


def refusal(error: service.Refused) -> str:
    """Why a file is refused, in plain Dutch."""
    reason = error.reason
    if reason == "too_large":
        limit = size(error.params["limit"])
        return _("Te groot: een tachograafbestand is hooguit %(size)s.", size=limit)
    if reason == "empty":
        return _("Geen tachograafbestand: het bestand is leeg.")
    if reason == "card_structure":
        return _(
            "Geen tachograafbestand: het begint als de download van een bestuurderskaart, "
            "maar de opbouw klopt niet. Is het afgebroken of beschadigd? Download de kaart "
            "opnieuw."
        )
    if reason == "vu_structure":
        return _(
            "Geen tachograafbestand: het begint als de download van een voertuigeenheid, "
            "maar de opbouw klopt niet. Is het afgebroken of beschadigd? Download de "
            "tachograaf opnieuw."
        )
    if reason == "other_card":
        card = CARD_NAMES.get(error.params.get("card_type"), _l("andere kaart"))
        return _(
            "Geen tachograafbestand van een chauffeur: dit is de download van een %(kaart)s, "
            "geen bestuurderskaart.",
            kaart=card,
        )
    if error.params.get("where"):
        return _(
            "Beschadigd tachograafbestand: de gegevens bij %(waar)s kloppen niet. Download "
            "de kaart of tachograaf opnieuw.",
            waar=error.params["where"],
        )
    return _(
        "Geen tachograafbestand: de inhoud is geen download van een bestuurderskaart of een "
        "voertuigeenheid (zoals een .DDD-, .TGD-, .C1B- of .V1B-bestand)."
    )


def size(grootte: int) -> str:
    if grootte < 1024:
        return _("%(n)s bytes", n=grootte)
    if grootte < 1024 * 1024:
        return _("%(n)s kB", n=format_decimal(grootte / 1024, "#,##0.#"))
    return _("%(n)s MB", n=format_decimal(grootte / (1024 * 1024), "#,##0.#"))


def when(moment: datetime | None) -> str:
    return format_datetime(moment, "d MMM yyyy HH:mm") if moment else "—"


def days(row: TachoFile) -> tuple[date, date] | None:
    """The first and last day a file covers: UTC days, as a tachograph records them."""
    if row.periode_van is None or row.periode_tot is None:
        return None
    last = row.periode_tot - timedelta(seconds=1)  # the end is exclusive
    return row.periode_van.astimezone(UTC).date(), last.astimezone(UTC).date()


def period(row: TachoFile) -> str:
    """The days a file covers ("3 nov 2026 - 9 nov 2026", with an en dash), or ''."""
    span = days(row)
    if span is None:
        return ""
    first, last = (format_date(day, "d MMM yyyy") for day in span)
    return first if first == last else f"{first} {EN_DASH} {last}"


def helpers() -> dict:
    """What the file pages' templates use to word a file."""
    return {
        "soort_labels": SOORT_LABELS,
        "generatie_labels": GENERATIE_LABELS,
        "size": size,
        "when": when,
        "period": period,
    }


def tacho_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one tachograph file (another carrier's id: 404 first)."""

    def load(tacho_file_id: uuid.UUID):
        return service.get_file(carrier_id=current_carrier_id(), tacho_file_id=tacho_file_id)

    return object_route(bp, rule, load, methods=methods)


def set_choices(form, *, active_only: bool, empty_driver, empty_vehicle) -> None:
    """Fill a form's driver and vehicle selects with the carrier's."""
    carrier_id = current_carrier_id()
    form.set_choices(
        drivers.list_drivers(carrier_id=carrier_id, active_only=active_only),
        fleet.list_vehicles(carrier_id=carrier_id, active_only=active_only),
        empty_driver,
        empty_vehicle,
    )
