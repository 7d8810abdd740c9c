"""Billing periods and export batches: the lines not exported yet, their totals, the tasks
reopened after their line was billed, and the batches that stamp lines as billed."""

from __future__ import annotations

import dataclasses
import logging
import uuid
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from sqlalchemy import and_, or_, select, update

from portal.accounts.service import carrier_zone
from portal.billing import invoices, pricing
from portal.billing.line_totals import Totals, totals  # noqa: F401 (callers read them here)
from portal.billing.models import BillingExport, BillingLine, Tariff
from portal.customers import service as customers
from portal.drivers import service as drivers
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.fleet import service as fleet
from portal.tasks import completed_work

logger = logging.getLogger(__name__)

# A period is at most a year and lies in this century: a bound like 9999-12-31 would
# overflow when the day after it is computed.
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(2099, 12, 31)


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


# --- periods ----------------------------------------------------------------------------


def longer_than_a_year(van: date, tot: date) -> bool:
    """True when van..tot (both included) is more than a year: 1 Jan to 31 Dec is a year."""
    try:
        year_later = van.replace(year=van.year + 1)
    except ValueError:  # 29 February
        year_later = date(van.year + 1, 3, 1)
    return tot >= year_later


def check_period(van: date, tot: date) -> None:
    """ValidationFailed unless van..tot (both included) is a sensible billing period."""
    errors = []
    for field, day in (("van", van), ("tot", tot)):
        if not FIRST_DAY <= day <= LAST_DAY:
            errors.append({"field": field, "message": f"between {FIRST_DAY} and {LAST_DAY}"})
    if not errors and tot < van:
        errors.append({"field": "tot", "message": "before van"})
    elif not errors and longer_than_a_year(van, tot):
        errors.append({"field": "tot", "message": "the period is longer than a year"})
    if errors:
        raise ValidationFailed(errors)


