"""Invoices and hand prices in the portal (role planner): an export batch's invoices per
customer, issuing a concept, an invoice's stored files, and the price of a line that no
tariff prices. The list of documents, one document and its credit notes are
document_views.py's."""

from __future__ import annotations

import uuid

from flask import Response, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from portal.accounts.permissions import object_route, role_required
from portal.billing import service
from portal.billing.pages.kit import invoices_bp as bp
from portal.billing.pages.kit import peppol_text, problem_text
from portal.billing.pages.tariff_forms import HandPriceForm, reason_text
from portal.customers import service as customers
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.tasks import service as tasks
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields


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


def _required_text(error: dict) -> str:
    """A hand price's missing VAT reason, worded for its category."""
    categorie = (error.get("params") or {}).get("categorie")
    return reason_text(categorie) if categorie is not None else error.get("message", "")


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
                    reden=form.btw_vrijstellingsreden.data,
                )
            except ValidationFailed as error:
                errors_at_fields(form, error.errors, {"required": _required_text})
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
    """An export batch: its invoices (issued, or concepts with what they lack) and the
    customers that got none."""
    carrier_id = current_carrier_id()
    found, rows = service.export_rows(carrier_id=carrier_id, export_id=export_id)
    invoices, missing = service.invoices_of_batch(carrier_id=carrier_id, export_id=export_id)
    names = customers.names_by_id(
        carrier_id=carrier_id,
        customer_ids={i.klant_id for i in invoices} | {m.klant_id for m in missing},
    )
    without = sum(1 for row in rows if row.klant_id is None)
    problems, peppol = {}, {}
    for invoice in invoices:
        if not invoice.uitgegeven:
            problems[invoice.id] = service.invoice_problems(
                carrier_id=carrier_id, invoice_id=invoice.id
            )
        found_peppol = service.invoice_peppol_problems(carrier_id=carrier_id, invoice=invoice)
        if found_peppol:
            peppol[invoice.id] = peppol_text(found_peppol)
    # The seller's gaps are the same on every concept: said once above the table.
    seller = tuple(
        dict.fromkeys(c for codes in problems.values() for c in codes if c.startswith("seller_"))
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
        problems={
            key: problem_text([c for c in codes if not c.startswith("seller_")])
            for key, codes in problems.items()
            if any(not c.startswith("seller_") for c in codes)
        },
        blocked={key for key, codes in problems.items() if codes},
        peppol=peppol,
    )


def _invoice(invoice_id: uuid.UUID):
    return service.get_invoice(carrier_id=current_carrier_id(), invoice_id=invoice_id)


@object_route(bp, "/facturen/<uuid:invoice_id>/uitgeven", _invoice, methods=("POST",))
def issue(invoice):
    """Issue a concept invoice once nothing is missing: numbered and stored for good."""
    back = url_for("invoices.batch", export_id=invoice.export_id) if invoice.export_id else None
    try:
        issued = service.issue_invoice(
            carrier_id=current_carrier_id(),
            invoice_id=invoice.id,
            actor_label=current_actor().label,
        )
    except service.NotInvoiceable as error:
        flash(problem_text(error.extra.get("codes", [])), "error")
        return redirect(back or url_for("invoices.show", invoice_id=invoice.id), code=303)
    except Conflict:
        flash(_("Deze factuur is al uitgegeven."), "error")
        return redirect(url_for("invoices.show", invoice_id=invoice.id), code=303)
    flash(_("Factuur %(nummer)s is uitgegeven.", nummer=issued.nummer))
    return redirect(url_for("invoices.show", invoice_id=issued.id), code=303)


@bp.get("/facturen/<uuid:invoice_id>.xml")
@role_required("planner")
def ubl(invoice_id: uuid.UUID):
    """The issued document as UBL 2.1 (Peppol BIS Billing 3.0): its stored bytes, the same at
    every download. A concept has none: its page says what it lacks."""
    return _stored(invoice_id, pdf=False)


@bp.get("/facturen/<uuid:invoice_id>.pdf")
@role_required("planner")
def pdf(invoice_id: uuid.UUID):
    """The issued document as PDF, stored with it at issue."""
    return _stored(invoice_id, pdf=True)


def _stored(invoice_id: uuid.UUID, *, pdf: bool) -> Response:
    carrier_id = current_carrier_id()
    try:
        invoice, body = service.invoice_document(
            carrier_id=carrier_id, invoice_id=invoice_id, pdf=pdf
        )
    except service.NotIssued as error:
        codes = error.extra.get("codes")
        flash(problem_text(codes) if codes else _("Deze factuur is nog niet uitgegeven."), "error")
        return redirect(url_for("invoices.show", invoice_id=invoice_id), code=303)
    response = Response(body, mimetype="application/pdf" if pdf else "application/xml")
    kind = "creditnota" if invoice.is_creditnota else "factuur"
    name = f"{kind}-{invoice.nummer}.{'pdf' if pdf else 'xml'}"
    response.headers["Content-Disposition"] = f"attachment; filename={name}"
    if not pdf:
        response.set_etag(invoice.document_sha256)
    return response


# The documents' routes join the blueprint after these (the URL map's order, as before).
from portal.billing.pages import documents  # noqa: E402, F401
