"""Tariffs: the carrier's default price per activity type and each customer's own, valid from
a day on. With service.py the door to the billing tables; pricing.py holds the rules that
use them."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.billing import pricing
from portal.billing.models import Tariff
from portal.customers import service as customers
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import db

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


def _check(carrier_id: uuid.UUID, data: TariffIn) -> None:
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


def _values(data: TariffIn) -> dict:
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


def _flush_or_conflict(change) -> None:
    """change() inside a savepoint (begin_nested flushes what is pending first, so the
    change must come after it): a second tariff of the same day is a Conflict."""
    try:
        with db.session.begin_nested():
            change()
            db.session.flush()
    except IntegrityError:
        raise Conflict(
            "There is a tariff for this customer and activity from that day already.",
            code="tariff_exists",
        ) from None


def create_tariff(*, carrier_id: uuid.UUID, data: TariffIn, actor: Actor) -> Tariff:
    _check(carrier_id, data)
    tariff = Tariff(transporteur_id=carrier_id, **_values(data))
    _flush_or_conflict(lambda: db.session.add(tariff))
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="tarief",
        entity_id=tariff.id,
        action="created",
        changes={k: [None, v] for k, v in _values(data).items()},
    )
    return tariff


def get_tariff(*, carrier_id: uuid.UUID, tariff_id: uuid.UUID) -> Tariff:
    tariff = db.session.scalar(
        select(Tariff).where(Tariff.transporteur_id == carrier_id, Tariff.id == tariff_id)
    )
    if tariff is None:
        raise NotFound("tariff not found")
    return tariff


def update_tariff(
    *, carrier_id: uuid.UUID, tariff_id: uuid.UUID, data: TariffIn, actor: Actor
) -> Tariff:
    tariff = get_tariff(carrier_id=carrier_id, tariff_id=tariff_id)
    _check(carrier_id, data)
    changes = {
        name: [getattr(tariff, name), value]
        for name, value in _values(data).items()
        if getattr(tariff, name) != value
    }
    if changes:

        def change():
            for name, (_old, new) in changes.items():
                setattr(tariff, name, new)

        _flush_or_conflict(change)
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="tarief",
            entity_id=tariff.id,
            action="updated",
            changes=changes,
        )
    return tariff


def delete_tariff(*, carrier_id: uuid.UUID, tariff_id: uuid.UUID, actor: Actor) -> None:
    tariff = get_tariff(carrier_id=carrier_id, tariff_id=tariff_id)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="tarief",
        entity_id=tariff.id,
        action="deleted",
        changes={"activity_type": [tariff.activity_type, None]},
    )
    db.session.delete(tariff)
    db.session.flush()


def list_tariffs(*, carrier_id: uuid.UUID, klant_id: uuid.UUID | None = None) -> list[Tariff]:
    """The carrier's tariffs: the defaults first, then by customer; per activity type the
    newest first. klant_id: that customer's only."""
    stmt = select(Tariff).where(Tariff.transporteur_id == carrier_id)
    if klant_id is not None:
        stmt = stmt.where(Tariff.klant_id == klant_id)
    stmt = stmt.order_by(
        Tariff.klant_id.is_not(None),
        Tariff.klant_id,
        Tariff.activity_type,
        Tariff.geldig_vanaf.desc(),
    )
    return list(db.session.scalars(stmt))


def count(*, carrier_id: uuid.UUID) -> int:
    return (
        db.session.scalar(
            select(func.count()).select_from(Tariff).where(Tariff.transporteur_id == carrier_id)
        )
        or 0
    )


