"""Invoices for a carrier's accounting package (API keys with invoices:read and
invoices:write): the issued invoices and credit notes, each as it was issued (JSON, or its
stored UBL with Accept: application/xml), a credit note against an invoice, and the billing
export run as the portal runs it: a dry run first, then the same selection with its token."""

from __future__ import annotations

import uuid

from flask import Response, request

from portal.api.core import (
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    write,
)
from portal.billing import invoicing
from portal.billing.invoice_schemas import (
    CreditIn,
    CreditOut,
    ExportIn,
    ExportOut,
    InvoiceOut,
    InvoiceQuery,
    InvoiceSummaryOut,
    serialize_invoice,
    serialize_summary,
)
from portal.errors import Forbidden, NotFound

INVOICE_ID = {"factuur_id": {"description": "the invoice's or credit note's id", "uuid": True}}
XML = {"application/xml": {"schema": {"type": "string", "description": "UBL 2.1 document"}}}
AMOUNTS = 'Amounts are decimal strings with a point ("1234.50"), never JSON numbers.'
ISSUED = (
    "Only issued documents: an invoice waits as a concept (no number, not listed here) until "
    "the carrier's and the customer's details make it an e-invoice; the portal issues it then."
)


def _who():
    who = principal()
    if who.kind != "api_key":
        raise Forbidden("Invoices are read by the carrier's own systems (API keys).")
    return who


def _issued(carrier_id: uuid.UUID, invoice_id: uuid.UUID):
    invoice = invoicing.get_invoice(carrier_id=carrier_id, invoice_id=invoice_id)
    if not invoice.uitgegeven:
        raise NotFound("invoice not found")  # a concept is not an issued document yet
    return invoice


def _full(carrier_id: uuid.UUID, invoice) -> dict:
    lines = invoicing.lines_of(carrier_id=carrier_id, invoice_ids={invoice.id})[invoice.id]
    credits = invoicing.credits_of(carrier_id=carrier_id, invoice_ids={invoice.id})[invoice.id]
    peppol = not invoicing.invoices.peppol_problems(carrier_id=carrier_id, invoice=invoice)
    return serialize_invoice(invoice, lines, [c.id for c in credits], peppol)


@operation(
    "/facturen",
    "GET",
    scope="invoices:read",
    summary="Issued invoices and credit notes, newest first",
    tag="invoices",
    description=f"By issue date (van..tot, both included), customer and kind. {ISSUED} " + AMOUNTS,
    query=InvoiceQuery,
    response=InvoiceSummaryOut,
    many=True,
    errors=(401, 403, 422),
)
def list_invoices():
    who = _who()
    query = parse_query(InvoiceQuery)
    found, total = invoicing.list_documents(
        carrier_id=who.carrier_id,
        filters=invoicing.DocumentFilters(
            van=query.van,
            tot=query.tot,
            klant_id=query.klant_id,
            soort=query.soort,
            limit=query.limit,
            offset=query.offset,
        ),
    )
    return list_response([serialize_summary(i) for i in found], total)


@operation(
    "/facturen/<uuid:factuur_id>",
    "GET",
    scope="invoices:read",
    summary="One issued invoice or credit note, as it was issued",
    tag="invoices",
    description="The document with its lines, its VAT breakdown, the seller and buyer as they "
    "were at issue, and (an invoice) its credit notes. With `Accept: application/xml` the "
    "stored UBL 2.1 document instead: the same bytes at every download (their SHA-256 is "
    "`sha256`, also the ETag). " + AMOUNTS,
    response=InvoiceOut,
    response_content=XML,
    headers={"ETag": "the SHA-256 of the stored UBL document"},
    errors=(401, 403, 404),
    path_params=INVOICE_ID,
)
def get_invoice(factuur_id: uuid.UUID):
    who = _who()
    invoice = _issued(who.carrier_id, factuur_id)
    best = request.accept_mimetypes.best_match(["application/json", "application/xml"])
    if best == "application/xml":
        response = Response(invoice.document, mimetype="application/xml")
        kind = "creditnota" if invoice.is_creditnota else "factuur"
        response.headers["Content-Disposition"] = (
            f"attachment; filename={kind}-{invoice.nummer}.xml"
        )
    else:
        response = json_response(_full(who.carrier_id, invoice))
    response.set_etag(invoice.document_sha256)
    response.headers["Vary"] = "Accept"
    return response.make_conditional(request)


