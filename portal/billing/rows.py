"""A billing line as an invoice, the billing page and the export files need it (BillingRow):
the line, its task's facts, the tariff that priced it, and the names of its driver, vehicle
and customer."""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass, fields
from datetime import datetime
from decimal import Decimal

from sqlalchemy import and_, select

from portal.accounts.service import carrier_zone
from portal.billing import pricing
from portal.billing.models import BillingLine, Tariff
from portal.customers import service as customers
from portal.drivers import service as drivers
from portal.extensions import db
from portal.fleet import service as fleet
from portal.tasks import completed_work


@dataclass(frozen=True)
class BillingRow:
    """One line as an invoice needs it; field order is the column order of the export.

    Times are in the carrier's time zone (aware), so CSV and XLSX show the local clock.
    """

    naam: str
    klant: str | None
    type: str
    adres: str | None
    postcode: str | None
    stad: str | None
    vdm_nummer: str | None
    chauffeur: str | None
    kenteken: str | None
    gepland_op: datetime | None
    afgerond_op: datetime
    hoeveelheid: float | None
    eenheid: str | None
    kilometers: float | None
    wachttijd_minuten: int | None
    opmerkingen: str | None
    # The price (net, excluding VAT) under the tariff that held, or why there is none.
    bedrag: Decimal | None
    btw_procent: Decimal | None
    btw_bedrag: Decimal | None
    prijs_reden: str | None
    # The tariff that priced the line: its price and what the price is per (ton, vracht,
    # uur, km); empty for a line priced by hand or not at all.
    tarief_prijs: Decimal | None
    tarief_per: str | None
    # Per hour: the hours billed (the priced quantity, after the tariff's rounding and
    # minimum) and the minutes the task's own times recorded.
    uren: Decimal | None
    gemeten_minuten: int | None
    # The VAT category (EN 16931: S, Z, E, AE, O) and exemption reason of a priced line.
    btw_categorie: str | None
    btw_vrijstellingsreden: str | None
    taak_id: uuid.UUID
    # Shown on the page, not exported: the quantity is the planned one, nobody reported it.
    gepland: bool = dataclasses.field(default=False, metadata={"export": False})
    klant_id: uuid.UUID | None = dataclasses.field(default=None, metadata={"export": False})
    handmatig: bool = dataclasses.field(default=False, metadata={"export": False})
    # Where the minutes came from (activiteiten, status) and the tariff's rounding: shown.
    minuten_bron: str | None = dataclasses.field(default=None, metadata={"export": False})
    afronding_minuten: int | None = dataclasses.field(default=None, metadata={"export": False})
    minimum_minuten: int | None = dataclasses.field(default=None, metadata={"export": False})


COLUMNS = tuple(f.name for f in fields(BillingRow) if f.metadata.get("export", True))


# The line's columns a row shows, and the tariff's that priced it.
_LINE_COLUMNS = (
    "taak_id", "chauffeur_id", "afgerond_op", "hoeveelheid", "eenheid", "kilometers",
    "wachttijd_minuten", "opmerkingen", "gemeld_op", "bedrag", "btw_procent", "btw_bedrag",
    "prijs_reden", "klant_id", "handmatig", "uren", "gemeten_minuten", "minuten_bron",
    "btw_categorie", "btw_vrijstellingsreden",
)  # fmt: skip
_TASK_COLUMNS = (
    "naam", "type", "adres", "postcode", "stad", "vdm_nummer", "vehicle_id", "gepland_op",
)  # fmt: skip


def rows_of(carrier_id: uuid.UUID, where: list) -> list[BillingRow]:
    """Lines joined to their tasks, then driver names and plates: three queries in all.

    Names and plates come from the drivers and fleet services (one IN query each) rather
    than a join on their tables: those services stay the only door to their tables, and
    the count stays fixed whatever the number of rows (a batch names few drivers and
    vehicles, so the IN lists stay short).
    """
    zone = carrier_zone(carrier_id)
    found = db.session.execute(_query(where)).all()
    names = drivers.names_by_id(carrier_id=carrier_id, driver_ids={r.chauffeur_id for r in found})
    plates = fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids={r.vehicle_id for r in found})
    clients = customers.names_by_id(carrier_id=carrier_id, customer_ids={r.klant_id for r in found})
    return [
        _row(r, zone=zone, driver=names.get(r.chauffeur_id), plate=plates.get(r.vehicle_id),
             customer=clients.get(r.klant_id))
        for r in found
    ]  # fmt: skip


def _query(where: list):
    """The lines `where` selects with their task's facts and their tariff, in the order of
    their completion, then the task's name."""
    task = completed_work.facts()
    return (
        select(
            *(getattr(BillingLine, name) for name in _LINE_COLUMNS),
            Tariff.prijs.label("tarief_prijs"),
            Tariff.grondslag,
            Tariff.eenheid.label("tarief_eenheid"),
            Tariff.afronding_minuten,
            Tariff.minimum_minuten,
            *(task.c[name] for name in _TASK_COLUMNS),
        )
        .join(
            task,
            and_(
                task.c.transporteur_id == BillingLine.transporteur_id,
                task.c.id == BillingLine.taak_id,
            ),
        )
        .outerjoin(
            Tariff,
            and_(
                Tariff.transporteur_id == BillingLine.transporteur_id,
                Tariff.id == BillingLine.tarief_id,
                BillingLine.bedrag.is_not(None),
            ),
        )
        .where(*where)
        .order_by(BillingLine.afgerond_op, task.c.naam, BillingLine.id)
    )


def _row(r, *, zone, driver: str | None, plate: str | None, customer: str | None) -> BillingRow:
    return BillingRow(
        naam=r.naam,
        klant=customer,
        klant_id=r.klant_id,
        handmatig=r.handmatig,
        type=r.type,
        adres=r.adres,
        postcode=r.postcode,
        stad=r.stad,
        vdm_nummer=r.vdm_nummer,
        chauffeur=driver,
        kenteken=plate,
        gepland_op=r.gepland_op.astimezone(zone) if r.gepland_op else None,
        afgerond_op=r.afgerond_op.astimezone(zone),
        hoeveelheid=r.hoeveelheid,
        eenheid=r.eenheid,
        kilometers=r.kilometers,
        wachttijd_minuten=r.wachttijd_minuten,
        opmerkingen=r.opmerkingen,
        bedrag=r.bedrag,
        btw_procent=r.btw_procent,
        btw_bedrag=r.btw_bedrag,
        prijs_reden=r.prijs_reden,
        tarief_prijs=pricing.decimal(r.tarief_prijs),
        tarief_per=(r.tarief_eenheid if r.grondslag == "eenheid" else r.grondslag)
        if r.tarief_prijs is not None
        else None,
        uren=pricing.shown_hours(pricing.decimal(r.uren)),
        gemeten_minuten=r.gemeten_minuten,
        btw_categorie=r.btw_categorie,
        btw_vrijstellingsreden=r.btw_vrijstellingsreden,
        minuten_bron=r.minuten_bron,
        afronding_minuten=r.afronding_minuten,
        minimum_minuten=r.minimum_minuten,
        taak_id=r.taak_id,
        gepland=r.gemeld_op is None,
    )