def as_rule(tariff: Tariff) -> pricing.Tariff:
    """A stored tariff as the pricing rules read it."""
    return pricing.Tariff(
        id=tariff.id,
        klant_id=tariff.klant_id,
        activity_type=tariff.activity_type,
        geldig_vanaf=tariff.geldig_vanaf,
        grondslag=tariff.grondslag,
        eenheid=tariff.eenheid,
        prijs=tariff.prijs,
        minimum=tariff.minimum,
        wachttijd_vrij_minuten=tariff.wachttijd_vrij_minuten,
        wachttijd_per_uur=tariff.wachttijd_per_uur,
        weekend_toeslag_procent=tariff.weekend_toeslag_procent,
        btw_procent=tariff.btw_procent,
        btw_categorie=tariff.btw_categorie,
        btw_vrijstellingsreden=tariff.btw_vrijstellingsreden,
        afronding_minuten=tariff.afronding_minuten,
        minimum_minuten=tariff.minimum_minuten,
    )


def holding(
    *, carrier_id: uuid.UUID, activity_type: str, klant_id: uuid.UUID | None, dag: date
) -> pricing.Tariff | None:
    """The tariff that holds for a task of activity_type for klant_id on dag (one query)."""
    owners = [Tariff.klant_id.is_(None)]
    if klant_id is not None:
        owners.append(Tariff.klant_id == klant_id)
    rows = db.session.scalars(
        select(Tariff).where(
            Tariff.transporteur_id == carrier_id,
            Tariff.activity_type == activity_type,
            Tariff.geldig_vanaf <= dag,
            (owners[0] if len(owners) == 1 else owners[0] | owners[1]),
        )
    )
    return pricing.select_tariff(
        [as_rule(t) for t in rows], activity_type=activity_type, klant_id=klant_id, dag=dag
    )


# --- for the API: a filtered page, and a change of some fields ----------------------------


@dataclass(frozen=True)
class TariffFilters:
    """A selection of tariffs; every filter narrows."""

    klant_id: uuid.UUID | None = None  # that customer's own
    activity_type: str | None = None
    standaard: bool | None = None  # True: the carrier's defaults only; False: customers' own
    limit: int = 100
    offset: int = 0


@dataclass(frozen=True)
class TariffPage:
    tariffs: list[Tariff]
    total: int


def find_tariffs(*, carrier_id: uuid.UUID, filters: TariffFilters) -> TariffPage:
    """A page of the carrier's tariffs in list_tariffs' order, and the size of the selection."""
    where = [Tariff.transporteur_id == carrier_id]
    if filters.klant_id is not None:
        where.append(Tariff.klant_id == filters.klant_id)
    if filters.activity_type is not None:
        where.append(Tariff.activity_type == filters.activity_type)
    if filters.standaard is not None:
        where.append(
            Tariff.klant_id.is_(None) if filters.standaard else Tariff.klant_id.is_not(None)
        )
    total = db.session.scalar(select(func.count()).select_from(Tariff).where(*where)) or 0
    stmt = (
        select(Tariff)
        .where(*where)
        .order_by(
            Tariff.klant_id.is_not(None),
            Tariff.klant_id,
            Tariff.activity_type,
            Tariff.geldig_vanaf.desc(),
            Tariff.id,  # a total order, so pages neither repeat nor skip a tariff
        )
        .limit(filters.limit)
        .offset(filters.offset)
    )
    return TariffPage(tariffs=list(db.session.scalars(stmt)), total=total)


def change_tariff(
    *, carrier_id: uuid.UUID, tariff_id: uuid.UUID, changes: dict, actor: Actor
) -> Tariff:
    """Change the fields named in changes (the others keep their values) under update_tariff's
    rules: the whole tariff is checked again, as the portal's form does."""
    unknown = set(changes) - set(FIELDS)
    if unknown:
        raise ValueError(f"not fields of a tariff: {sorted(unknown)}")
    tariff = get_tariff(carrier_id=carrier_id, tariff_id=tariff_id)
    current = {name: getattr(tariff, name) for name in FIELDS}
    return update_tariff(
        carrier_id=carrier_id,
        tariff_id=tariff_id,
        data=TariffIn(**{**current, **changes}),
        actor=actor,
    )
