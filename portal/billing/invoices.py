"""Invoices (facturen): made per customer by an export batch, issued with their stored
document, listed and read back. The billing domain's door to facturen and factuur_regels;
credit notes are credit_notes.py's.

An export batch makes one invoice per customer whose lines in it are all priced (lines not
subject to VAT, category O, on an invoice of their own). Each is issued at once when it can
be an e-invoice: numbered in the carrier's series for the year (2026-00001, 2026-00002, ...,
gap-free: the number is taken in the transaction that stores the document), dated the day
of issue, due after the carrier's payment term. One that cannot (the carrier's or the
customer's details are missing) waits as a concept, without a number, until it is issued
from its batch's page. An issued invoice never changes: its download is the stored bytes.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import func, select, text

from portal.accounts.service import carrier_zone, get_carrier
from portal.billing import documents, invoice_drafts, invoice_pdf, invoice_reads, ubl
from portal.billing.models import BillingExport, BillingLine, Invoice, InvoiceLine
from portal.customers import service as customers
from portal.errors import Conflict, NotFound
from portal.extensions import db
from portal.types import utcnow

logger = logging.getLogger(__name__)

CREDIT_PREFIX = "C"


class NotInvoiceable(Conflict):
    """The invoice cannot be an e-invoice yet: `codes` (ubl.problems) say what the seller,
    the buyer or the lines lack, for the page to word."""

    title = "Not invoiceable"


class NotIssued(Conflict):
    """A concept invoice has no document yet."""

    title = "Not issued"


# --- numbers ------------------------------------------------------------------------------


def lock_series(carrier_id: uuid.UUID) -> None:
    """Take the carrier's numbering lock until the transaction ends (PostgreSQL): numbers,
    and the credits against an invoice, are decided one transaction at a time."""
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(
            text("SELECT pg_advisory_xact_lock(hashtext('facturen:' || :carrier))"),
            {"carrier": str(carrier_id)},
        )


def next_number(carrier_id: uuid.UUID, year: int, *, credit: bool = False) -> str:
    """The next number of the carrier's series for the year: 2026-00001, or C2026-00001 for
    credit notes. Call lock_series first; the unique constraint backs it up."""
    prefix = f"{CREDIT_PREFIX if credit else ''}{year}-"
    last = db.session.scalar(
        select(func.max(Invoice.nummer)).where(
            Invoice.transporteur_id == carrier_id, Invoice.nummer.like(prefix + "%")
        )
    )
    start = int(last[len(prefix) :]) + 1 if last else 1
    return f"{prefix}{start:05d}"


# --- what an export would invoice ----------------------------------------------------------


@dataclass(frozen=True)
class Invoiceable:
    """What an export of some rows would invoice: customers (names) that get an invoice,
    those that would not (a line without a price, or one held), and lines of tasks without a
    customer."""

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


# --- made by an export ---------------------------------------------------------------------


def today(carrier_id: uuid.UUID) -> date:
    return utcnow().astimezone(carrier_zone(carrier_id)).date()


def _line_groups(
    carrier_id: uuid.UUID, batch: BillingExport
) -> dict[tuple[uuid.UUID, bool], list[int]]:
    """The batch's lines with a customer, per (customer, not subject to VAT): [lines, priced]."""
    groups: dict[tuple[uuid.UUID, bool], list[int]] = {}
    for customer_id, categorie, count, priced in db.session.execute(
        select(
            BillingLine.klant_id,
            BillingLine.btw_categorie,
            func.count(),
            func.count(BillingLine.bedrag),
        )
        .where(
            BillingLine.transporteur_id == carrier_id,
            BillingLine.export_id == batch.id,
            BillingLine.klant_id.is_not(None),
        )
        .group_by(BillingLine.klant_id, BillingLine.btw_categorie)
    ):
        totals = groups.setdefault((customer_id, categorie == "O"), [0, 0])
        totals[0] += count
        totals[1] += priced
    return groups


