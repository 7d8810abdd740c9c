"""What a concept invoice would say if issued now (its UBL document, from the billing lines
of its batch and customer), what keeps it from being issued or from going over Peppol, and
the buyer's VIES answer the document keeps. Reads only: invoices.py numbers and stores."""

from __future__ import annotations

import uuid
from dataclasses import replace
from decimal import Decimal

from flask_babel import force_locale
from sqlalchemy import and_, or_, select

from portal.accounts.service import carrier_zone, get_carrier
from portal.billing import documents, pricing, ubl
from portal.billing.models import BillingExport, BillingLine, Invoice, Tariff
from portal.customers import service as customers
from portal.extensions import db
from portal.identifiers import compact
from portal.labels import activity_label
from portal.tasks import completed_work


def _line_name(naam: str, kind: str) -> str:
    """A line's item name: the task and its activity, in Dutch (the document's language, the
    same whoever issues it and wherever: a page, the API, a command)."""
    with force_locale("nl"):
        return f"{naam} ({activity_label(kind)})"[:200]


def draft(*, carrier_id: uuid.UUID, invoice: Invoice) -> tuple[ubl.Invoice, list[documents.Source]]:
    """What a concept invoice would say if issued now: the carrier as seller, the customer
    (its invoice address) as buyer, its batch's lines of the customer, with where each came
    from. The number is left blank."""
    carrier = get_carrier(carrier_id=carrier_id)
    customer = customers.get_customer(carrier_id=carrier_id, customer_id=invoice.klant_id)
    lines, sources = _document_lines(carrier_id, invoice)
    batch = db.session.scalar(
        select(BillingExport).where(
            BillingExport.transporteur_id == carrier_id, BillingExport.id == invoice.export_id
        )
    )
    days = [line.datum for line in lines]
    data = ubl.Invoice(
        nummer=invoice.nummer or "",
        datum=invoice.datum,
        vervaldatum=invoice.vervaldatum,
        verkoper=documents.seller(carrier),
        koper=documents.buyer(customer),
        regels=lines,
        koper_referentie=customer.debiteurnummer or invoice.nummer or "",
        # The batch's period, widened to the days of its lines (a line's planned day may
        # lie before the day it was completed).
        periode_van=min([batch.van, *days]) if batch else None,
        periode_tot=max([batch.tot, *days]) if batch else None,
        iban=carrier.iban,
        betaalreferentie=invoice.nummer,
        valuta=invoice.valuta,
    )
    return data, sources


def _document_lines(
    carrier_id: uuid.UUID, invoice: Invoice
) -> tuple[list[ubl.Line], list[documents.Source]]:
    """The invoice's lines: its batch's lines of its customer (of VAT category O or not, as
    the invoice is), in the order they were completed, with where each came from."""
    zone = carrier_zone(carrier_id)
    group = BillingLine.btw_categorie == "O"
    if not invoice.niet_belast:
        group = or_(BillingLine.btw_categorie.is_(None), BillingLine.btw_categorie != "O")
    task = completed_work.facts()
    rows = db.session.execute(
        select(
            BillingLine, task.c.naam, task.c.type, task.c.gepland_op, Tariff.prijs, Tariff.grondslag
        )
        .join(
            task,
            and_(
                task.c.transporteur_id == BillingLine.transporteur_id,
                task.c.id == BillingLine.taak_id,
            ),
        )
        .outerjoin(
            Tariff,
            and_(
                Tariff.transporteur_id == BillingLine.transporteur_id,
                Tariff.id == BillingLine.tarief_id,
            ),
        )
        .where(
            BillingLine.transporteur_id == carrier_id,
            BillingLine.export_id == invoice.export_id,
            BillingLine.klant_id == invoice.klant_id,
            group,
        )
        .order_by(BillingLine.afgerond_op, BillingLine.id)
    ).all()
    lines, sources = [], []
    for index, (line, naam, kind, planned, price, basis) in enumerate(rows, start=1):
        hourly = line.uren is not None
        lines.append(
            ubl.Line(
                id=str(index),
                naam=_line_name(naam, kind),
                omschrijving=line.opmerkingen,
                hoeveelheid=pricing.decimal(line.uren if hourly else line.hoeveelheid),
                eenheid="uur" if hourly else line.eenheid,
                prijs=pricing.decimal(price) if basis in ("eenheid", "uur", "km") else None,
                bedrag=pricing.decimal(line.bedrag) or Decimal(0),
                btw_procent=pricing.decimal(line.btw_procent),
                btw_categorie=line.btw_categorie,
                btw_vrijstellingsreden=line.btw_vrijstellingsreden,
                datum=(planned or line.afgerond_op).astimezone(zone).date(),
            )
        )
        sources.append(documents.Source(line.id, line.taak_id))
    return lines, sources


def vies_of(customer, data: ubl.Invoice) -> dict | None:
    """The buyer's VIES answer as the document keeps it: for a reverse-charged invoice only."""
    if not any(ubl.category(line) == "AE" for line in data.regels):
        return None
    number = compact(customer.btw_nummer)
    if customer.vies_status and customer.vies_btw_nummer == number:
        return {
            "btw_nummer": number,
            "status": customer.vies_status,
            "naam": customer.vies_naam,
            "gecontroleerd_op": customer.vies_gecontroleerd_op.isoformat(),
        }
    return {"btw_nummer": number, "status": "niet_gecontroleerd"}


def issue_problems(carrier_id: uuid.UUID, invoice: Invoice) -> tuple[str, ...]:
    data, _sources = draft(carrier_id=carrier_id, invoice=invoice)
    found = list(ubl.problems(replace(data, nummer="-", koper_referentie="-")))
    customer = customers.get_customer(carrier_id=carrier_id, customer_id=invoice.klant_id)
    vies = vies_of(customer, data)
    if vies and vies["status"] == "ongeldig":
        found.append("buyer_vat_not_in_vies")
    return tuple(found)


def peppol_problems(*, carrier_id: uuid.UUID, invoice: Invoice) -> tuple[str, ...]:
    """What keeps the invoice from going over Peppol (it goes by e-mail then)."""
    if invoice.uitgegeven:
        return ubl.peppol_problems(_stored_header(invoice))
    data, _sources = draft(carrier_id=carrier_id, invoice=invoice)
    return ubl.peppol_problems(data)


def _stored_header(invoice: Invoice) -> ubl.Invoice:
    return ubl.Invoice(
        nummer=invoice.nummer,
        datum=invoice.datum,
        verkoper=documents.party_from_json(invoice.verkoper),
        koper=documents.party_from_json(invoice.koper),
        regels=(),
        koper_referentie=invoice.nummer,
    )
