"""The carrier's infringements and incomplete checks (EU 561/2006) over a period, filtered
and sorted, and their export (CSV or Excel) for the drivers' signatures.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, timedelta

from flask import Response, make_response, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from wtforms import DateField, SelectChoice, SelectField
from wtforms.validators import Optional, ValidationError

from portal.accounts.permissions import role_required
from portal.accounts.service import current_carrier_of
from portal.drivers import service as drivers
from portal.tacho import driving, wording
from portal.tacho.driving import export as driving_export
from portal.tacho.pages.forms import driver_choices
from portal.tacho.pages.kit import WINDOW_DAYS, driving_bp, order_findings, today
from portal.types import period_bound
from portal.validators import PortalForm, in_calendar
from portal.web.kit import Pager, current_carrier_id, current_zone, parse_uuid

PAGE_SIZE = 50  # findings per page
MAX_PERIOD_DAYS = 366  # the longest period of findings checked at once
MIMETYPES = {
    "csv": "text/csv",  # Response adds "; charset=utf-8" to a text/* type
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
SORT_LABELS = {"ernst": _l("Ernstigste eerst"), "datum": _l("Nieuwste eerst")}


class FindingFilterForm(PortalForm):
    """The filters of the infringements (GET; no CSRF: it changes nothing)."""

    class Meta:
        csrf = False

    van = DateField(_l("Van"), validators=[Optional(), in_calendar])
    tot = DateField(_l("Tot en met"), validators=[Optional(), in_calendar])
    chauffeur = SelectField(_l("Chauffeur"), default="")
    soort = SelectField(
        _l("Soort"),
        choices=[SelectChoice("", _l("Alles"))]
        + [SelectChoice(key, value) for key, value in wording.SOORT_LABELS.items()],
        default="",
    )
    ernst = SelectField(
        _l("Ernst"),
        choices=[SelectChoice("", _l("Elke ernst"))]
        + [SelectChoice(key, value) for key, value in wording.ERNST_LABELS.items()],
        default="",
    )
    volgorde = SelectField(
        _l("Volgorde"),
        choices=[SelectChoice(key, value) for key, value in SORT_LABELS.items()],
        default="ernst",
    )

    def validate_tot(self, field) -> None:
        if field.data and self.van.data:
            if field.data < self.van.data:
                raise ValidationError(_l("De einddatum ligt voor de begindatum."))
            if (field.data - self.van.data).days >= MAX_PERIOD_DAYS:
                raise ValidationError(_l("Kies een periode van hoogstens een jaar."))

    def chosen(self, name: str) -> str:
        """A select's value when it is one of its choices, else ''."""
        field = self[name]
        valid = {value for value, *_rest in field.iter_choices()}
        return field.data if field.data in valid else ""


@dataclass
class FindingQuery:
    form: FindingFilterForm
    van: date
    tot: date
    chauffeur_id: uuid.UUID | None
    soort: str
    ernst: str
    volgorde: str
    valid: bool

    def args(self, **extra) -> dict:
        """The query string of this selection (defaults left out)."""
        out = {"van": self.van.isoformat(), "tot": self.tot.isoformat()}
        if self.chauffeur_id:
            out["chauffeur"] = str(self.chauffeur_id)
        if self.soort:
            out["soort"] = self.soort
        if self.ernst:
            out["ernst"] = self.ernst
        if self.volgorde != "ernst":
            out["volgorde"] = self.volgorde
        return {**out, **extra}


def _finding_query() -> FindingQuery:
    form = FindingFilterForm(request.args)
    form.chauffeur.choices = driver_choices(
        drivers.list_drivers(carrier_id=current_carrier_id(), active_only=False),
        _l("Alle chauffeurs"),
    )
    valid = form.validate()
    end = today()
    bad_dates = bool(form.van.errors or form.tot.errors)
    tot = form.tot.data if form.tot.data and not bad_dates else end
    default_van = tot - timedelta(days=WINDOW_DAYS - 1)
    van = form.van.data if form.van.data and not bad_dates else default_van
    if not form.van.raw_data or bad_dates:
        form.van.data = van
    if not form.tot.raw_data or bad_dates:
        form.tot.data = tot
    return FindingQuery(
        form=form,
        van=van,
        tot=tot,
        chauffeur_id=parse_uuid(form.chosen("chauffeur")),
        soort=form.chosen("soort"),
        ernst=form.chosen("ernst"),
        volgorde=form.chosen("volgorde") or "ernst",
        valid=valid,
    )


def _findings_of(query: FindingQuery) -> list:
    zone = current_zone()
    found = driving.findings(
        carrier_id=current_carrier_id(),
        van=period_bound(query.van, zone, end=False),
        tot=period_bound(query.tot, zone, end=True),
        driver_id=query.chauffeur_id,
    )
    if query.soort:
        found = [f for f in found if f.finding.soort == query.soort]
    if query.ernst:
        found = [f for f in found if f.finding.ernst == query.ernst]
    return order_findings(found, query.volgorde)


@driving_bp.get("/rijtijden/overtredingen")
@role_required("planner")
def findings():
    """The carrier's infringements and incomplete checks over a period, filtered and sorted;
    `formaat=csv|xlsx` exports them for the drivers' signatures."""
    query = _finding_query()
    fmt = request.args.get("formaat")
    if fmt in MIMETYPES:
        if not query.valid:
            # Never a file of another period than the one asked for: back to the page, which
            # shows the error at its field.
            args = {k: v for k, v in request.args.items() if k != "formaat"}
            return redirect(url_for("driving.findings", **args), code=303)
        return _export(query, fmt)
    items = _findings_of(query)
    pager, shown = Pager.asked(PAGE_SIZE).of(items)
    args = query.args()
    context = {
        "form": query.form,
        "query": query,
        "items": shown,
        "total": len(items),
        "pager": pager,
        "page_args": args,
        "links": {
            "csv": url_for("driving.findings", **args, formaat="csv"),
            "xlsx": url_for("driving.findings", **args, formaat="xlsx"),
            "clear": url_for("driving.findings"),
        },
        "sort_links": {
            key: url_for("driving.findings", **{**args, "volgorde": key}) for key in SORT_LABELS
        },
        "sort_labels": SORT_LABELS,
    }
    status = 200 if query.valid else 422
    return make_response(render_template("tacho/driving/findings.html", **context), status)


def _export(query: FindingQuery, fmt: str) -> Response:
    items = _findings_of(query)
    carrier = current_carrier_of(current_carrier_id())
    sheet = driving_export.Report(
        vervoerder=carrier.naam,
        van=query.van,
        tot=query.tot,
        items=items,
    )
    body = driving_export.to_csv(sheet) if fmt == "csv" else driving_export.to_xlsx(sheet)
    response = Response(body, mimetype=MIMETYPES[fmt])
    name = f"overtredingen-{query.van.isoformat()}-{query.tot.isoformat()}.{fmt}"
    response.headers["Content-Disposition"] = f"attachment; filename={name}"
    return response
