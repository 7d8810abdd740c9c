"""A period's VAT totals from the issued documents, for the VAT return and the ICP declaration.

Invoices count as issued, credit notes against them with the opposite sign, each on its own
issue date (the date the VAT return follows). The totals are the sums of each document's own
breakdown (stored at issue, rounded per document and category as EN 16931 does), so they
agree with the invoices to the cent.

The return's boxes (rubrieken) of the Dutch VAT return, as the Belastingdienst's explanation
of the return names them, are given for each category as an aid: 1a standard rate, 1b reduced
rate, 1c other rates, 1e zero rate or not taxed in the Netherlands, 3b services to businesses
in other EU countries (reverse charge, also in the ICP declaration). Exempt supplies (E) are
not declared. docs/einvoice.md says where each comes from.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from sqlalchemy import select

from portal.billing.models import Invoice
from portal.customers import service as customers
from portal.errors import ValidationFailed
from portal.extensions import db

# The Dutch VAT return's boxes by category and rate
STANDARD, REDUCED = Decimal(21), Decimal(9)


def rubriek(categorie: str, procent: Decimal | None) -> str | None:
    """The box of the Dutch VAT return a category (and rate) is declared in, if any."""
    if categorie == "S":
        if procent == STANDARD:
            return "1a"
        return "1b" if procent == REDUCED else "1c"
    if categorie in ("Z", "O"):
        return "1e"
    if categorie == "AE":
        return "3b"
    return None


@dataclass
class VatRow:
    categorie: str
    procent: Decimal | None
    grondslag: Decimal = Decimal("0.00")
    btw: Decimal = Decimal("0.00")
    documenten: int = 0

    @property
    def rubriek(self) -> str | None:
        return rubriek(self.categorie, self.procent)


@dataclass
class IcpRow:
    """A customer's reverse-charged services in the period, for the ICP declaration."""

    btw_nummer: str
    land: str
    klant: str
    grondslag: Decimal = Decimal("0.00")


@dataclass
class VatReport:
    van: date
    tot: date
    rijen: list[VatRow] = field(default_factory=list)
    icp: list[IcpRow] = field(default_factory=list)
    facturen: int = 0
    creditnotas: int = 0

    @property
    def grondslag(self) -> Decimal:
        return sum((r.grondslag for r in self.rijen), Decimal("0.00"))

    @property
    def btw(self) -> Decimal:
        return sum((r.btw for r in self.rijen), Decimal("0.00"))


ORDER = ("S", "Z", "E", "AE", "O")


def vat_report(*, carrier_id: uuid.UUID, first: date, last: date) -> VatReport:
    """Totals per VAT category and rate of the documents issued first..last (both included),
    and the reverse-charged amounts per customer VAT number. Two queries."""
    if last < first:
        raise ValidationFailed([{"field": "tot", "code": "before_van", "message": "before van"}])
    report = VatReport(van=first, tot=last)
    rows: dict[tuple[str, Decimal | None], VatRow] = {}
    icp: dict[str, IcpRow] = {}
    found = db.session.execute(
        select(Invoice.soort, Invoice.klant_id, Invoice.koper, Invoice.btw_uitsplitsing).where(
            Invoice.transporteur_id == carrier_id,
            Invoice.uitgegeven_op.is_not(None),
            Invoice.datum >= first,
            Invoice.datum <= last,
        )
    ).all()
    names = customers.names_by_id(carrier_id=carrier_id, customer_ids={r[1] for r in found})
    counted: dict[tuple, set] = defaultdict(set)
    for index, (soort, customer_id, koper, breakdown) in enumerate(found):
        sign = Decimal(-1) if soort == "creditnota" else Decimal(1)
        if soort == "creditnota":
            report.creditnotas += 1
        else:
            report.facturen += 1
        for part in breakdown or ():
            procent = None if part["procent"] is None else Decimal(part["procent"]).normalize()
            key = (part["categorie"], procent)
            row = rows.setdefault(key, VatRow(part["categorie"], procent))
            row.grondslag += sign * Decimal(part["grondslag"])
            row.btw += sign * Decimal(part["btw"])
            counted[key].add(index)
            if part["categorie"] == "AE":
                number = (koper or {}).get("btw_nummer") or ""
                entry = icp.setdefault(
                    number,
                    IcpRow(
                        number, number[:2], names.get(customer_id, (koper or {}).get("naam", ""))
                    ),
                )
                entry.grondslag += sign * Decimal(part["grondslag"])
    for key, row in rows.items():
        row.documenten = len(counted[key])
    report.rijen = sorted(
        rows.values(), key=lambda r: (ORDER.index(r.categorie), -(r.procent or 0))
    )
    report.icp = sorted(icp.values(), key=lambda r: r.btw_nummer)
    return report
