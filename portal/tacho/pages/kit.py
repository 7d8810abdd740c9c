"""The driving-time blueprint and what its pages share: today as the carrier and as the
tachograph count it, the day bars (Piece), the order of findings and the templates' helpers.

The pages are portal.tacho.remaining_views (remaining time), infringement_views (the
infringements and their export), driver_day_views (one driver's days, card number and one day)
and deadline_views (download deadlines); portal.tacho.driving_views gathers them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from flask import Blueprint
from flask_babel import gettext as _

from portal.tacho import service, wording
from portal.tacho.segments import ACTIVITEITEN, KAART_HANDMATIG, midnight
from portal.types import utcnow
from portal.web.kit import current_zone

bp = Blueprint("driving", __name__)

WINDOW_DAYS = 28  # the days of a driver's overview, and the default period of findings
EN_DASH = "\u2013"

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


def parse_uuid(value: str | None) -> uuid.UUID | None:
    """The UUID a form value names, or None."""
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return None


def hhmm(moment: datetime, day: date) -> str:
    """A UTC clock time on the row of day: midnight at the end is 24:00."""
    if moment >= midnight(day + timedelta(days=1)):
        return "24:00"
    return f"{moment.hour:02d}:{moment.minute:02d}"


@bp.context_processor
def _helpers() -> dict:
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


def order_findings(items: list, volgorde: str) -> list:
    """Most serious first then newest (ernst), or newest first (datum); incomplete checks
    (no severity) after the infringements."""
    newest = sorted(items, key=lambda f: (f.finding.begin, f.driver.naam.lower()), reverse=True)
    if volgorde == "datum":
        return newest
    return sorted(newest, key=lambda f: wording.ERNST_ORDER.get(f.finding.ernst, 9))
