"""Credit notes: the only way an issued invoice is corrected. A credit note (UBL CreditNote,
Peppol BIS 3.0) refers to the invoice it corrects and credits some of its lines, in whole or
in part; where the work should be billed at another amount, a new invoice with the corrected
lines is issued in the same transaction.

Credit notes are numbered in their own gap-free series per carrier and year (C2026-00001),
taken in the transaction that stores the document. The credits against one invoice never add
up to more than it: per line at most what is left of its amount, checked under the carrier's
numbering lock, so two credit notes at the same moment cannot both take the last euro.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, replace
from datetime import timedelta
from decimal import Decimal, InvalidOperation

from sqlalchemy import func, select

from portal.accounts.service import get_carrier
from portal.billing import documents, invoices, pricing, ubl
from portal.billing.models import Invoice, InvoiceLine
from portal.customers import service as customers
from portal.errors import Conflict, ValidationFailed
from portal.extensions import db

logger = logging.getLogger(__name__)

MAX_REASON = 500


@dataclass(frozen=True)
class Creditable:
    """An invoice line and what of its amount can still be credited."""

    regel: InvoiceLine
    gecrediteerd: Decimal
    resterend: Decimal


def creditable(*, carrier_id: uuid.UUID, invoice: Invoice) -> list[Creditable]:
    """The invoice's lines, each with what earlier credit notes took and what is left."""
    lines = invoices.lines_of(carrier_id=carrier_id, invoice_ids={invoice.id})[invoice.id]
    taken = dict(
        db.session.execute(
            select(InvoiceLine.gecrediteerde_regel_id, func.sum(InvoiceLine.bedrag))
            .where(
                InvoiceLine.transporteur_id == carrier_id,
                InvoiceLine.gecrediteerde_regel_id.in_([line.id for line in lines]),
            )
            .group_by(InvoiceLine.gecrediteerde_regel_id)
        ).all()
    )
    result = []
    for line in lines:
        done = pricing.cents(pricing.decimal(taken.get(line.id)) or Decimal(0))
        left = max(Decimal(0), pricing.cents(line.bedrag) - done)
        result.append(Creditable(line, done, left))
    return result


def _amount(value, field: str, errors: list[dict]) -> Decimal | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        amount = Decimal(str(value).strip().replace(",", "."))
    except InvalidOperation:
        errors.append({"field": field, "code": "not_a_number", "message": "an amount"})
        return None
    if not amount.is_finite():
        errors.append({"field": field, "code": "not_a_number", "message": "an amount"})
        return None
    if amount < 0:
        errors.append({"field": field, "code": "negative", "message": "not below 0"})
        return None
    if amount != pricing.cents(amount):
        errors.append({"field": field, "code": "cents", "message": "at most 2 decimals"})
        return None
    return amount


@dataclass(frozen=True)
class CreditPlan:
    """What a credit note would credit, and what a correction invoice would bill again."""

    reden: str
    regels: list[tuple[Creditable, Decimal]]
    correcties: list[tuple[Creditable, Decimal]]

    @property
    def bedrag(self) -> Decimal:
        return sum((amount for _, amount in self.regels), Decimal(0))

    @property
    def btw(self) -> Decimal:
        return ubl.totals(self._lines(self.regels))[1]

    @property
    def correctie_bedrag(self) -> Decimal:
        return sum((amount for _, amount in self.correcties), Decimal(0))

    @property
    def correctie_btw(self) -> Decimal:
        return ubl.totals(self._lines(self.correcties))[1]

    @staticmethod
    def _lines(items) -> list[ubl.Line]:
        return [
            replace(documents.line_from_stored(item.regel), bedrag=amount) for item, amount in items
        ]


