"""Pricing a billing line: which tariff holds for a task, and what the work costs under it.

Pure functions over plain values, so the rules read (and are tested) without a database:
the service hands in the tariffs it found and the work the line records. Every amount is a
`Decimal`; each part of a line is rounded to the cent (half up, as invoices require) before
the parts are added, so the line's net amount is the sum of what it shows. VAT is computed
on the line's net amount and rounded the same way.

A tariff charges one basis: per unit of the task's `eenheid` (ton, m³, ...), per load, per
hour or per kilometre; it may set a minimum amount, a waiting-time surcharge (per hour beyond
free minutes) and a weekend surcharge (a percentage of the base). A customer's own tariff for
the activity type wins over the carrier's default; of those, the one with the latest
`geldig_vanaf` on or before the task's day holds.

Per hour, the minutes the task's own times record (recorded_time.py) are billed as the tariff
says: at least its minimum minutes, then rounded UP to a whole rounding unit (1, 5, 6, 10, 15,
30 or 60 minutes; up, as Dutch carriers bill time), so 2 h 07 per quarter hour is 2.25 h. The
billed hours (to 4 decimals) are the line's priced quantity, and its base is hours x price, so
quantity x price is the amount an invoice line shows. Without recorded time there is no price.

A line that would bill 0.00 while its tariff has a price (a quantity of 0, say) is held like an
unpriced line (code zero_amount): a planner confirms it or prices it by hand.

VAT: each tariff names its EN 16931 category (S standard, Z zero rated, E exempt, AE reverse
charge, O not subject to VAT) with a rate above 0 for S and 0 for the others, and for E, AE
and O the exemption reason the invoice must carry (BR-E-10, BR-AE-10, BR-O-10; S and Z carry
none, BR-S-10, BR-Z-10). A customer's own category (reverse charge, outside the EU) overrides
the tariff's: `klant_categorie`.
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
# The rounding units of an hourly tariff, in minutes: every one divides an hour.
ROUNDING_UNITS = (1, 5, 6, 10, 15, 30, 60)
MINIMUM_MINUTES_MAX = 24 * 60
HOURS_STEP = Decimal("0.0001")  # billed hours to 4 decimals: 1 minute is 0.0167 h
# VAT categories of EN 16931 (UNCL5305) that a tariff may charge; a reason goes with these.
VatCategory = Literal["S", "Z", "E", "AE", "O"]
VAT_CATEGORIES: tuple[VatCategory, ...] = ("S", "Z", "E", "AE", "O")
WITH_REASON = ("E", "AE", "O")
# The categories whose lines carry a text: E, AE and O their exemption reason (BT-120), Z the
# evidence of the zero rate (the export or import it serves), which the invoice prints in the
# line's note (BR-Z-10 forbids an exemption reason there).
NEEDS_TEXT = ("Z", *WITH_REASON)


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


def billed_minutes(minutes: int, *, unit: int = 1, minimum: int = 0) -> int:
    """Recorded minutes as billed: at least the minimum, then up to a whole rounding unit
    (127 per 15 -> 135; 20 with a minimum of 60 -> 60)."""
    counted = max(minutes, minimum)
    return -(-counted // unit) * unit


def hours(minutes: int) -> Decimal:
    """Minutes as hours to 4 decimals, half up (135 -> 2.25, 100 -> 1.6667)."""
    return (Decimal(minutes) / MINUTES_PER_HOUR).quantize(HOURS_STEP, rounding=ROUND_HALF_UP)


def shown_hours(value: Decimal | None) -> Decimal | None:
    """Billed hours as people read them: 2.2500 -> 2.25, 1.6667 stays, 3 -> 3.00."""
    if value is None:
        return None
    two = value.quantize(CENT, rounding=ROUND_HALF_UP)
    return two if two == value else value.normalize()


def vat_problem(categorie: str, rate: Decimal | None) -> str | None:
    """What is wrong with a VAT rate under a category (EN 16931 BR-S-05, BR-Z-05, BR-E-05,
    BR-AE-05, BR-O-05), or None: S takes a rate above 0, the others 0."""
    if categorie not in VAT_CATEGORIES or rate is None:
        return None
    if categorie == "S" and rate <= 0:
        return "above 0 with category S"
    if categorie != "S" and rate != 0:
        return f"0 with category {categorie}"
    return None


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
    afronding_minuten: int = 1  # grondslag "uur": billed per this many minutes, rounded up
    minimum_minuten: int = 0  # grondslag "uur": the least time billed
    btw_categorie: VatCategory = "S"
    btw_vrijstellingsreden: str | None = None  # E, AE and O: why no VAT is charged


@dataclass(frozen=True)
class Work:
    """What a billing line records of the work done."""

    dag: date  # the task's day, in the carrier's time zone
    hoeveelheid: Decimal | None = None
    eenheid: str | None = None
    minuten: int | None = None  # the time the task's own times record; None: none
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
    # The VAT as charged: the tariff's, or the customer's category with rate 0.
    btw_procent: Decimal = Decimal(21)
    btw_categorie: VatCategory = "S"
    btw_vrijstellingsreden: str | None = None
    uren: Decimal | None = None  # per hour: the billed hours, the line's priced quantity


@dataclass(frozen=True)
class Unpriced:
    """Why a line has no amount (a code and parameters): it is priced by hand. `held`: the
    price it would have (zero_amount), for a planner to confirm."""

    code: str
    params: dict = field(default_factory=dict)
    held: Priced | None = None


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


CustomerCategory = tuple[str, str | None]


def _vat(tariff: Tariff, klant_categorie: CustomerCategory | None) -> tuple:
    """(rate, category, reason) of a line: the customer's category when it has one other than
    S (reverse charge, outside the EU: rate 0), else the tariff's."""
    if klant_categorie is None or klant_categorie[0] == "S":
        return tariff.btw_procent, tariff.btw_categorie, tariff.btw_vrijstellingsreden
    categorie, reason = klant_categorie
    if categorie not in VAT_CATEGORIES:
        raise ValueError(f"unknown VAT category {categorie!r}")
    if categorie in WITH_REASON and not (reason or "").strip():
        raise ValueError(f"VAT category {categorie} needs an exemption reason")
    return Decimal(0), categorie, (reason or "").strip() or None  # Z: its evidence


