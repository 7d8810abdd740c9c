"""The billing export in the portal: review unexported lines, export them, download again."""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta

from flask import Response, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user

from portal.accounts.permissions import object_route, role_required
from portal.accounts.service import carrier_zone
from portal.billing import service
from portal.billing.pages.forms import ExportForm, ExportQueryForm, FilterForm, PeriodForm
from portal.billing.pages.kit import billing_bp as bp
from portal.billing.pages.tariff_forms import ROUNDING_LABELS, VAT_CATEGORY_LABELS
from portal.customers import service as customers
from portal.drivers import service as drivers
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.tasks import service as tasks
from portal.tasks.pages.forms import STATUS_LABELS
from portal.unit_of_work import portal_write
from portal.web import is_fragment
from portal.web.kit import current_actor, current_carrier_id

# The page shows at most this many lines (totals and the export cover them all).
LINES_SHOWN = 500
EXPORTS_PER_PAGE = 20
DOWNLOAD_KEY = "billing_download"
MIMETYPES = {
    "csv": "text/csv",  # Response adds "; charset=utf-8" to a text/* type
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def default_period(today: date) -> tuple[date, date]:
    """The current month, first to last day: what the planner is busy billing.

    Completed work shows up here the moment it is completed, so the month under way is what
    a planner opens the page for; earlier months are one period change away.
    """
    first = today.replace(day=1)
    last = (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    return first, last


def _with_drivers(form: PeriodForm, carrier_id: uuid.UUID) -> PeriodForm:
    # Inactive drivers and customers too: their completed work is still to be billed.
    form.set_drivers(drivers.list_drivers(carrier_id=carrier_id, active_only=False))
    form.set_customers(customers.names(carrier_id=carrier_id))
    return form


def _filter_form(formdata, carrier_id: uuid.UUID) -> FilterForm:
    van, tot = default_period(datetime.now(carrier_zone(carrier_id)).date())
    return _with_drivers(FilterForm(formdata, van=van, tot=tot), carrier_id)


def _exports_page() -> int:
    page = request.args.get("pagina", default=1, type=int)
    return min(max(page, 1), 10_000)


def _render(
    form: FilterForm,
    *,
    valid: bool,
    status: int = 200,
    problem: str | None = None,
    download: dict | None = None,
):
    """The page (or, for htmx, its #billing region) for a checked filter form."""
    carrier_id = current_carrier_id()
    rows, totals, reopened = None, None, []
    if valid:
        rows = service.unexported(
            carrier_id=carrier_id,
            van=form.van.data,
            tot=form.tot.data,
            driver_id=form.chauffeur_id,
            klant=form.klant_value,
        )
        totals = service.totals(rows)
        reopened = service.reopened_after_export(
            carrier_id=carrier_id,
            van=form.van.data,
            tot=form.tot.data,
            driver_id=form.chauffeur_id,
        )
    page = _exports_page()
    exports = service.list_exports(
        carrier_id=carrier_id, limit=EXPORTS_PER_PAGE + 1, offset=(page - 1) * EXPORTS_PER_PAGE
    )
    context = {
        "form": form,
        "valid": valid,
        "rows": rows,
        "shown": rows[:LINES_SHOWN] if rows else [],
        "totals": totals,
        "reopened": reopened,
        "status_labels": STATUS_LABELS,
        "problem": problem,
        "download": download,
        "exports": exports[:EXPORTS_PER_PAGE],
        "exports_page": page,
        "more_exports": len(exports) > EXPORTS_PER_PAGE,
        "driver_names": _driver_names(form),
        "customer_names": _customer_names(form),
        "invoice_counts": service.invoice_counts(
            carrier_id=carrier_id, export_ids={batch.id for batch in exports}
        ),
        "filter_args": _filter_args(form),
        "vat_labels": VAT_CATEGORY_LABELS,
        "rounding_labels": ROUNDING_LABELS,
    }
    template = "billing/_content.html" if is_fragment() else "billing/index.html"
    return render_template(template, **context), status


def _driver_names(form: PeriodForm) -> dict[str, str]:
    return {c.value: c.label for c in form.chauffeur.choices if c.value}


def _customer_names(form: PeriodForm) -> dict[str, str]:
    return {c.value: c.label for c in form.klant.choices if c.value}


def _filter_args(form: PeriodForm) -> dict[str, str]:
    return {
        "van": form.van._value(),
        "tot": form.tot._value(),
        "chauffeur": form.chauffeur.data or "",
        "klant": form.klant.data or "",
    }


def _just_exported(carrier_id: uuid.UUID) -> dict | None:
    """The batch this planner just exported, once: its file downloads as the page opens."""
    if is_fragment():
        return None
    made = session.pop(DOWNLOAD_KEY, None)
    if not isinstance(made, dict) or made.get("formaat") not in MIMETYPES:
        return None
    try:
        batch = service.get_export(carrier_id=carrier_id, export_id=uuid.UUID(str(made["id"])))
    except (NotFound, ValueError):
        return None
    fmt = made["formaat"]
    return {
        "batch": batch,
        "formaat": fmt,
        "url": url_for("billing.download", export_id=batch.id, fmt=fmt),
    }


@bp.get("/facturatie")
@role_required("planner")
def index():
    carrier_id = current_carrier_id()
    form = _filter_form(request.args, carrier_id)
    valid = form.validate()
    return _render(
        form, valid=valid, status=200 if valid else 422, download=_just_exported(carrier_id)
    )


def _refused(formdata, problem: str | None):
    """The page for a refused export: the period asked for, its problems at the fields."""
    shown = _filter_form(formdata, current_carrier_id())
    valid = shown.validate()
    return _render(shown, valid=valid, status=422, problem=None if shown.errors else problem)


NOTHING_TO_EXPORT = _l(
    "Er is niets te exporteren in deze periode: alle regels zijn al geëxporteerd."
)


@bp.get("/facturatie/export")
@role_required("planner")
def confirm_export():
    """Ask before exporting: the export marks the lines as billed (a page, no script needed)."""
    carrier_id = current_carrier_id()
    form = _with_drivers(ExportQueryForm(request.args), carrier_id)
    if not form.validate():
        return _refused(request.args, _("Kies CSV of XLSX."))
    rows = service.unexported(
        carrier_id=carrier_id,
        van=form.van.data,
        tot=form.tot.data,
        driver_id=form.chauffeur_id,
        klant=form.klant_value,
    )
    if not rows:
        return _refused(request.args, str(NOTHING_TO_EXPORT))
    return render_template(
        "billing/confirm_export.html",
        form=form,
        totals=service.totals(rows),
        invoiceable=service.invoiceable(rows),
        driver_names=_driver_names(form),
        customer_names=_customer_names(form),
        filter_args=_filter_args(form),
        formaat=form.formaat.data,
    )


@bp.post("/facturatie/export")
@role_required("planner")
@portal_write
def export():
    """Export the confirmed lines, mark them billed, and return to the page, which starts the
    file's download (post/redirect/get: a reload neither exports nor downloads again)."""
    carrier_id = current_carrier_id()
    form = _with_drivers(ExportForm(), carrier_id)
    if not form.validate():
        return _refused(request.form, _("Kies CSV of XLSX."))
    try:
        batch = service.export(
            carrier_id=carrier_id,
            van=form.van.data,
            tot=form.tot.data,
            driver_id=form.chauffeur_id,
            klant=form.klant_value,
            actor_label=current_user.email,
        )
    except ValidationFailed:
        return _refused(request.form, str(NOTHING_TO_EXPORT))
    session[DOWNLOAD_KEY] = {"id": str(batch.id), "formaat": form.formaat.data}
    return redirect(url_for("billing.index", **_filter_args(form)), code=303)


@bp.get("/facturatie/exports/<uuid:export_id>.<any(csv, xlsx):fmt>")
@role_required("planner")
def download(export_id: uuid.UUID, fmt: str):
    batch, rows = service.export_rows(carrier_id=current_carrier_id(), export_id=export_id)
    return _download(batch, rows, fmt)


def _download(batch, rows, fmt: str) -> Response:
    body = service.to_csv(rows) if fmt == "csv" else service.to_xlsx(rows)
    response = Response(body, mimetype=MIMETYPES[fmt])
    name = f"facturatie-{batch.van.isoformat()}-{batch.tot.isoformat()}.{fmt}"
    response.headers["Content-Disposition"] = f"attachment; filename={name}"
    return response


def _held_line(task_id: uuid.UUID):
    """The task (archived ones too) of a billing line; 404 for another carrier's."""
    carrier_id = current_carrier_id()
    if service.line_of_task(carrier_id=carrier_id, task_id=task_id) is None:
        raise NotFound("billing line not found")
    return tasks.get_task(carrier_id=carrier_id, task_id=task_id, archived=True)


@object_route(bp, "/facturatie/regels/<uuid:task_id>/nul-bevestigen", _held_line, methods=("POST",))
def confirm_zero(task):
    """Confirm a line held at € 0.00 (its tariff has a price): it is priced by hand at 0.00,
    audited, and goes on the invoice."""
    back = {k: request.form[k] for k in ("van", "tot", "chauffeur", "klant") if k in request.form}
    try:
        service.confirm_zero_amount(
            carrier_id=current_carrier_id(), task_id=task.id, actor=current_actor()
        )
    except Conflict:
        flash(
            _("De regel van “%(naam)s” staat niet (meer) op € 0,00 vast.", naam=task.naam), "error"
        )
    else:
        flash(_("De regel van “%(naam)s” is bevestigd op € 0,00.", naam=task.naam))
    return redirect(url_for("billing.index", **back) + f"#line-{task.id}", code=303)
