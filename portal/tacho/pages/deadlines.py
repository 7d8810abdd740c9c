"""When each driver card and each vehicle unit must next be downloaded: overdue first."""

from __future__ import annotations

from flask import render_template
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext

from portal.accounts.permissions import role_required
from portal.tacho import service
from portal.tacho.pages.kit import driving_bp, today
from portal.web.kit import current_carrier_id

DEADLINE_LABELS = {
    "te_laat": _l("Te laat"),
    "binnenkort": _l("Binnenkort"),
    "ok": _l("Op tijd"),
    "nooit": _l("Nooit gedownload"),
}
DEADLINE_KINDS = {"kaart": _l("Bestuurderskaart"), "voertuig": _l("Voertuigeenheid")}


def days_left(item) -> str:
    """How long until a download is due, or how long overdue, in words."""
    if item.dagen_over is None:
        return ""
    if item.dagen_over < 0:
        return ngettext("%(num)s dag te laat", "%(num)s dagen te laat", -item.dagen_over)
    if item.dagen_over == 0:
        return _("vandaag")
    return ngettext("nog %(num)s dag", "nog %(num)s dagen", item.dagen_over)


@driving_bp.get("/rijtijden/downloads")
@role_required("planner")
def downloads():
    """When each driver card and each vehicle unit must next be downloaded: overdue first."""
    items = service.deadlines(carrier_id=current_carrier_id(), today=today())
    counts = {status: 0 for status in DEADLINE_LABELS}
    for item in items:
        counts[item.status] += 1
    return render_template(
        "tacho/driving/downloads.html",
        items=items,
        counts=counts,
        deadline_labels=DEADLINE_LABELS,
        deadline_kinds=DEADLINE_KINDS,
        days_left=days_left,
        every={"kaart": service.CARD_EVERY_DAYS, "voertuig": service.VU_EVERY_DAYS},
    )
