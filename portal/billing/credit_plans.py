"""What a credit of an issued invoice would credit, checked without writing anything: each
line with what is left of it, the amounts asked per line (at most what is left), the lines
billed again at a corrected amount, and the reason. credit_notes.py issues what this plans,
checking it again under the carrier's numbering lock."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from sqlalchemy import func, select

from portal.billing import documents, invoices, pricing, ubl
from portal.billing.models import Invoice, InvoiceLine
from portal.errors import Conflict, ValidationFailed
from portal.extensions import db

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


def _reason_errors(reden: str) -> list[dict]:
    if not reden:
        return [{"field": "reden", "code": "required", "message": "required"}]
    if len(reden) > MAX_REASON:
        return [
            {"field": "reden", "code": "too_long", "message": f"at most {MAX_REASON} characters"}
        ]
    return []


def _chosen(
    lines: list[Creditable], bedragen: dict | None, errors: list[dict]
) -> list[tuple[Creditable, Decimal]]:
    """The lines to credit and by how much (bedragen None: everything left); at most what is
    left of each line."""
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
    return chosen


def _corrected(
    by_id: dict[uuid.UUID, Creditable],
    chosen: list[tuple[Creditable, Decimal]],
    correcties: dict | None,
    errors: list[dict],
) -> list[tuple[Creditable, Decimal]]:
    """The lines billed again at a corrected amount: only lines credited in full."""
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
    return corrected


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
    errors += _reason_errors(reden)
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
    chosen = _chosen(lines, bedragen, errors)
    corrected = _corrected(by_id, chosen, correcties, errors)
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