def plan(
    *,
    carrier_id: uuid.UUID,
    invoice: Invoice,
    reden: str,
    bedragen: dict[uuid.UUID, object] | None,
    correcties: dict[uuid.UUID, object] | None = None,
) -> CreditPlan:
    """Check a credit of the invoice without writing anything: `bedragen` per invoice line
    id (None: everything left), each at most what is left of the line; `correcties`: per
    line credited in full, the amount it should have been. ValidationFailed with errors per
    field (`reden`, `regels.<id>.bedrag`, `regels.<id>.correctie`, `regels`); Conflict when
    the invoice is not an issued invoice."""
    if invoice.soort != "factuur":
        raise Conflict("Only an invoice can be credited.", code="not_an_invoice")
    if not invoice.uitgegeven:
        raise Conflict("A concept invoice has nothing to credit.", code="not_issued")
    errors: list[dict] = []
    reden = (reden or "").strip()
    if not reden:
        errors.append({"field": "reden", "code": "required", "message": "required"})
    elif len(reden) > MAX_REASON:
        errors.append(
            {"field": "reden", "code": "too_long", "message": f"at most {MAX_REASON} characters"}
        )
    lines = creditable(carrier_id=carrier_id, invoice=invoice)
    by_id = {item.regel.id: item for item in lines}
    for line_id in set(bedragen or {}) | set(correcties or {}):
        if line_id not in by_id:
            errors.append(
                {
                    "field": f"regels.{line_id}",
                    "code": "unknown_line",
                    "message": "not a line of this invoice",
                }
            )
    chosen: list[tuple[Creditable, Decimal]] = []
    for item in lines:
        field = f"regels.{item.regel.id}.bedrag"
        if bedragen is None:
            amount = item.resterend
        else:
            amount = _amount(bedragen.get(item.regel.id), field, errors)
        if not amount:
            continue
        if amount > item.resterend:
            errors.append(
                {
                    "field": field,
                    "code": "more_than_invoiced",
                    "message": f"at most {item.resterend} is left to credit on this line",
                    "params": {"resterend": str(item.resterend)},
                }
            )
            continue
        chosen.append((item, amount))
    corrected: list[tuple[Creditable, Decimal]] = []
    credited = {item.regel.id: amount for item, amount in chosen}
    for line_id, value in (correcties or {}).items():
        item = by_id.get(line_id)
        field = f"regels.{line_id}.correctie"
        amount = _amount(value, field, errors)
        if item is None or amount is None:
            continue
        if credited.get(line_id) != pricing.cents(item.regel.bedrag):
            errors.append(
                {
                    "field": field,
                    "code": "not_credited_in_full",
                    "message": "a line is billed again only when it is credited in full",
                }
            )
            continue
        corrected.append((item, amount))
    if not errors and not chosen:
        errors.append(
            {
                "field": "regels",
                "code": "nothing_to_credit",
                "message": "nothing left to credit"
                if not any(i.resterend for i in lines)
                else "choose an amount to credit",
            }
        )
    if errors:
        raise ValidationFailed(errors)
    return CreditPlan(reden, chosen, corrected)


