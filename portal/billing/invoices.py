"""Invoices (facturen) and hand prices: the billing domain's door to facturen.

An export batch makes one invoice per customer whose lines in it are all priced: numbered
in the carrier's own series (2026-00001, 2026-00002, ...), dated the day of the export,
due after the carrier's payment term. The invoice is the input of the carrier's invoicing
as a UBL 2.1 file (Peppol BIS Billing 3.0, ubl.py). A customer with an unpriced line in
the batch gets no invoice: the page says why, and the lines can be priced by hand first.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import and_, func, select, text

from portal.accounts.service import carrier_zone, get_carrier
from portal.billing import pricing, ubl
from portal.billing.models import BillingExport, BillingLine, Invoice
from portal.customers import service as customers
from portal.errors import Conflict, NotFound
from portal.extensions import db
from portal.labels import ACTIVITY_LABELS
from portal.tasks.models import Task

logger = logging.getLogger(__name__)

# --- invoices ------------------------------------------------------------------------------


def _next_numbers(carrier_id: uuid.UUID, year: int, count: int) -> list[str]:
    """The next `count` numbers of the carrier's series for the year. Exports of one carrier
    take numbers one at a time (a transaction lock on PostgreSQL), so none is given twice;
    the unique constraint backs it up."""
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(
            text("SELECT pg_advisory_xact_lock(hashtext('facturen:' || :carrier))"),
            {"carrier": str(carrier_id)},
        )
    prefix = f"{year}-"
    last = db.session.scalar(
        select(func.max(Invoice.nummer)).where(
            Invoice.transporteur_id == carrier_id, Invoice.nummer.like(prefix + "%")
        )
    )
    start = int(last[len(prefix) :]) + 1 if last else 1
    return [f"{prefix}{n:05d}" for n in range(start, start + count)]


@dataclass(frozen=True)
class Uninvoiced:
    """A customer in a batch without an invoice: some of its lines have no price."""

    klant_id: uuid.UUID
    ongeprijsd: int


@dataclass(frozen=True)
class Invoiceable:
    """What an export of some rows would invoice: customers (names) that get an invoice,
    those that would not (an unpriced line), and lines of tasks without a customer."""

    gefactureerd: list[str]
    geblokkeerd: list[str]
    zonder_klant: int


def invoiceable(rows) -> Invoiceable:
    """The invoices an export of these BillingRows would make (no query)."""
    complete: dict[str, bool] = {}
    without = 0
    for row in rows:
        if row.klant_id is None:
            without += 1
            continue
        name = row.klant or str(row.klant_id)
        complete[name] = complete.get(name, True) and row.bedrag is not None
    names = sorted(complete, key=str.lower)
    return Invoiceable(
        gefactureerd=[n for n in names if complete[n]],
        geblokkeerd=[n for n in names if not complete[n]],
        zonder_klant=without,
    )


def make_for_batch(*, carrier_id: uuid.UUID, batch: BillingExport) -> list[Invoice]:
    """The invoices of a new batch: one per customer whose lines are all priced."""
    per_customer: dict[uuid.UUID, list] = {}
    for klant_id, rate, count, priced, net in db.session.execute(
        select(
            BillingLine.klant_id,
            BillingLine.btw_procent,
            func.count(),
            func.count(BillingLine.bedrag),
            func.sum(BillingLine.bedrag),
        )
        .where(
            BillingLine.transporteur_id == carrier_id,
            BillingLine.export_id == batch.id,
            BillingLine.klant_id.is_not(None),
        )
        .group_by(BillingLine.klant_id, BillingLine.btw_procent)
    ):
        totals = per_customer.setdefault(klant_id, [0, 0, []])
        totals[0] += count
        totals[1] += priced
        if net is not None:
            totals[2].append((pricing.decimal(net), pricing.decimal(rate)))
    complete = [
        (klant_id, count, sum((n for n, _r in amounts), Decimal(0)), pricing.vat_per_rate(amounts))
        for klant_id, (count, priced, amounts) in per_customer.items()
        if count == priced
    ]
    if not complete:
        return []
    zone = carrier_zone(carrier_id)
    day = batch.created_at.astimezone(zone).date()
    term = get_carrier(carrier_id=carrier_id).betaaltermijn_dagen
    names = customers.names_by_id(carrier_id=carrier_id, customer_ids={r[0] for r in complete})
    complete.sort(key=lambda row: (names.get(row[0], "").lower(), str(row[0])))
    numbers = _next_numbers(carrier_id, day.year, len(complete))
    made = []
    for number, (klant_id, count, net, vat) in zip(numbers, complete, strict=True):
        invoice = Invoice(
            transporteur_id=carrier_id,
            id=uuid.uuid4(),
            export_id=batch.id,
            klant_id=klant_id,
            nummer=number,
            datum=day,
            vervaldatum=day + timedelta(days=term),
            regels=count,
            bedrag=pricing.cents(net),
            btw_bedrag=vat,
        )
        db.session.add(invoice)
        made.append(invoice)
    db.session.flush()
    logger.info("billing export %s: %s invoices", batch.id, len(made))
    return made


def of_batch(
    *, carrier_id: uuid.UUID, export_id: uuid.UUID
) -> tuple[list[Invoice], list[Uninvoiced]]:
    """A batch's invoices by number, and its customers that got none (unpriced lines)."""
    invoices = list(
        db.session.scalars(
            select(Invoice)
            .where(Invoice.transporteur_id == carrier_id, Invoice.export_id == export_id)
            .order_by(Invoice.nummer)
        )
    )
    invoiced = {invoice.klant_id for invoice in invoices}
    missing = [
        Uninvoiced(klant_id=row[0], ongeprijsd=row[1] - row[2])
        for row in db.session.execute(
            select(BillingLine.klant_id, func.count(), func.count(BillingLine.bedrag))
            .where(
                BillingLine.transporteur_id == carrier_id,
                BillingLine.export_id == export_id,
                BillingLine.klant_id.is_not(None),
            )
            .group_by(BillingLine.klant_id)
        )
        if row[0] not in invoiced
    ]
    return invoices, missing


