"""What the hours pages share: their blueprints (`bp` for /uren, `payroll_bp` for the payroll
export, `rulesets_bp` for the pay rule sets), the routes of one driver's week and of one
recorded activity (loaded before the CSRF check, so another carrier's id is a 404 whatever
the method), the week page's address and the files' mimetypes."""

from __future__ import annotations

import uuid

from flask import Blueprint, abort, url_for
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import object_route
from portal.drivers import service as drivers
from portal.hours import service
from portal.hours.models import SOORTEN
from portal.hours.pages import timeline
from portal.hours.pages.forms import SOORT_LABELS
from portal.hours.totals import IsoWeek
from portal.web.kit import current_carrier_id

bp = Blueprint("hours", __name__)
payroll_bp = Blueprint("payroll", __name__, url_prefix="/uren/loonexport")
rulesets_bp = Blueprint("rulesets", __name__, url_prefix="/uren/regels")

MIMETYPES = {
    "csv": "text/csv",  # Response adds "; charset=utf-8" to a text/* type
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
WEEK_STATES = {
    "open": _l("open"),
    "wacht_op_chauffeur": _l("wacht op chauffeur"),
    "goedgekeurd": _l("goedgekeurd"),
    "geexporteerd": _l("geëxporteerd"),
}
WEEK_STATE_ICONS = {"open": "○", "wacht_op_chauffeur": "…", "goedgekeurd": "✓", "geexporteerd": "⇪"}


@bp.context_processor
def _helpers():
    return {
        "hm": timeline.hm,
        "soort_labels": SOORT_LABELS,
        "soorten": SOORTEN,
        "week_states": WEEK_STATES,
        "week_state_icons": WEEK_STATE_ICONS,
    }


def week_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one driver's week: the driver and the week load first (404 when
    unknown or another carrier's), then a POST's CSRF token is checked."""

    def load(user_token: str, week: str):
        driver = drivers.find_by_token(carrier_id=current_carrier_id(), user_token=user_token)
        if driver is None:
            abort(404)
        try:
            return driver, IsoWeek.parse(week)
        except ValueError:
            abort(404)

    return object_route(bp, rule, load, methods=methods)


def week_url(driver, week: IsoWeek) -> str:
    return url_for("hours.week", user_token=driver.user_token, week=week.label)


def activity_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one recorded activity (another carrier's id: 404 first)."""

    def load(activiteit_id: uuid.UUID):
        return service.get_activity(carrier_id=current_carrier_id(), activity_id=activiteit_id)

    return object_route(bp, rule, load, methods=methods)
