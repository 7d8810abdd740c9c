"""What the pages of recurring work share: the blueprint, loading a template or series for a
route, the words for the service's errors, capability names, and the rule's preview."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, url_for
from flask_babel import format_date
from flask_babel import gettext as _

from portal.accounts.permissions import object_route
from portal.fleet import service as fleet
from portal.series import rules
from portal.series import service as series_service
from portal.series.pages.forms import HOLIDAY_LABELS, PATTERN_LABELS, WEEKDAY_LABELS
from portal.series.words import MESSAGES, holiday_name
from portal.web.kit import current_carrier_id

bp = Blueprint("series", __name__)
WORDING = MESSAGES
PREVIEW_COUNT = 10  # occurrences the form's preview shows


def template_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one template (another carrier's id: 404 whatever the method)."""

    def load(sjabloon_id: uuid.UUID):
        return series_service.get_template(carrier_id=current_carrier_id(), template_id=sjabloon_id)

    return object_route(bp, rule, load, methods=methods)


def series_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one series."""

    def load(reeks_id: uuid.UUID):
        return series_service.get_series(carrier_id=current_carrier_id(), series_id=reeks_id)

    return object_route(bp, rule, load, methods=methods)


def done(endpoint: str, text: str, **values):
    flash(text, "info")
    return redirect(url_for(endpoint, **values), code=303)


def capability_names(carrier_id: uuid.UUID, codes=()) -> dict[str, str]:
    """The fleet's capabilities by code with their names, and any stored code the catalogue
    no longer knows by its code."""
    # The catalogue's default names are Dutch, translated where they show (as fleet's pages).
    names = {code: _(naam) for code, naam in fleet.capability_names(carrier_id=carrier_id).items()}
    for code in codes:
        names.setdefault(code, code)
    return names


def needed_for(carrier_id: uuid.UUID, activity_type: str) -> list[str]:
    """What the fleet says an activity type needs of its vehicle (the template's default)."""
    found = fleet.needed_capabilities(carrier_id=carrier_id, activity_types={activity_type})
    return sorted(found.get(activity_type, ()))


def preview_rows(found: list[rules.Occurrence]) -> list[dict]:
    """The preview's rows: the day, and whether and why it moved or was skipped."""
    rows = []
    for item in found:
        rows.append(
            {
                "datum": format_date(item.datum, "EEE d MMM yyyy"),
                "gepland": format_date(item.gepland_datum, "EEE d MMM yyyy")
                if item.gepland_datum
                else None,
                "moved": item.moved,
                "skipped": item.skipped,
                "feestdag": holiday_name(item.feestdag),
            }
        )
    return rows


def rule_text(series) -> str:
    """A series' rule in words: "maandag, vrijdag, elke week"."""
    if series.patroon == "eerste_werkdag":
        return str(PATTERN_LABELS["eerste_werkdag"])
    days = ", ".join(str(WEEKDAY_LABELS[d]) for d in rules.weekdays_of(series.weekdagen))
    if series.om_weken > 1:
        return _("%(days)s, om de %(n)s weken", days=days, n=series.om_weken)
    return _("%(days)s, elke week", days=days)


def helpers() -> dict:
    return {
        "weekday_labels": WEEKDAY_LABELS,
        "holiday_labels": HOLIDAY_LABELS,
        "pattern_labels": PATTERN_LABELS,
        "rule_text": rule_text,
        "holiday_name": holiday_name,
    }