def _amounts(lines) -> dict[uuid.UUID, str]:
    return {line.regel_id: line.bedrag for line in lines}


@operation(
    "/facturen/<uuid:factuur_id>/creditnota",
    "POST",
    scope="invoices:write",
    summary="Credit an issued invoice, and bill corrected lines on a new invoice",
    tag="invoices",
    description="Issues a credit note (UBL CreditNote referring to the invoice) for the "
    "amounts in `regels` (left out: everything still open), and for each line in "
    "`correcties` (credited in full) a new invoice at the amount given. Both are issued, or "
    "neither. The credits against one invoice never add up to more than it: a line with less "
    "left answers 422 (`regels.<id>.bedrag`, code more_than_invoiced, params.resterend). "
    "Another carrier's invoice is 404; a credit note or a concept answers 409 (code "
    "not_an_invoice or not_issued). " + AMOUNTS,
    body=CreditIn,
    response=CreditOut,
    status=201,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=INVOICE_ID,
)
@write
def credit_invoice(factuur_id: uuid.UUID):
    who = _who()
    invoice = invoicing.get_invoice(carrier_id=who.carrier_id, invoice_id=factuur_id)
    body = parse_body(CreditIn)
    note, correction = invoicing.credit(
        carrier_id=who.carrier_id,
        invoice_id=invoice.id,
        reden=body.reden,
        bedragen=None if body.regels is None else _amounts(body.regels),
        correcties=_amounts(body.correcties),
        actor_label=who.actor.label,
    )
    return json_response(
        {
            "creditnota": _full(who.carrier_id, note),
            "factuur": _full(who.carrier_id, correction) if correction else None,
        },
        status=201,
    )


@operation(
    "/facturatie/exporten",
    "POST",
    scope="invoices:write",
    summary="Export billing lines and make their invoices: dry run first, then the real run",
    tag="invoices",
    description="The portal's billing export for an accounting package. `dry_run: true` "
    "changes nothing and answers what would be exported (lines, amounts, the lines held "
    "without a price per reason, which customers get an invoice) and a `token`. The real run "
    "(`dry_run` false) must quote that token and exports exactly what the dry run showed: "
    "when any line of the selection changed, came or went since, it answers 409 with code "
    "export_changed and exports nothing; without a token 422 (`token`). Exported lines are "
    "billed once: a second run finds nothing (422, `periode`). " + AMOUNTS,
    body=ExportIn,
    response=ExportOut,
    status=201,
    also={200: "The dry run: what would be exported, and its token"},
    errors=(401, 403, 409, 413, 415, 422),
)
@write
def run_export():
    who = _who()
    body = parse_body(ExportIn)
    selection = {
        "carrier_id": who.carrier_id,
        "van": body.van,
        "tot": body.tot,
        "driver_id": body.chauffeur_id,
        "klant": body.klant_id,
    }
    preview = invoicing.preview_export(**selection)
    answer = {
        "dry_run": body.dry_run,
        "id": None,
        "regels": preview.regels,
        "bedrag": format(preview.bedrag, "f"),
        "btw_bedrag": format(preview.btw_bedrag, "f"),
        "aangehouden": preview.aangehouden,
        "klanten": preview.facturen,
        "geblokkeerd": preview.geblokkeerd,
        "zonder_klant": preview.zonder_klant,
        "token": preview.token if body.dry_run else None,
        "facturen": [],
        "concepten": 0,
    }
    if body.dry_run:
        return json_response(answer)
    batch, made = invoicing.run_export(**selection, token=body.token, actor_label=who.actor.label)
    issued = [i for i in made if i.uitgegeven]
    answer.update(
        id=str(batch.id),
        regels=batch.regels,
        facturen=[serialize_summary(i) for i in issued],
        concepten=len(made) - len(issued),
    )
    return json_response(answer, status=201)