def of_batches(*, carrier_id: uuid.UUID, export_ids: set[uuid.UUID]) -> dict[uuid.UUID, int]:
    """How many invoices each batch made (one query): for the list of exports."""
    if not export_ids:
        return {}
    rows = db.session.execute(
        select(Invoice.export_id, func.count())
        .where(Invoice.transporteur_id == carrier_id, Invoice.export_id.in_(export_ids))
        .group_by(Invoice.export_id)
    )
    return dict(rows.all())


def get_invoice(*, carrier_id: uuid.UUID, invoice_id: uuid.UUID) -> Invoice:
    invoice = db.session.scalar(
        select(Invoice).where(Invoice.transporteur_id == carrier_id, Invoice.id == invoice_id)
    )
    if invoice is None:
        raise NotFound("invoice not found")
    return invoice


class NotInvoiceable(Conflict):
    """The invoice cannot be an e-invoice yet: `codes` (ubl.problems) say what the seller,
    the buyer or the lines lack, for the page to word."""

    title = "Not invoiceable"


def _party(*, naam, btw, kvk, adres, postcode, stad, land, email) -> ubl.Party:
    return ubl.Party(
        naam=naam,
        btw_nummer=btw,
        kvk_nummer=kvk,
        adres=adres,
        postcode=postcode,
        stad=stad,
        land=land or "NL",
        email=email,
    )


