"""Pricing a billing line: which tariff holds for a task, and what the work costs under it.

Pure functions over plain values, so the rules read (and are tested) without a database:
the service hands in the tariffs it found and the work the line records. Every amount is a
`Decimal`; each part of a line is rounded to the cent (half up, as invoices require) before
the parts are added, so the line's net amount is the sum of what it shows. VAT is computed
on the line's net amount and rounded the same way.

A tariff charges one basis: per unit of the task's `eenheid` (ton, m³, ...), per load, per
hour (from the work's duration) or per kilometre; it may set a minimum amount, a waiting-time
surcharge (per hour beyond free minutes) and a weekend surcharge (a percentage of the base).
A customer's own tariff for the activity type wins over the carrier's default; of those, the
one with the latest `geldig_vanaf` on or before the task's day holds.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

CENT = Decimal("0.01")
HUNDRED = Decimal(100)
MINUTES_PER_HOUR = Decimal(60)
Basis = Literal["eenheid", "vracht", "uur", "km"]
BASES: tuple[Basis, ...] = ("eenheid", "vracht", "uur", "km")


def cents(amount: Decimal) -> Decimal:
    """Rounded to the cent, half up (2.345 -> 2.35, -2.345 -> -2.35)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def decimal(value) -> Decimal | None:
    """A stored number as a Decimal without binary noise (28.1 stays 28.1), or None."""
    if value is None:
        return None
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    return Decimal(value)


def vat_per_rate(amounts: Iterable[tuple[Decimal, Decimal]]) -> Decimal:
    """The VAT of (net amount, rate) pairs as an invoice computes it: per rate on the sum of
    its amounts, rounded half up to the cent (EN 16931), then added. Rounding each line's
    VAT first could differ by a cent or two."""
    taxable: dict[Decimal, Decimal] = {}
    for amount, rate in amounts:
        key = rate.normalize()
        taxable[key] = taxable.get(key, Decimal(0)) + amount
    return sum((cents(total * rate / HUNDRED) for rate, total in taxable.items()), Decimal(0))


@dataclass(frozen=True)
class Tariff:
    """A price agreement for one activity type: the customer's (klant_id) or the carrier's
    default (klant_id None), valid from a day on."""

    activity_type: str
    geldig_vanaf: date
    grondslag: Basis
    prijs: Decimal  # per unit of the basis
    klant_id: uuid.UUID | None = None
    eenheid: str | None = None  # grondslag "eenheid": the unit the price is for (ton, m3)
    minimum: Decimal | None = None  # the least a line costs (net, before VAT)
    wachttijd_vrij_minuten: int = 0
    wachttijd_per_uur: Decimal | None = None
    weekend_toeslag_procent: Decimal | None = None
    btw_procent: Decimal = Decimal(21)
    id: uuid.UUID | None = None


@dataclass(frozen=True)
class Work:
    """What a billing line records of the work done."""

    dag: date  # the task's day, in the carrier's time zone
    hoeveelheid: Decimal | None = None
    eenheid: str | None = None
    minuten: int | None = None  # the work's duration
    kilometers: Decimal | None = None
    wachttijd_minuten: int | None = None


@dataclass(frozen=True)
class Part:
    """One part of a priced line: a code the edge words (base, minimum, waiting, weekend),
    its parameters, and its amount in cents."""

    code: str
    params: dict
    bedrag: Decimal


@dataclass(frozen=True)
class Priced:
    tariff: Tariff
    parts: tuple[Part, ...]
    netto: Decimal
    btw: Decimal
    bruto: Decimal


@dataclass(frozen=True)
class Unpriced:
    """Why a line has no amount (a code and parameters): it is priced by hand."""

    code: str
    params: dict = field(default_factory=dict)


def select_tariff(
    tariffs: Iterable[Tariff], *, activity_type: str, klant_id: uuid.UUID | None, dag: date
) -> Tariff | None:
    """The tariff that holds for the work: the customer's own for the activity type if one is
    valid on dag, else the carrier's default; the latest valid_from on or before dag."""
    valid = [t for t in tariffs if t.activity_type == activity_type and t.geldig_vanaf <= dag]
    for owner in ([klant_id] if klant_id is not None else []) + [None]:
        found = [t for t in valid if t.klant_id == owner]
        if found:
            return max(found, key=lambda t: t.geldig_vanaf)
    return None


def _same_unit(a: str | None, b: str | None) -> bool:
    def norm(unit: str | None) -> str:
        return (unit or "").strip().lower().replace("³", "3").replace(" ", "")

    return norm(a) == norm(b)


def price(tariff: Tariff | None, work: Work) -> Priced | Unpriced:
    """The line's amount under tariff, part by part, or why it cannot be priced."""
    if tariff is None:
        return Unpriced("no_tariff")
    base = _base(tariff, work)
    if isinstance(base, Unpriced):
        return base
    parts = [base]
    if tariff.weekend_toeslag_procent and work.dag.isoweekday() >= 6:
        pct = tariff.weekend_toeslag_procent
        parts.append(Part("weekend", {"procent": pct}, cents(base.bedrag * pct / HUNDRED)))
    waited = work.wachttijd_minuten or 0
    if tariff.wachttijd_per_uur and waited > tariff.wachttijd_vrij_minuten:
        over = waited - tariff.wachttijd_vrij_minuten
        amount = cents(Decimal(over) / MINUTES_PER_HOUR * tariff.wachttijd_per_uur)
        parts.append(
            Part(
                "waiting",
                {
                    "minuten": over,
                    "vrij": tariff.wachttijd_vrij_minuten,
                    "per_uur": tariff.wachttijd_per_uur,
                },
                amount,
            )
        )
    netto = sum((p.bedrag for p in parts), Decimal(0))
    if tariff.minimum is not None and netto < tariff.minimum:
        parts.append(Part("minimum", {"minimum": tariff.minimum}, cents(tariff.minimum - netto)))
        netto = cents(tariff.minimum)
    btw = cents(netto * tariff.btw_procent / HUNDRED)
    return Priced(tariff, tuple(parts), netto, btw, netto + btw)


def _base(tariff: Tariff, work: Work) -> Part | Unpriced:
    basis = tariff.grondslag
    if basis == "vracht":
        return Part(
            "base", {"grondslag": basis, "aantal": 1, "prijs": tariff.prijs}, cents(tariff.prijs)
        )
    if basis == "eenheid":
        if work.hoeveelheid is None:
            return Unpriced("no_quantity")
        if tariff.eenheid and not _same_unit(tariff.eenheid, work.eenheid):
            return Unpriced("other_unit", {"tarief": tariff.eenheid, "regel": work.eenheid})
        quantity = work.hoeveelheid
    elif basis == "uur":
        if work.minuten is None:
            return Unpriced("no_duration")
        quantity = Decimal(work.minuten) / MINUTES_PER_HOUR
    elif basis == "km":
        if work.kilometers is None:
            return Unpriced("no_kilometres")
        quantity = work.kilometers
    else:
        raise ValueError(f"unknown basis {basis!r}")
    params = {"grondslag": basis, "aantal": quantity, "prijs": tariff.prijs}
    return Part("base", params, cents(quantity * tariff.prijs))