def make_for_batch(
    *, carrier_id: uuid.UUID, batch: BillingExport, actor_label: str = "export"
) -> list[Invoice]:
    """The invoices of a new batch: one per customer whose lines are all priced (and one more
    for its lines not subject to VAT), each issued at once when it can be."""
    groups = _line_groups(carrier_id, batch)
    complete_customers = {
        customer_id
        for customer_id in {k for k, _ in groups}
        if all(c == p for (k, _o), (c, p) in groups.items() if k == customer_id)
    }
    if not complete_customers:
        return []
    day = today(carrier_id)
    term = get_carrier(carrier_id=carrier_id).betaaltermijn_dagen
    names = customers.names_by_id(carrier_id=carrier_id, customer_ids=complete_customers)
    made = []
    for customer_id, niet_belast in sorted(
        (key for key in groups if key[0] in complete_customers),
        key=lambda key: (names.get(key[0], "").lower(), str(key[0]), key[1]),
    ):
        invoice = Invoice(
            transporteur_id=carrier_id,
            id=uuid.uuid4(),
            soort="factuur",
            export_id=batch.id,
            klant_id=customer_id,
            niet_belast=niet_belast,
            datum=day,
            vervaldatum=day + timedelta(days=term),
            regels=groups[(customer_id, niet_belast)][0],
            bedrag=Decimal(0),
            btw_bedrag=Decimal(0),
        )
        db.session.add(invoice)
        made.append(invoice)
    db.session.flush()
    for invoice in made:
        data, _sources = draft(carrier_id=carrier_id, invoice=invoice)
        net, vat = ubl.totals(data.regels)
        invoice.bedrag, invoice.btw_bedrag = net, vat
        if not _issue_problems(carrier_id, invoice):
            issue(carrier_id=carrier_id, invoice_id=invoice.id, actor_label=actor_label)
    db.session.flush()
    logger.info("billing export %s: %s invoices", batch.id, len(made))
    return made


@dataclass(frozen=True)
class Uninvoiced:
    """A customer in a batch without an invoice: some of its lines have no price."""

    klant_id: uuid.UUID
    ongeprijsd: int