def document(*, carrier_id: uuid.UUID, invoice_id: uuid.UUID) -> tuple[Invoice, ubl.Invoice]:
    """The invoice with everything its e-invoice names: the carrier as seller (its home
    base the address), the customer as buyer (its first place the address), the lines."""
    invoice = get_invoice(carrier_id=carrier_id, invoice_id=invoice_id)
    carrier = get_carrier(carrier_id=carrier_id)
    customer = customers.get_customer(carrier_id=carrier_id, customer_id=invoice.klant_id)
    places = customers.places_by_customer(carrier_id=carrier_id, customer_ids={customer.id})
    place = next(iter(places[customer.id]), None)
    zone = carrier_zone(carrier_id)
    rows = db.session.execute(
        select(BillingLine, Task.naam, Task.type, Task.gepland_op)
        .join(
            Task,
            and_(
                Task.transporteur_id == BillingLine.transporteur_id,
                Task.id == BillingLine.taak_id,
            ),
        )
        .where(
            BillingLine.transporteur_id == carrier_id,
            BillingLine.export_id == invoice.export_id,
            BillingLine.klant_id == invoice.klant_id,
        )
        .order_by(BillingLine.afgerond_op, BillingLine.id)
    ).all()
    lines = [
        ubl.Line(
            id=str(index),
            naam=f"{naam} ({ACTIVITY_LABELS.get(kind, kind)})"[:200],
            omschrijving=line.opmerkingen,
            hoeveelheid=pricing.decimal(line.hoeveelheid),
            eenheid=line.eenheid,
            bedrag=pricing.decimal(line.bedrag),
            btw_procent=pricing.decimal(line.btw_procent),
            datum=(planned or line.afgerond_op).astimezone(zone).date(),
        )
        for index, (line, naam, kind, planned) in enumerate(rows, start=1)
    ]
    batch = db.session.scalar(
        select(BillingExport).where(
            BillingExport.transporteur_id == carrier_id, BillingExport.id == invoice.export_id
        )
    )
    days = [line.datum for line in lines]
    return invoice, ubl.Invoice(
        nummer=invoice.nummer,
        datum=invoice.datum,
        vervaldatum=invoice.vervaldatum,
        verkoper=_party(
            naam=carrier.naam,
            btw=carrier.btw_nummer,
            kvk=carrier.kvk_nummer,
            adres=carrier.thuisbasis_straat,
            postcode=carrier.thuisbasis_postcode,
            stad=carrier.thuisbasis_plaats,
            land=carrier.thuisbasis_land,
            email=carrier.factuur_email,
        ),
        koper=_party(
            naam=customer.naam,
            btw=customer.btw_nummer,
            kvk=None,
            adres=place.adres if place else None,
            postcode=place.postcode if place else None,
            stad=place.stad if place else None,
            land=place.land if place else "NL",
            email=customer.factuur_email,
        ),
        regels=lines,
        koper_referentie=customer.debiteurnummer or invoice.nummer,
        # The batch's period, widened to the days of its lines (a line's planned day may
        # lie before the day it was completed).
        periode_van=min([batch.van, *days]),
        periode_tot=max([batch.tot, *days]),
        iban=carrier.iban,
        betaalreferentie=invoice.nummer,
    )


def problems(*, carrier_id: uuid.UUID, invoice_id: uuid.UUID) -> tuple[str, ...]:
    """What keeps the invoice from being an e-invoice (codes; empty: it can be made)."""
    return ubl.problems(document(carrier_id=carrier_id, invoice_id=invoice_id)[1])


def ubl_document(*, carrier_id: uuid.UUID, invoice_id: uuid.UUID) -> tuple[Invoice, bytes]:
    """The invoice as UBL 2.1 XML (Peppol BIS Billing 3.0); NotInvoiceable with the codes
    of what is missing (the carrier's VAT, KvK or IBAN, the customer's address...)."""
    invoice, data = document(carrier_id=carrier_id, invoice_id=invoice_id)
    try:
        return invoice, ubl.invoice_xml(data)
    except ubl.InvoiceError as error:
        raise NotInvoiceable(str(error), codes=list(error.codes)) from error
