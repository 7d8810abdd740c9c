"""Issued invoices and credit notes in the portal (role planner): the list by period, customer
and kind; one document as it was issued, with its credit notes; crediting it (with a new
invoice for lines that should have been billed at another amount); the period's VAT totals
for the VAT return and the ICP declaration, on the page and as CSV or XLSX."""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta
from decimal import Decimal

from babel.numbers import format_decimal
from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from portal import spreadsheets
from portal.accounts.permissions import object_route, role_required
from portal.billing import invoicing as docs
from portal.billing.pages.kit import (
    CREDIT_MESSAGES,
    KIND_LABELS,
    VAT_CATEGORIES,
    VIES_LABELS,
    FieldErrors,
    peppol_text,
    problem_text,
)
from portal.billing.pages.kit import invoices_bp as bp
from portal.customers import service as customers
from portal.errors import Conflict, ValidationFailed
from portal.web.kit import Pager, current_actor, current_carrier_id, current_zone, errors_at_fields

PER_PAGE = 50
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _date_arg(name: str) -> date | None:
    value = request.args.get(name, "").strip()
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _quarter_of(day: date) -> tuple[date, date]:
    start = day.replace(month=((day.month - 1) // 3) * 3 + 1, day=1)
    end = (start + timedelta(days=95)).replace(day=1) - timedelta(days=1)
    return start, end


def _quarter(today: date) -> tuple[date, date]:
    """The quarter a VAT return is being made for: the one before in its first month (the
    return is due by the end of it), else the one under way."""
    start, end = _quarter_of(today)
    if today.month == start.month:
        return _quarter_of(start - timedelta(days=1))
    return start, end


@bp.get("/facturen")
@role_required("planner")
def documents():
    """Issued invoices and credit notes, newest first, by period, customer and kind."""
    carrier_id = current_carrier_id()
    van, tot = _date_arg("van"), _date_arg("tot")
    soort = request.args.get("soort") if request.args.get("soort") in KIND_LABELS else None
    klant = request.args.get("klant", "")
    try:
        klant_id = uuid.UUID(klant) if klant else None
    except ValueError:
        klant_id = None
    pager = Pager.asked(PER_PAGE)
    error = None
    try:
        found, total = docs.list_documents(
            carrier_id=carrier_id,
            filters=docs.DocumentFilters(
                van=van,
                tot=tot,
                klant_id=klant_id,
                soort=soort,
                limit=pager.per_page,
                offset=pager.offset,
            ),
        )
    except ValidationFailed:
        found, total, error = [], 0, _("De einddatum ligt voor de begindatum.")
    args = {
        k: v
        for k, v in {
            "van": van.isoformat() if van else None,
            "tot": tot.isoformat() if tot else None,
            "soort": soort,
            "klant": str(klant_id) if klant_id else None,
        }.items()
        if v
    }
    return render_template(
        "billing/documents.html",
        documents=found,
        pager=pager.counted(total),
        args=args,
        names=customers.names_by_id(
            carrier_id=carrier_id, customer_ids={d.klant_id for d in found}
        ),
        customer_choices=sorted(
            customers.names(carrier_id=carrier_id).items(), key=lambda item: item[1].lower()
        ),
        kinds=KIND_LABELS,
        error=error,
    )


def _document(invoice_id: uuid.UUID):
    return docs.get_invoice(carrier_id=current_carrier_id(), invoice_id=invoice_id)


@object_route(bp, "/facturen/<uuid:invoice_id>", _document)
def show(invoice):
    """One invoice or credit note as it was issued (or, a concept, as it would be)."""
    carrier_id = current_carrier_id()
    view = docs.document_view(carrier_id=carrier_id, invoice=invoice)
    checked = (invoice.vies or {}).get("gecontroleerd_op")
    return render_template(
        "billing/document.html",
        doc=invoice,
        view=view,
        vies_checked=datetime.fromisoformat(checked) if checked else None,
        kinds=KIND_LABELS,
        categories=VAT_CATEGORIES,
        vies_labels=VIES_LABELS,
        problem=problem_text(view.problems) if view.problems else None,
        peppol=peppol_text(view.peppol) if view.peppol else None,
        klant=customers.names_by_id(carrier_id=carrier_id, customer_ids={invoice.klant_id}).get(
            invoice.klant_id
        ),
    )


def _credit_input(lines) -> tuple[dict, dict, dict]:
    """The form's amounts per line id, as typed: to credit, and the corrected amounts."""
    amounts, corrections, typed = {}, {}, {}
    for item in lines:
        key = str(item.regel.id)
        value = request.form.get(f"bedrag-{key}", "").strip()
        fix = request.form.get(f"correctie-{key}", "").strip()
        typed[key] = {"bedrag": value, "correctie": fix}
        if value:
            amounts[item.regel.id] = value
        if fix:
            corrections[item.regel.id] = fix
    return amounts, corrections, typed


def _credit_errors(error: ValidationFailed) -> dict[str, str]:
    """The credit's refusals worded by their code, the first at each field."""
    fields = FieldErrors()
    wording = {**CREDIT_MESSAGES, "more_than_invoiced": _left_to_credit}
    errors_at_fields(fields, error.errors, wording)
    return fields.first()


def _left_to_credit(error: dict) -> str:
    left = _money(Decimal((error.get("params") or {})["resterend"]))
    return str(CREDIT_MESSAGES["more_than_invoiced"]) % {"resterend": left}


def _typed(amount: Decimal) -> str:
    """An amount as the user types it (125,50 in Dutch, 125.50 in English), no grouping."""
    return format_decimal(amount, "0.00", locale=get_locale() or "nl") if amount else ""


def _money(amount: Decimal) -> str:
    from portal.web import money

    return money(amount)


@object_route(bp, "/facturen/<uuid:invoice_id>/crediteren", _document, methods=("GET", "POST"))
def credit(invoice):
    """Credit an issued invoice: per line what to credit (all of what is left by default),
    the reason, and for a line credited in full the amount it should have been (billed
    again on a new invoice). A first POST shows what will be issued; the second issues it."""
    carrier_id = current_carrier_id()
    if invoice.soort != "factuur" or not invoice.uitgegeven:
        abort(404)
    lines = docs.creditable(carrier_id=carrier_id, invoice=invoice)
    typed = {str(i.regel.id): {"bedrag": _typed(i.resterend), "correctie": ""} for i in lines}
    reden = ""
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        amounts, corrections, typed = _credit_input(lines)
        reden = request.form.get("reden", "")
        confirmed = request.form.get("bevestigd") == "1"
        if request.form.get("terug"):  # back from the check, with what was typed
            return _credit_form(invoice, lines, typed, reden, {})
        try:
            plan = docs.plan_credit(
                carrier_id=carrier_id,
                invoice=invoice,
                reden=reden,
                bedragen=amounts,
                correcties=corrections,
            )
        except ValidationFailed as error:
            errors, status = _credit_errors(error), 422
        else:
            if not confirmed:
                return render_template(
                    "billing/credit_confirm.html",
                    doc=invoice,
                    plan=plan,
                    typed=typed,
                    reden=reden,
                )
            issued = _issue_credit(carrier_id, invoice, reden, amounts, corrections)
            if not isinstance(issued, tuple):
                return issued
            errors, status = issued
    return _credit_form(invoice, lines, typed, reden, errors), status


def _credit_form(invoice, lines, typed: dict, reden: str, errors: dict[str, str]) -> str:
    return render_template(
        "billing/credit_form.html",
        doc=invoice,
        lines=lines,
        typed=typed,
        reden=reden,
        errors=errors,
        categories=VAT_CATEGORIES,
    )


def _issue_credit(carrier_id, invoice, reden: str, amounts, corrections):
    """Issue the checked credit: the way to the credit note, or (errors, status) when it
    was refused meanwhile (another credit note) or its correction invoice cannot be made."""
    try:
        note, correction = docs.credit(
            carrier_id=carrier_id,
            invoice_id=invoice.id,
            reden=reden,
            bedragen=amounts,
            correcties=corrections,
            actor_label=current_actor().label,
        )
    except ValidationFailed as error:  # changed meanwhile: another credit note
        return _credit_errors(error), 422
    except docs.NotInvoiceable as error:
        return {"correctie": problem_text(error.extra.get("codes", []))}, 409
    except Conflict:
        abort(409)
    if correction is not None:
        flash(
            _(
                "Creditnota %(credit)s en de nieuwe factuur %(factuur)s zijn uitgegeven.",
                credit=note.nummer,
                factuur=correction.nummer,
            )
        )
    else:
        flash(_("Creditnota %(credit)s is uitgegeven.", credit=note.nummer))
    return redirect(url_for("invoices.show", invoice_id=note.id), code=303)


@bp.get("/btw-overzicht")
@role_required("planner")
def vat_overview():
    """The period's VAT totals per category and rate from the issued documents (credit notes
    subtracted), with the box of the VAT return, and the reverse-charged amounts per customer
    VAT number for the ICP declaration; as CSV or XLSX with ?formaat=."""
    carrier_id = current_carrier_id()
    today = datetime.now(current_zone()).date()
    default_van, default_tot = _quarter(today)
    van, tot = _date_arg("van") or default_van, _date_arg("tot") or default_tot
    error = None
    if tot < van:
        error = _("De einddatum ligt voor de begindatum.")
        van, tot = default_van, default_tot
    report = docs.vat_report(carrier_id=carrier_id, first=van, last=tot)
    fmt = request.args.get("formaat")
    if fmt in ("csv", "xlsx") and not error:
        return _report_file(report, fmt)
    this_quarter = _quarter_of(today)
    return render_template(
        "billing/vat_overview.html",
        report=report,
        van=van,
        tot=tot,
        quarters=[_quarter_of(this_quarter[0] - timedelta(days=1)), this_quarter],
        categories=VAT_CATEGORIES,
        error=error,
    )


def _report_rows(report) -> tuple[list[str], list[list], list[str], list[list]]:
    head = [
        _("Rubriek"),
        _("Categorie"),
        _("Omschrijving"),
        _("Btw-tarief"),
        _("Grondslag"),
        _("Btw"),
        _("Documenten"),
    ]
    rows = [
        [
            row.rubriek or "",
            row.categorie,
            str(VAT_CATEGORIES.get(row.categorie, row.categorie)),
            row.procent,
            row.grondslag,
            row.btw,
            row.documenten,
        ]
        for row in report.rijen
    ]
    icp_head = [_("Btw-nummer"), _("Land"), _("Klant"), _("Diensten (btw verlegd)")]
    icp = [[r.btw_nummer, r.land, r.klant, r.grondslag] for r in report.icp]
    return head, rows, icp_head, icp


def _report_file(report, fmt: str) -> Response:
    head, rows, icp_head, icp = _report_rows(report)
    name = f"btw-overzicht-{report.van.isoformat()}-{report.tot.isoformat()}"
    if fmt == "csv":
        icp_title = [_("Opgaaf intracommunautaire prestaties (ICP)")]
        body = spreadsheets.to_csv([head, *rows, [], icp_title, icp_head, *icp])
        response = Response(body, mimetype="text/csv")
    else:
        book = spreadsheets.new_book()
        sheet = book.active
        sheet.title = _("Btw")
        icp_sheet = book.create_sheet("ICP")
        for target, lines in ((sheet, [head, *rows]), (icp_sheet, [icp_head, *icp])):
            for line in lines:
                values = [float(v) if isinstance(v, Decimal) else v for v in line]
                spreadsheets.append(target, values)
        response = Response(spreadsheets.save(book), mimetype=XLSX)
    response.headers["Content-Disposition"] = f"attachment; filename={name}.{fmt}"
    return response
