"""Tariffs: the carrier's default price per activity type and each customer's own, valid from
a day on. With service.py the door to the billing tables; pricing.py holds the rules that
use them."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.billing import pricing, tariff_checks
from portal.billing.models import Tariff
from portal.errors import Conflict, NotFound
from portal.extensions import db

# A tariff as sent, and its checks (tariff_checks.py); callers find them here.
FIELDS = tariff_checks.FIELDS
PRICE_MAX = tariff_checks.PRICE_MAX
REASON_MAX = tariff_checks.REASON_MAX
TariffIn = tariff_checks.TariffIn


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
    tariff_checks.check(carrier_id, data)
    tariff = Tariff(transporteur_id=carrier_id, **tariff_checks.values_of(data))
    _flush_or_conflict(lambda: db.session.add(tariff))
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="tarief",
        entity_id=tariff.id,
        action="created",
        changes={k: [None, v] for k, v in tariff_checks.values_of(data).items()},
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
    tariff_checks.check(carrier_id, data)
    changes = {
        name: [getattr(tariff, name), value]
        for name, value in tariff_checks.values_of(data).items()
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


def list_tariffs(*, carrier_id: uuid.UUID, customer_id: uuid.UUID | None = None) -> list[Tariff]:
    """The carrier's tariffs: the defaults first, then by customer; per activity type the
    newest first. customer_id: that customer's only."""
    stmt = select(Tariff).where(Tariff.transporteur_id == carrier_id)
    if customer_id is not None:
        stmt = stmt.where(Tariff.klant_id == customer_id)
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