def price(
    tariff: Tariff | None, work: Work, *, klant_categorie: CustomerCategory | None = None
) -> Priced | Unpriced:
    """The line's amount under tariff, part by part, or why it cannot be priced.

    klant_categorie: the customer's own VAT category and exemption reason, which overrides
    the tariff's unless it is S (a customer at the standard rate follows its tariffs)."""
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
    rate, categorie, reason = _vat(tariff, klant_categorie)
    btw = cents(netto * rate / HUNDRED)
    priced = Priced(
        tariff,
        tuple(parts),
        netto,
        btw,
        netto + btw,
        btw_procent=rate,
        btw_categorie=categorie,
        btw_vrijstellingsreden=reason,
        uren=base.params.get("aantal") if tariff.grondslag == "uur" else None,
    )
    if netto == 0 and tariff.prijs > 0:
        return Unpriced("zero_amount", {"prijs": tariff.prijs}, held=priced)
    return priced


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
        billed = billed_minutes(
            work.minuten, unit=tariff.afronding_minuten, minimum=tariff.minimum_minuten
        )
        quantity = hours(billed)
        params = {
            "grondslag": basis,
            "aantal": quantity,
            "prijs": tariff.prijs,
            "minuten": work.minuten,
            "gefactureerd": billed,
        }
        return Part("base", params, cents(quantity * tariff.prijs))
    elif basis == "km":
        if work.kilometers is None:
            return Unpriced("no_kilometres")
        quantity = work.kilometers
    else:
        raise ValueError(f"unknown basis {basis!r}")
    params = {"grondslag": basis, "aantal": quantity, "prijs": tariff.prijs}
    return Part("base", params, cents(quantity * tariff.prijs))
