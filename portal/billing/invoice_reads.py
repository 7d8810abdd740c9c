"""Issued invoices and credit notes read back: their stored lines, an invoice's credit notes,
and the list by period, customer and kind. With invoices.py the door to facturen and
factuur_regels."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, select

from portal.billing.models import Invoice, InvoiceLine
from portal.errors import ValidationFailed
from portal.extensions import db

KINDS = ("factuur", "creditnota")


def lines_of(*, carrier_id: uuid.UUID, invoice_ids: set[uuid.UUID]) -> dict[uuid.UUID, list]:
    """The stored lines of documents, by document, in their order (one query)."""
    found: dict[uuid.UUID, list[InvoiceLine]] = {i: [] for i in invoice_ids}
    if not invoice_ids:
        return found
    for line in db.session.scalars(
        select(InvoiceLine)
        .where(InvoiceLine.transporteur_id == carrier_id, InvoiceLine.factuur_id.in_(invoice_ids))
        .order_by(InvoiceLine.factuur_id, InvoiceLine.volgnummer)
    ):
        found[line.factuur_id].append(line)
    return found


def credits_of(*, carrier_id: uuid.UUID, invoice_ids: set[uuid.UUID]) -> dict[uuid.UUID, list]:
    """The credit notes against each invoice, oldest first (one query)."""
    found: dict[uuid.UUID, list[Invoice]] = {i: [] for i in invoice_ids}
    if not invoice_ids:
        return found
    for note in db.session.scalars(
        select(Invoice)
        .where(
            Invoice.transporteur_id == carrier_id,
            Invoice.gecrediteerde_factuur_id.in_(invoice_ids),
        )
        .order_by(Invoice.uitgegeven_op, Invoice.nummer)
    ):
        found[note.gecrediteerde_factuur_id].append(note)
    return found


@dataclass(frozen=True)
class DocumentFilters:
    van: date | None = None
    tot: date | None = None
    klant_id: uuid.UUID | None = None
    soort: str | None = None
    limit: int = 100
    offset: int = 0


def list_documents(*, carrier_id: uuid.UUID, filters: DocumentFilters) -> tuple[list[Invoice], int]:
    """Issued invoices and credit notes by date and number, newest first, with the total
    count: by issue date (van..tot, both included), customer and kind."""
    where = [Invoice.transporteur_id == carrier_id, Invoice.uitgegeven_op.is_not(None)]
    if filters.van and filters.tot and filters.tot < filters.van:
        raise ValidationFailed([{"field": "tot", "code": "before_van", "message": "before van"}])
    if filters.van:
        where.append(Invoice.datum >= filters.van)
    if filters.tot:
        where.append(Invoice.datum <= filters.tot)
    if filters.klant_id:
        where.append(Invoice.klant_id == filters.klant_id)
    if filters.soort:
        if filters.soort not in KINDS:
            raise ValidationFailed(
                [{"field": "soort", "code": "choice", "message": "factuur or creditnota"}]
            )
        where.append(Invoice.soort == filters.soort)
    total = db.session.scalar(select(func.count()).select_from(Invoice).where(*where))
    found = list(
        db.session.scalars(
            select(Invoice)
            .where(*where)
            .order_by(Invoice.datum.desc(), Invoice.nummer.desc())
            .limit(filters.limit)
            .offset(filters.offset)
        )
    )
    return found, total or 0
