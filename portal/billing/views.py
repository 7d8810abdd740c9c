"""The billing export in the portal: review unexported lines, export them, download again."""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta

from flask import Blueprint, Response, abort, render_template, request
from flask_babel import gettext as _
from flask_login import current_user

from portal.accounts.permissions import role_required
from portal.accounts.service import carrier_zone
from portal.billing import service
from portal.billing.forms import ExportForm, FilterForm, PeriodForm
from portal.drivers import service as drivers
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.web import is_fragment

bp = Blueprint("billing", __name__)

# The page shows at most this many lines (totals and the export cover them all).
LINES_SHOWN = 500
EXPORTS_PER_PAGE = 20
MIMETYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def default_period(today: date) -> tuple[date, date]:
    """The previous full month.

    Carriers invoice a month once it has closed; exporting a month that is still running
    would split its work over two batches (and two invoices). When the previous month is
    exported already the page says so, and the planner picks another period.
    """
    last = today.replace(day=1) - timedelta(days=1)
    return last.replace(day=1), last


def _with_drivers(form: PeriodForm, carrier_id: uuid.UUID) -> PeriodForm:
    # Inactive drivers too: their completed work is still to be billed.
    form.set_drivers(drivers.list_drivers(carrier_id=carrier_id, active_only=False))
    return form


def _filter_form(formdata, carrier_id: uuid.UUID) -> FilterForm:
    van, tot = default_period(datetime.now(carrier_zone(carrier_id)).date())
    return _with_drivers(FilterForm(formdata, van=van, tot=tot), carrier_id)


def _exports_page() -> int:
    page = request.args.get("pagina", default=1, type=int)
    return min(max(page, 1), 10_000)


def _render(form: FilterForm, *, valid: bool, status: int = 200, problem: str | None = None):
    """The page (or, for htmx, its #billing region) for a checked filter form."""
    carrier_id = current_user.transporteur_id
    rows, totals = None, None
    if valid:
        rows = service.unexported(
            carrier_id=carrier_id,
            van=form.van.data,
            tot=form.tot.data,
            chauffeur_id=form.chauffeur_id,
        )
        totals = service.totals(rows)
    page = _exports_page()
    exports = service.list_exports(
        carrier_id=carrier_id, limit=EXPORTS_PER_PAGE + 1, offset=(page - 1) * EXPORTS_PER_PAGE
    )
    driver_names = {c.value: c.label for c in form.chauffeur.choices if c.value}
    context = {
        "form": form,
        "valid": valid,
        "rows": rows,
        "shown": rows[:LINES_SHOWN] if rows else [],
        "totals": totals,
        "problem": problem,
        "exports": exports[:EXPORTS_PER_PAGE],
        "exports_page": page,
        "more_exports": len(exports) > EXPORTS_PER_PAGE,
        "driver_names": driver_names,
        "filter_args": {
            "van": form.van._value(),
            "tot": form.tot._value(),
            "chauffeur": form.chauffeur.data or "",
        },
    }
    template = "billing/_content.html" if is_fragment() else "billing/index.html"
    return render_template(template, **context), status


@bp.get("/facturatie")
@role_required("planner")
def index():
    form = _filter_form(request.args, current_user.transporteur_id)
    valid = form.validate()
    return _render(form, valid=valid, status=200 if valid else 422)


@bp.post("/facturatie/export")
@role_required("planner")
def export():
    carrier_id = current_user.transporteur_id
    form = _with_drivers(ExportForm(), carrier_id)
    if not form.validate():
        # Show the posted period with its problems at the fields.
        shown = _filter_form(request.form, carrier_id)
        return _render(
            shown,
            valid=shown.validate(),
            status=422,
            problem=None if shown.errors else _("Kies CSV of XLSX."),
        )
    try:
        batch = service.export(
            carrier_id=carrier_id,
            van=form.van.data,
            tot=form.tot.data,
            chauffeur_id=form.chauffeur_id,
            actor_label=current_user.email,
        )
    except ValidationFailed:
        db.session.rollback()
        shown = _filter_form(request.form, carrier_id)
        return _render(
            shown,
            valid=shown.validate(),
            status=422,
            problem=_(
                "Er is niets te exporteren in deze periode: alle regels zijn al geëxporteerd."
            ),
        )
    rows = service.export_rows(carrier_id=carrier_id, export_id=batch.id)[1]
    # Build the file before committing: if that fails, nothing is marked as billed.
    response = _download(batch, rows, form.formaat.data)
    db.session.commit()
    return response


@bp.get("/facturatie/exports/<uuid:export_id>.<any(csv, xlsx):fmt>")
@role_required("planner")
def download(export_id: uuid.UUID, fmt: str):
    try:
        batch, rows = service.export_rows(
            carrier_id=current_user.transporteur_id, export_id=export_id
        )
    except NotFound:
        abort(404)
    return _download(batch, rows, fmt)


def _download(batch, rows, fmt: str) -> Response:
    body = service.to_csv(rows) if fmt == "csv" else service.to_xlsx(rows)
    response = Response(body, mimetype=MIMETYPES[fmt])
    name = f"facturatie-{batch.van.isoformat()}-{batch.tot.isoformat()}.{fmt}"
    response.headers["Content-Disposition"] = f"attachment; filename={name}"
    return response