def _bounds(zone: ZoneInfo, van: date, tot: date) -> tuple[datetime, datetime]:
    """The period as UTC instants [start, end): from van 00:00 to the day after tot, local."""
    start = datetime.combine(van, time(0), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(tot + timedelta(days=1), time(0), tzinfo=zone).astimezone(UTC)
    return start, end


def _task_completed():
    # A reopened task (afgerond -> gestart) is not billable until it is completed again;
    # completing it again updates its line. Archived tasks stay billable: work was done.
    return completed_work.is_completed(
        carrier_column=BillingLine.transporteur_id, task_column=BillingLine.taak_id
    )


# The customer filter's value for lines of tasks without a customer.
NO_CUSTOMER = "geen"


def _unexported_where(
    carrier_id: uuid.UUID,
    van: date,
    tot: date,
    chauffeur_id: uuid.UUID | None,
    klant: uuid.UUID | str | None = None,
) -> list:
    check_period(van, tot)
    start, end = _bounds(carrier_zone(carrier_id), van, tot)
    where = [
        BillingLine.transporteur_id == carrier_id,
        BillingLine.export_id.is_(None),
        BillingLine.afgerond_op >= start,
        BillingLine.afgerond_op < end,
        _task_completed(),
    ]
    if chauffeur_id is not None:
        where.append(BillingLine.chauffeur_id == chauffeur_id)
    if klant == NO_CUSTOMER:
        where.append(BillingLine.klant_id.is_(None))
    elif klant is not None:
        where.append(BillingLine.klant_id == klant)
    return where


def _rows(carrier_id: uuid.UUID, where: list) -> list[BillingRow]:
    """Lines joined to their tasks, then driver names and plates: three queries in all.

    Names and plates come from the drivers and fleet services (one IN query each) rather
    than a join on their tables: those services stay the only door to their tables, and
    the count stays fixed whatever the number of rows (a batch names few drivers and
    vehicles, so the IN lists stay short).
    """
    zone = carrier_zone(carrier_id)
    task = completed_work.facts()
    found = db.session.execute(
        select(
            BillingLine.taak_id,
            BillingLine.chauffeur_id,
            BillingLine.afgerond_op,
            BillingLine.hoeveelheid,
            BillingLine.eenheid,
            BillingLine.kilometers,
            BillingLine.wachttijd_minuten,
            BillingLine.opmerkingen,
            BillingLine.gemeld_op,
            BillingLine.bedrag,
            BillingLine.btw_procent,
            BillingLine.btw_bedrag,
            BillingLine.prijs_reden,
            BillingLine.klant_id,
            BillingLine.handmatig,
            BillingLine.uren,
            BillingLine.gemeten_minuten,
            BillingLine.minuten_bron,
            BillingLine.btw_categorie,
            BillingLine.btw_vrijstellingsreden,
            Tariff.prijs.label("tarief_prijs"),
            Tariff.grondslag,
            Tariff.eenheid.label("tarief_eenheid"),
            Tariff.afronding_minuten,
            Tariff.minimum_minuten,
            task.c.naam,
            task.c.type,
            task.c.adres,
            task.c.postcode,
            task.c.stad,
            task.c.vdm_nummer,
            task.c.vehicle_id,
            task.c.gepland_op,
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
    ).all()
    names = drivers.names_by_id(carrier_id=carrier_id, driver_ids={r.chauffeur_id for r in found})
    plates = fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids={r.vehicle_id for r in found})
    clients = customers.names_by_id(carrier_id=carrier_id, customer_ids={r.klant_id for r in found})
    return [
        BillingRow(
            naam=r.naam,
            klant=clients.get(r.klant_id),
            klant_id=r.klant_id,
            handmatig=r.handmatig,
            type=r.type,
            adres=r.adres,
            postcode=r.postcode,
            stad=r.stad,
            vdm_nummer=r.vdm_nummer,
            chauffeur=names.get(r.chauffeur_id),
            kenteken=plates.get(r.vehicle_id),
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
        for r in found
    ]


def unexported(
    *,
    carrier_id: uuid.UUID,
    van: date,
    tot: date,
    driver_id: uuid.UUID | None = None,
    klant: uuid.UUID | str | None = None,
) -> list[BillingRow]:
    """Lines not exported yet, completed from van through tot in the carrier's time zone;
    klant: one customer's lines, or NO_CUSTOMER for those of tasks without one."""
    return _rows(carrier_id, _unexported_where(carrier_id, van, tot, driver_id, klant))


@dataclass(frozen=True)
class ReopenedRow:
    """A task reopened after its line was exported: billed once, never again."""

    taak_id: uuid.UUID
    naam: str
    status: str
    gefactureerd_op: datetime  # the billed completion, carrier's time zone
    opnieuw_afgerond_op: datetime | None  # completed again since, carrier's time zone
    export_id: uuid.UUID
    export_gemaakt: datetime


def reopened_after_export(
    *,
    carrier_id: uuid.UUID,
    van: date,
    tot: date,
    driver_id: uuid.UUID | None = None,
    limit: int = 100,
) -> list[ReopenedRow]:
    """Tasks whose exported line no longer matches them: reopened (and perhaps completed
    again or cancelled) after the export. Their line stays as billed; the planner decides
    whether the invoice needs a correction. Billed or completed again within van..tot."""
    check_period(van, tot)
    zone = carrier_zone(carrier_id)
    start, end = _bounds(zone, van, tot)
    task = completed_work.facts()
    stmt = (
        select(
            task.c.id,
            task.c.naam,
            task.c.status,
            task.c.afgerond_op,
            BillingLine.afgerond_op.label("billed_at"),
            BillingExport.id.label("export_id"),
            BillingExport.created_at.label("exported_at"),
        )
        .join(
            task,
            and_(
                task.c.transporteur_id == BillingLine.transporteur_id,
                task.c.id == BillingLine.taak_id,
            ),
        )
        .join(
            BillingExport,
            and_(
                BillingExport.transporteur_id == BillingLine.transporteur_id,
                BillingExport.id == BillingLine.export_id,
            ),
        )
        .where(
            BillingLine.transporteur_id == carrier_id,
            or_(
                task.c.status != "afgerond",
                task.c.afgerond_op.is_(None),
                task.c.afgerond_op != BillingLine.afgerond_op,
            ),
            or_(
                and_(BillingLine.afgerond_op >= start, BillingLine.afgerond_op < end),
                and_(task.c.afgerond_op >= start, task.c.afgerond_op < end),
            ),
        )
        .order_by(BillingLine.afgerond_op, task.c.id)
        .limit(limit)
    )
    if driver_id is not None:
        stmt = stmt.where(BillingLine.chauffeur_id == driver_id)
    return [
        ReopenedRow(
            taak_id=r.id,
            naam=r.naam,
            status=r.status,
            gefactureerd_op=r.billed_at.astimezone(zone),
            opnieuw_afgerond_op=r.afgerond_op.astimezone(zone) if r.afgerond_op else None,
            export_id=r.export_id,
            export_gemaakt=r.exported_at.astimezone(zone),
        )
        for r in db.session.execute(stmt)
    ]


# --- exports ----------------------------------------------------------------------------


def export(
    *,
    carrier_id: uuid.UUID,
    van: date,
    tot: date,
    driver_id: uuid.UUID | None = None,
    klant: uuid.UUID | str | None = None,
    actor_label: str,
    only_tasks: set[uuid.UUID] | None = None,
) -> BillingExport:
    """A new batch holding every line `unexported` selects (only_tasks: of those, only the
    lines of these tasks); ValidationFailed when none.

    One UPDATE stamps the lines, guarded by `export_id IS NULL`: an export running at the
    same time (PostgreSQL re-checks the condition after waiting for the row lock) cannot
    take a line twice.
    """
    where = _unexported_where(carrier_id, van, tot, driver_id, klant)
    if only_tasks is not None:
        where.append(BillingLine.taak_id.in_(only_tasks))
    batch = BillingExport(
        transporteur_id=carrier_id,
        van=van,
        tot=tot,
        chauffeur_id=driver_id,
        klant_id=klant if isinstance(klant, uuid.UUID) else None,
        regels=0,
        gemaakt_door=actor_label[:254],
    )
    db.session.add(batch)
    db.session.flush()
    result = db.session.execute(
        update(BillingLine).where(*where).values(export_id=batch.id),
        execution_options={"synchronize_session": "fetch"},
    )
    if not result.rowcount:
        db.session.delete(batch)
        db.session.flush()
        raise ValidationFailed([{"field": "periode", "message": "nothing to export"}])
    batch.regels = result.rowcount
    db.session.flush()
    invoices.make_for_batch(carrier_id=carrier_id, batch=batch, actor_label=actor_label)
    logger.info(
        "billing export %s: %s lines, %s..%s, by %s", batch.id, batch.regels, van, tot, actor_label
    )
    return batch


def lock_unexported(
    *,
    carrier_id: uuid.UUID,
    van: date,
    tot: date,
    driver_id: uuid.UUID | None = None,
    klant: uuid.UUID | str | None = None,
) -> None:
    """Lock the lines `unexported` selects until the transaction ends (PostgreSQL): an export
    that compares them with what was shown exports exactly that."""
    where = _unexported_where(carrier_id, van, tot, driver_id, klant)
    db.session.execute(select(BillingLine.id).where(*where).with_for_update())


def get_export(*, carrier_id: uuid.UUID, export_id: uuid.UUID) -> BillingExport:
    """The carrier's export batch; NotFound when absent or another carrier's."""
    batch = db.session.scalar(
        select(BillingExport).where(
            BillingExport.transporteur_id == carrier_id, BillingExport.id == export_id
        )
    )
    if batch is None:
        raise NotFound("export not found")
    return batch


def export_rows(
    *, carrier_id: uuid.UUID, export_id: uuid.UUID
) -> tuple[BillingExport, list[BillingRow]]:
    """An earlier batch and its lines, to download it again."""
    batch = get_export(carrier_id=carrier_id, export_id=export_id)
    rows = _rows(
        carrier_id,
        [BillingLine.transporteur_id == carrier_id, BillingLine.export_id == batch.id],
    )
    return batch, rows


def list_exports(*, carrier_id: uuid.UUID, limit: int, offset: int = 0) -> list[BillingExport]:
    """The carrier's export batches, newest first."""
    stmt = (
        select(BillingExport)
        .where(BillingExport.transporteur_id == carrier_id)
        .order_by(BillingExport.created_at.desc(), BillingExport.id)
        .limit(limit)
        .offset(offset)
    )
    return list(db.session.scalars(stmt))
