"""Invoices and hand prices in the portal (role planner): an export batch's invoices per
customer with their UBL files, and the price of a line that no tariff prices."""

from __future__ import annotations

import uuid

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import object_route, role_required
from portal.billing import service
from portal.billing.tariff_forms import HandPriceForm
from portal.customers import service as customers
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.tasks import service as tasks
from portal.web import errors_at_fields
from portal.web.kit import current_actor, current_carrier_id

bp = Blueprint("invoices", __name__, url_prefix="/facturatie")

# What an e-invoice still lacks (ubl.problems codes), as the planner reads it.
PROBLEMS = {
    "seller_no_vat": _l("het btw-nummer van je bedrijf"),
    "seller_vat_invalid": _l("een geldig btw-nummer van je bedrijf"),
    "seller_no_kvk": _l("het KvK-nummer van je bedrijf"),
    "seller_kvk_invalid": _l("een geldig KvK-nummer van je bedrijf"),
    "seller_no_iban": _l("het IBAN van je bedrijf"),
    "seller_iban_invalid": _l("een geldig IBAN van je bedrijf"),
    "seller_no_endpoint": _l("het KvK- of btw-nummer van je bedrijf"),
    "seller_address_incomplete": _l("het adres van je bedrijf (straat, postcode en plaats)"),
    "seller_no_name": _l("de naam van je bedrijf"),
    "seller_no_country": _l("het land van je bedrijf"),
    "buyer_no_endpoint": _l("het btw-nummer van de klant"),
    "buyer_vat_invalid": _l("een geldig btw-nummer van de klant"),
    "buyer_address_incomplete": _l(
        "het adres van de klant (straat, postcode en plaats van zijn eerste locatie)"
    ),
    "buyer_no_name": _l("de naam van de klant"),
    "buyer_no_country": _l("het land van de klant"),
}


def problem_text(codes) -> str:
    """The codes as one sentence: "Nog nodig: het IBAN van je bedrijf, ..."."""
    parts = [str(PROBLEMS.get(code, code)) for code in codes]
    return _("Voor een e-factuur is nog nodig: %(list)s.", list=", ".join(parts))


def _filter_args() -> dict[str, str]:
    """The billing page's period and filters to go back to (only the keys it knows)."""
    return {
        k: request.values[k] for k in ("van", "tot", "chauffeur", "klant") if k in request.values
    }


# --- hand prices --------------------------------------------------------------------------


def _line(task_id: uuid.UUID):
    """The task's billing line and the task (archived ones too); 404 for another carrier's."""
    carrier_id = current_carrier_id()
    line = service.line_of_task(carrier_id=carrier_id, task_id=task_id)
    if line is None:
        raise NotFound("billing line not found")
    return line, tasks.get_task(carrier_id=carrier_id, task_id=task_id, archived=True)


@object_route(bp, "/regels/<uuid:task_id>/prijs", _line, methods=("GET", "POST"))
def hand_price(line, task):
    """Price a line by hand (or correct its price), or give it back to its tariff."""
    carrier_id = current_carrier_id()
    task_id = task.id
    back = url_for("billing.index", **_filter_args()) + f"#line-{task_id}"
    form = HandPriceForm(request.form if request.method == "POST" else None)
    if request.method == "GET" and line.bedrag is not None:
        form.bedrag.data, form.btw_procent.data = line.bedrag, line.btw_procent
    problem = None
    if line.export_id is not None:
        problem = _("Deze regel is al geëxporteerd: de factuur is verstuurd.")
    elif request.method == "POST":
        by_tariff = request.form.get("actie") == "tarief"
        if by_tariff or form.validate():
            try:
                service.price_by_hand(
                    carrier_id=carrier_id,
                    task_id=task_id,
                    bedrag=None if by_tariff else form.bedrag.data,
                    btw_procent=form.btw_procent.data,
                    actor=current_actor(),
                )
            except ValidationFailed as error:
                errors_at_fields(form, error.errors, {})
            except Conflict:
                problem = _("Deze regel is al geëxporteerd: de factuur is verstuurd.")
            else:
                if by_tariff:
                    flash(_("De regel van “%(naam)s” volgt weer het tarief.", naam=task.naam))
                else:
                    flash(_("De prijs van “%(naam)s” is vastgelegd.", naam=task.naam))
                return redirect(back, code=303)
    status = 200
    if problem:
        status = 409
    elif request.method == "POST":
        status = 422
    return (
        render_template(
            "billing/hand_price.html",
            form=form,
            line=line,
            task=task,
            back=back,
            problem=problem,
            filter_args=_filter_args(),
            klant=customers.names_by_id(carrier_id=carrier_id, customer_ids={line.klant_id}).get(
                line.klant_id
            ),
        ),
        status,
    )


# --- invoices -----------------------------------------------------------------------------


@bp.get("/exports/<uuid:export_id>")
@role_required("planner")
def batch(export_id: uuid.UUID):
    """An export batch: its invoices (UBL downloads) and the customers that got none."""
    carrier_id = current_carrier_id()
    found, rows = service.export_rows(carrier_id=carrier_id, export_id=export_id)
    invoices, missing = service.invoices_of_batch(carrier_id=carrier_id, export_id=export_id)
    names = customers.names_by_id(
        carrier_id=carrier_id,
        customer_ids={i.klant_id for i in invoices} | {m.klant_id for m in missing},
    )
    without = sum(1 for row in rows if row.klant_id is None)
    # The seller's gaps are the same on every invoice: read them off the first one.
    seller = ()
    if invoices:
        seller = tuple(
            code
            for code in service.invoice_problems(carrier_id=carrier_id, invoice_id=invoices[0].id)
            if code.startswith("seller_")
        )
    return render_template(
        "billing/batch.html",
        batch=found,
        totals=service.totals(rows),
        invoices=invoices,
        missing=missing,
        without=without,
        names=names,
        seller_problem=problem_text(seller) if seller else None,
    )


@bp.get("/facturen/<uuid:invoice_id>.xml")
@role_required("planner")
def ubl(invoice_id: uuid.UUID):
    """The invoice as UBL 2.1 (Peppol BIS Billing 3.0); what it lacks, said on its batch."""
    carrier_id = current_carrier_id()
    try:
        invoice, body = service.invoice_ubl(carrier_id=carrier_id, invoice_id=invoice_id)
    except service.NotInvoiceable as error:
        flash(problem_text(error.extra.get("codes", [])), "error")
        found = service.get_invoice(carrier_id=carrier_id, invoice_id=invoice_id)
        return redirect(url_for("invoices.batch", export_id=found.export_id), code=303)
    response = Response(body, mimetype="application/xml")
    response.headers["Content-Disposition"] = f"attachment; filename=factuur-{invoice.nummer}.xml"
    return response