def of_batch(
    *, carrier_id: uuid.UUID, export_id: uuid.UUID
) -> tuple[list[Invoice], list[Uninvoiced]]:
    """A batch's invoices (issued by number, then concepts), and its customers that got none
    (lines without a price)."""
    invoices = list(
        db.session.scalars(
            select(Invoice)
            .where(Invoice.transporteur_id == carrier_id, Invoice.export_id == export_id)
            .order_by(Invoice.nummer.is_(None), Invoice.nummer, Invoice.created_at, Invoice.id)
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


def get_invoice(*, carrier_id: uuid.UUID, invoice_id: uuid.UUID, lock: bool = False) -> Invoice:
    """The carrier's invoice or credit note; NotFound when absent or another carrier's."""
    stmt = select(Invoice).where(Invoice.transporteur_id == carrier_id, Invoice.id == invoice_id)
    invoice = db.session.scalar(stmt.with_for_update() if lock else stmt)
    if invoice is None:
        raise NotFound("invoice not found")
    return invoice


# A concept's document and what keeps it from being issued (invoice_drafts.py).
draft = invoice_drafts.draft
vies_of = invoice_drafts.vies_of
peppol_problems = invoice_drafts.peppol_problems
_issue_problems = invoice_drafts.issue_problems


def problems(*, carrier_id: uuid.UUID, invoice_id: uuid.UUID) -> tuple[str, ...]:
    """What keeps the invoice from being issued (codes; empty: it can be). An issued one
    has none."""
    invoice = get_invoice(carrier_id=carrier_id, invoice_id=invoice_id)
    if invoice.uitgegeven:
        return ()
    return _issue_problems(carrier_id, invoice)


# --- issue ---------------------------------------------------------------------------------


def store(
    *,
    carrier_id: uuid.UUID,
    invoice: Invoice,
    data: ubl.Invoice,
    sources: list[documents.Source],
    actor_label: str,
    vies: dict | None = None,
) -> Invoice:
    """Number the document (unless it has a number) and store it with its lines, in this
    transaction: its bytes and their SHA-256, the parties as they are, the VAT breakdown.
    InvoiceError (from ubl) when it cannot be made; nothing is written then."""
    found = ubl.problems(replace(data, nummer="-", koper_referentie="-"))
    if found:
        raise NotInvoiceable("the document cannot be made", codes=list(found))
    lock_series(carrier_id)
    number = invoice.nummer or next_number(
        carrier_id, data.datum.year, credit=invoice.soort == "creditnota"
    )
    data = replace(
        data,
        nummer=number,
        koper_referentie=data.koper_referentie or number,
        betaalreferentie=number if invoice.soort == "factuur" else None,
    )
    body = ubl.document_xml(data)
    net, vat = ubl.totals(data.regels)
    invoice.nummer = number
    invoice.datum = data.datum
    if data.vervaldatum:
        invoice.vervaldatum = data.vervaldatum
    invoice.regels = len(data.regels)
    invoice.bedrag, invoice.btw_bedrag = net, vat
    invoice.verkoper = documents.party_json(data.verkoper)
    invoice.koper = documents.party_json(data.koper)
    invoice.btw_uitsplitsing = documents.breakdown_json(data.regels)
    invoice.vies = vies
    invoice.document = body
    invoice.document_sha256 = documents.sha256(body)
    invoice.pdf = invoice_pdf.render(data)
    invoice.uitgegeven_op = utcnow()
    invoice.uitgegeven_door = actor_label[:254]
    for line, source in zip(data.regels, sources, strict=True):
        db.session.add(
            InvoiceLine(
                transporteur_id=carrier_id,
                id=uuid.uuid4(),
                factuur_id=invoice.id,
                **documents.stored_line(line, source),
            )
        )
    db.session.flush()
    logger.info("issued %s %s (%s lines)", invoice.soort, number, invoice.regels)
    return invoice


def issue(*, carrier_id: uuid.UUID, invoice_id: uuid.UUID, actor_label: str) -> Invoice:
    """Issue a concept invoice: dated today, due after the payment term, numbered and stored.
    NotInvoiceable with the codes of what is missing; Conflict when already issued."""
    invoice = get_invoice(carrier_id=carrier_id, invoice_id=invoice_id, lock=True)
    if invoice.uitgegeven:
        raise Conflict("The invoice is issued already.", code="issued")
    found = _issue_problems(carrier_id, invoice)
    if found:
        raise NotInvoiceable("the invoice cannot be issued yet", codes=list(found))
    day = today(carrier_id)
    invoice.datum = day
    invoice.vervaldatum = day + timedelta(
        days=get_carrier(carrier_id=carrier_id).betaaltermijn_dagen
    )
    data, sources = draft(carrier_id=carrier_id, invoice=invoice)
    customer = customers.get_customer(carrier_id=carrier_id, customer_id=invoice.klant_id)
    return store(
        carrier_id=carrier_id,
        invoice=invoice,
        data=data,
        sources=sources,
        actor_label=actor_label,
        vies=vies_of(customer, data),
    )


# --- reading -------------------------------------------------------------------------------


def stored_document(
    *, carrier_id: uuid.UUID, invoice_id: uuid.UUID, pdf: bool = False
) -> tuple[Invoice, bytes]:
    """The issued document's bytes (UBL, or its PDF), exactly as issued; NotIssued for a
    concept, with the codes of what it lacks."""
    invoice = get_invoice(carrier_id=carrier_id, invoice_id=invoice_id)
    if not invoice.uitgegeven:
        raise NotIssued(
            "The invoice is a concept: it has no document yet.",
            codes=list(_issue_problems(carrier_id, invoice)),
        )
    return invoice, invoice.pdf if pdf else invoice.document


# Reading what was issued (invoice_reads.py), for callers of this module.
lines_of = invoice_reads.lines_of
credits_of = invoice_reads.credits_of
DocumentFilters = invoice_reads.DocumentFilters
list_documents = invoice_reads.list_documents
KINDS = invoice_reads.KINDS
