"""The tachograph pages' two blueprints and what their pages share.

`bp` (blueprint `tacho`): the files' pages (portal.tacho.pages.upload, the list and the upload;
portal.tacho.pages.file, one file). They share a refusal, a size, a moment and a period as
people read them, the driver and vehicle choices of a form, and the route of one file.

`driving_bp` (blueprint `driving`): the driving-time pages (portal.tacho.pages.remaining,
infringements, driver_days and deadlines). They share today as the carrier and as the
tachograph count it, the day bars (Piece), the order of findings and the templates' helpers.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from flask import Blueprint
from flask_babel import format_date, format_datetime, format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import object_route
from portal.drivers import service as drivers
from portal.fleet import service as fleet
from portal.tacho import service, wording
from portal.tacho.models import TachoFile
from portal.tacho.pages.forms import GENERATIE_LABELS, SOORT_LABELS
from portal.tacho.segments import ACTIVITEITEN, KAART_HANDMATIG, midnight
from portal.types import utcnow
from portal.web.kit import current_carrier_id, current_zone

bp = Blueprint("tacho", __name__)
driving_bp = Blueprint("driving", __name__)

EN_DASH = "\u2013"

# --- the files' pages ------------------------------------------------------------------

CARD_NAMES = {
    "workshop": _l("werkplaatskaart"),
    "control": _l("controlekaart"),
    "company": _l("bedrijfskaart"),
}


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


def size(byte_count: int) -> str:
    if byte_count < 1024:
        return _("%(n)s bytes", n=byte_count)
    if byte_count < 1024 * 1024:
        return _("%(n)s kB", n=format_decimal(byte_count / 1024, "#,##0.#"))
    return _("%(n)s MB", n=format_decimal(byte_count / (1024 * 1024), "#,##0.#"))


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


# --- the driving-time pages -------------------------------------------------------------

WINDOW_DAYS = 28  # the days of a driver's overview, and the default period of findings

# Fill colour (Okabe and Ito's palette, told apart with colour blindness too) and texture of
# each activity; unknown is grey and hatched so it never reads as rest. The templates draw the
# patterns once per page (templates/tacho/driving/_patterns.html).
STYLE = {
    "rijden": ("#0072B2", "solid"),
    "werk": ("#E69F00", "hatch"),
    "beschikbaar": ("#56B4E9", "vertical"),
    "rust": ("#009E73", "horizontal"),
    "onbekend": ("#C9CDD2", "unknown"),
}


def today() -> date:
    """Today in the carrier's time zone."""
    return datetime.now(current_zone()).date()


def utc_today() -> date:
    """Today as the tachograph counts days: in UTC."""
    return utcnow().date()


def parse_date(value: str | None) -> date | None:
    """The ISO date a query value names, or None."""
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def hhmm(moment: datetime, day: date) -> str:
    """A UTC clock time on the row of day: midnight at the end is 24:00."""
    if moment >= midnight(day + timedelta(days=1)):
        return "24:00"
    return f"{moment.hour:02d}:{moment.minute:02d}"


@driving_bp.context_processor
def _driving_helpers() -> dict:
    return {
        "wording": wording,
        "duur": wording.duur,
        "plate": service.painted,
        "moment": wording.moment,
        "span": wording.span,
        "activity_labels": wording.ACTIVITY_LABELS,
        "activity_help": wording.ACTIVITY_HELP,
        "activiteiten": ACTIVITEITEN,
        "styles": STYLE,
        "bron_labels": wording.BRON_LABELS,
        "ernst_labels": wording.ERNST_LABELS,
        "soort_labels": wording.SOORT_LABELS,
        "regel_labels": wording.REGEL_LABELS,
        "unknown_reason": wording.unknown_reason,
        "describe": wording.finding,
        "difference": wording.difference,
        "note": wording.note,
        "note_detail": wording.note_detail,
        "label": wording.label,
    }


# --- bars -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """One segment of a day bar: x and width in minutes after 00:00 UTC."""

    x: float
    width: float
    activiteit: str
    label: str  # the accessible name and tooltip: "Rijden 04:05-06:30 UTC (2 u 25)"
    handmatig: bool
    bemanning: bool


def pieces(segments, day: date) -> list[Piece]:
    """The bar of one UTC day from its segments."""
    start = midnight(day)
    out = []
    for s in segments:
        x = (s.begin - start).total_seconds() / 60
        width = (s.eind - s.begin).total_seconds() / 60
        if width <= 0:
            continue
        text = (
            f"{wording.label(wording.ACTIVITY_LABELS, s.activiteit)} "
            f"{hhmm(s.begin, day)}{EN_DASH}{hhmm(s.eind, day)} UTC ({wording.duur(s.minuten)})"
        )
        if s.bron == KAART_HANDMATIG:
            text += " · " + _("handmatig ingevoerd")
        if s.bemanning:
            text += " · " + _("met twee chauffeurs")
        out.append(
            Piece(
                x=round(x, 2),
                width=round(max(width, 1.0), 2),
                activiteit=s.activiteit,
                label=text,
                handmatig=s.bron == KAART_HANDMATIG,
                bemanning=s.bemanning,
            )
        )
    return out


def order_findings(items: list, order: str) -> list:
    """Most serious first then newest (ernst), or newest first (datum); incomplete checks
    (no severity) after the infringements."""
    newest = sorted(items, key=lambda f: (f.finding.begin, f.driver.naam.lower()), reverse=True)
    if order == "datum":
        return newest
    return sorted(newest, key=lambda f: wording.ERNST_ORDER.get(f.finding.ernst, 9))