def credit(
    *,
    carrier_id: uuid.UUID,
    invoice_id: uuid.UUID,
    reden: str,
    bedragen: dict[uuid.UUID, object] | None,
    correcties: dict[uuid.UUID, object] | None = None,
    actor_label: str,
) -> tuple[Invoice, Invoice | None]:
    """Issue the credit note `plan` describes, and the correction invoice when lines are
    billed again: both documents, or neither. Checked again under the carrier's numbering
    lock, so credits never add up to more than the invoice. NotInvoiceable when the
    correction invoice cannot be made."""
    invoices.lock_series(carrier_id)
    invoice = invoices.get_invoice(carrier_id=carrier_id, invoice_id=invoice_id, lock=True)
    checked = plan(
        carrier_id=carrier_id,
        invoice=invoice,
        reden=reden,
        bedragen=bedragen,
        correcties=correcties,
    )
    reden, chosen, corrected = checked.reden, checked.regels, checked.correcties
    day = invoices.today(carrier_id)
    customer = customers.get_customer(carrier_id=carrier_id, customer_id=invoice.klant_id)
    note_lines, sources = [], []
    for index, (item, amount) in enumerate(chosen, start=1):
        line = item.regel
        whole = amount == pricing.cents(line.bedrag)
        note_lines.append(
            ubl.Line(
                id=str(index),
                naam=line.naam,
                omschrijving=line.omschrijving,
                notitie=f"Regel {line.volgnummer} van factuur {invoice.nummer}"
                + ("" if whole else " (gedeeltelijk)"),
                hoeveelheid=line.hoeveelheid if whole else None,
                eenheid=line.eenheid,
                prijs=line.prijs if whole else None,
                bedrag=amount,
                btw_categorie=line.btw_categorie,
                btw_procent=line.btw_procent,
                btw_vrijstellingsreden=line.btw_vrijstellingsreden,
                datum=line.datum,
            )
        )
        sources.append(documents.Source(line.facturatieregel_id, line.taak_id, line.id))
    days = [line.datum for line in note_lines]
    note = Invoice(
        transporteur_id=carrier_id,
        id=uuid.uuid4(),
        soort="creditnota",
        klant_id=invoice.klant_id,
        niet_belast=invoice.niet_belast,
        gecrediteerde_factuur_id=invoice.id,
        reden=reden,
        datum=day,
        vervaldatum=day,
        regels=len(note_lines),
        bedrag=Decimal(0),
        btw_bedrag=Decimal(0),
        valuta=invoice.valuta,
    )
    db.session.add(note)
    db.session.flush()
    invoices.store(
        carrier_id=carrier_id,
        invoice=note,
        data=ubl.Invoice(
            nummer="",
            datum=day,
            soort="creditnota",
            gecrediteerd=ubl.Reference(nummer=invoice.nummer, datum=invoice.datum),
            verkoper=documents.party_from_json(invoice.verkoper),
            koper=documents.party_from_json(invoice.koper),
            regels=note_lines,
            koper_referentie=customer.debiteurnummer or invoice.nummer,
            periode_van=min(days),
            periode_tot=max(days),
            betaalvoorwaarden=f"Creditering van factuur {invoice.nummer}: {reden}"[:500],
            valuta=invoice.valuta,
        ),
        sources=sources,
        actor_label=actor_label,
        vies=invoice.vies,
    )
    correction = None
    if corrected:
        correction = _correction_invoice(carrier_id, invoice, customer, corrected, actor_label)
    logger.info(
        "credit note %s for invoice %s%s",
        note.nummer,
        invoice.nummer,
        f", corrected by {correction.nummer}" if correction else "",
    )
    return note, correction


def _correction_invoice(carrier_id, invoice, customer, corrected, actor_label) -> Invoice:
    """A new invoice billing credited lines again at their corrected amounts."""
    carrier = get_carrier(carrier_id=carrier_id)
    day = invoices.today(carrier_id)
    lines, sources = [], []
    for index, (item, amount) in enumerate(corrected, start=1):
        line = item.regel
        lines.append(
            ubl.Line(
                id=str(index),
                naam=line.naam,
                omschrijving=line.omschrijving,
                notitie=f"Correctie van regel {line.volgnummer} van factuur {invoice.nummer}",
                hoeveelheid=line.hoeveelheid,
                eenheid=line.eenheid,
                bedrag=amount,
                btw_categorie=line.btw_categorie,
                btw_procent=line.btw_procent,
                btw_vrijstellingsreden=line.btw_vrijstellingsreden,
                datum=line.datum,
            )
        )
        sources.append(documents.Source(line.facturatieregel_id, line.taak_id))
    days = [line.datum for line in lines]
    new = Invoice(
        transporteur_id=carrier_id,
        id=uuid.uuid4(),
        soort="factuur",
        klant_id=invoice.klant_id,
        niet_belast=invoice.niet_belast,
        datum=day,
        vervaldatum=day + timedelta(days=carrier.betaaltermijn_dagen),
        regels=len(lines),
        bedrag=Decimal(0),
        btw_bedrag=Decimal(0),
        valuta=invoice.valuta,
    )
    db.session.add(new)
    db.session.flush()
    data = ubl.Invoice(
        nummer="",
        datum=day,
        vervaldatum=new.vervaldatum,
        verkoper=documents.seller(carrier),
        koper=documents.buyer(customer),
        regels=lines,
        koper_referentie=customer.debiteurnummer or "",
        periode_van=min(days),
        periode_tot=max(days),
        iban=carrier.iban,
        valuta=invoice.valuta,
    )
    return invoices.store(
        carrier_id=carrier_id,
        invoice=new,
        data=data,
        sources=sources,
        actor_label=actor_label,
        vies=invoices.vies_of(customer, data),
    )
