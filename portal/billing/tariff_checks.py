"""A tariff as a planner or integration sends it (TariffIn), checked: the price and amounts
within their columns, an hourly tariff's rounding and minimum, the VAT category with its rate
and reason, the customer the carrier's own. tariffs.py writes what passes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from portal.billing import pricing
from portal.customers import service as customers
from portal.errors import NotFound, ValidationFailed

PRICE_MAX = Decimal("99999999")
FIELDS = (
    "klant_id",
    "activity_type",
    "geldig_vanaf",
    "grondslag",
    "eenheid",
    "prijs",
    "minimum",
    "wachttijd_vrij_minuten",
    "wachttijd_per_uur",
    "weekend_toeslag_procent",
    "btw_procent",
    "btw_categorie",
    "btw_vrijstellingsreden",
    "afronding_minuten",
    "minimum_minuten",
)
REASON_MAX = 300


@dataclass(frozen=True)
class TariffIn:
    activity_type: str
    geldig_vanaf: date
    grondslag: str
    prijs: Decimal
    klant_id: uuid.UUID | None = None
    eenheid: str | None = None
    minimum: Decimal | None = None
    wachttijd_vrij_minuten: int = 0
    wachttijd_per_uur: Decimal | None = None
    weekend_toeslag_procent: Decimal | None = None
    btw_procent: Decimal = Decimal(21)
    btw_categorie: str = "S"
    btw_vrijstellingsreden: str | None = None
    afronding_minuten: int = 1
    minimum_minuten: int = 0


def _amount(errors: list, field: str, value, *, upper: Decimal, places: int) -> None:
    if value is None:
        return
    try:
        value = Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        errors.append({"field": field, "message": "not a number", "code": "not_a_number"})
        return
    if not value.is_finite() or value < 0 or value > upper:
        errors.append({"field": field, "message": f"between 0 and {upper}", "code": "out_of_range"})
    elif value != value.quantize(Decimal(1).scaleb(-places)):
        errors.append(
            {
                "field": field,
                "message": f"at most {places} decimals",
                "code": "too_many_decimals",
                "params": {"places": places},
            }
        )


def check(carrier_id: uuid.UUID, data: TariffIn) -> None:
    """ValidationFailed with every error at its field (each with a stable code)."""
    errors: list[dict] = []
    if not (data.activity_type or "").strip():
        errors.append({"field": "activity_type", "message": "required", "code": "required"})
    if data.grondslag not in pricing.BASES:
        errors.append({"field": "grondslag", "message": "unknown basis", "code": "unknown"})
    if data.grondslag == "eenheid" and not (data.eenheid or "").strip():
        errors.append(
            {"field": "eenheid", "message": "name the unit the price is for", "code": "required"}
        )
    if data.prijs is None:
        errors.append({"field": "prijs", "message": "required", "code": "required"})
    _amount(errors, "prijs", data.prijs, upper=PRICE_MAX, places=4)
    _amount(errors, "minimum", data.minimum, upper=PRICE_MAX, places=2)
    _amount(errors, "wachttijd_per_uur", data.wachttijd_per_uur, upper=PRICE_MAX, places=2)
    _amount(
        errors,
        "weekend_toeslag_procent",
        data.weekend_toeslag_procent,
        upper=Decimal("999.99"),  # Numeric(5, 2): 1000 overflows the column on PostgreSQL
        places=2,
    )
    _amount(errors, "btw_procent", data.btw_procent, upper=Decimal(100), places=2)
    if not 0 <= (data.wachttijd_vrij_minuten or 0) <= 24 * 60:
        errors.append(
            {"field": "wachttijd_vrij_minuten", "message": "0 to 1440", "code": "out_of_range"}
        )
    _check_hours(errors, data)
    _check_vat(errors, data)
    if data.klant_id is not None:
        try:
            customers.get_customer(carrier_id=carrier_id, customer_id=data.klant_id)
        except NotFound:
            errors.append({"field": "klant_id", "message": "no such customer", "code": "unknown"})
    if errors:
        raise ValidationFailed(errors)


def _check_hours(errors: list, data: TariffIn) -> None:
    """The rounding unit and minimum of an hourly tariff (checked whatever the basis: a
    wrong value is refused, not dropped)."""
    unit = data.afronding_minuten
    if isinstance(unit, bool) or unit not in pricing.ROUNDING_UNITS:
        allowed = ", ".join(str(u) for u in pricing.ROUNDING_UNITS)
        errors.append(
            {
                "field": "afronding_minuten",
                "message": f"one of {allowed} minutes",
                "code": "not_allowed",
                "params": {"allowed": list(pricing.ROUNDING_UNITS)},
            }
        )
    least = data.minimum_minuten
    if (
        not isinstance(least, int)
        or isinstance(least, bool)
        or not 0 <= least <= pricing.MINIMUM_MINUTES_MAX
    ):
        errors.append(
            {
                "field": "minimum_minuten",
                "message": f"0 to {pricing.MINIMUM_MINUTES_MAX}",
                "code": "out_of_range",
            }
        )


def _check_vat(errors: list, data: TariffIn) -> None:
    """The VAT category as EN 16931 has it: S above 0 %, Z, E, AE and O at 0 %; E, AE and O
    name the exemption reason the invoice carries."""
    categorie = data.btw_categorie
    if categorie not in pricing.VAT_CATEGORIES:
        errors.append(
            {
                "field": "btw_categorie",
                "message": f"one of {', '.join(pricing.VAT_CATEGORIES)}",
                "code": "unknown",
            }
        )
        return
    try:
        rate = Decimal(data.btw_procent) if data.btw_procent is not None else None
    except (InvalidOperation, TypeError, ValueError):
        rate = None  # told as not_a_number
    problem = (
        pricing.vat_problem(categorie, rate) if rate is not None and rate.is_finite() else None
    )
    if problem:
        errors.append(
            {
                "field": "btw_procent",
                "message": problem,
                "code": "vat_rate_category",
                "params": {"categorie": categorie},
            }
        )
    reason = (data.btw_vrijstellingsreden or "").strip()
    if categorie in pricing.NEEDS_TEXT and not reason:
        errors.append(
            {
                "field": "btw_vrijstellingsreden",
                "message": "name the evidence of the zero rate (e.g. the export's MRN)"
                if categorie == "Z"
                else f"name the exemption reason of category {categorie}",
                "code": "required",
                "params": {"categorie": categorie},
            }
        )
    elif len(reason) > REASON_MAX:
        errors.append(
            {
                "field": "btw_vrijstellingsreden",
                "message": f"at most {REASON_MAX} characters",
                "code": "too_long",
                "params": {"max": REASON_MAX},
            }
        )


def values_of(data: TariffIn) -> dict:
    """The columns a checked tariff is stored with (what its basis and category keep)."""
    values = {name: getattr(data, name) for name in FIELDS}
    values["activity_type"] = data.activity_type.strip()
    values["eenheid"] = (
        (data.eenheid or "").strip() or None if data.grondslag == "eenheid" else None
    )
    values["wachttijd_vrij_minuten"] = data.wachttijd_vrij_minuten or 0
    # Kept with the categories that carry a text only (BR-S-10 forbids one with S; Z's is its
    # evidence, which the invoice prints as the line's note).
    reason = (data.btw_vrijstellingsreden or "").strip() or None
    values["btw_vrijstellingsreden"] = reason if data.btw_categorie in pricing.NEEDS_TEXT else None
    # Rounding and minimum are an hourly tariff's: another basis keeps the plain defaults.
    if data.grondslag != "uur":
        values["afronding_minuten"], values["minimum_minuten"] = 1, 0
    return values
