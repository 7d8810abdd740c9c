"""Billing: the only door to facturatieregels and facturatie_exports.

A completed task gets one billing line (what was actually done). Lines are exported in
batches: an export stamps its lines with the batch id, so a line is billed once, and the
batch can be downloaded again later with the same lines.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import logging
import math
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from sqlalchemy import and_, exists, or_, select, update
from sqlalchemy.orm import aliased

from portal.accounts.service import carrier_zone
from portal.billing.models import BillingExport, BillingLine
from portal.drivers import service as drivers
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import db
from portal.fleet import service as fleet
from portal.tasks.models import Task
from portal.types import utcnow

logger = logging.getLogger(__name__)

# A period is at most a year and lies in this century: a bound like 9999-12-31 would
# overflow when the day after it is computed.
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(2099, 12, 31)
EENHEID_MAX = 20


@dataclass(frozen=True)
class BillingRow:
    """One line as an invoice needs it; field order is the column order of the export.

    Times are in the carrier's time zone (aware), so CSV and XLSX show the local clock.
    """

    naam: str
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
    taak_id: uuid.UUID
    # Shown on the page, not exported: the quantity is the planned one, nobody reported it.
    gepland: bool = dataclasses.field(default=False, metadata={"export": False})


COLUMNS = tuple(f.name for f in fields(BillingRow) if f.metadata.get("export", True))


@dataclass(frozen=True)
class Totals:
    regels: int
    hoeveelheid: dict[str, float]  # per eenheid; "" when a line names none
    kilometers: float
    wachttijd_minuten: int


# --- lines ------------------------------------------------------------------------------


def _check_amount(errors: list, field: str, value, upper: float) -> None:
    if value is None:
        return
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        errors.append({"field": field, "message": "not a number"})
    elif not 0 <= value <= upper:
        errors.append({"field": field, "message": f"between 0 and {upper:g}"})


class AlreadyBilled(Conflict):
    """The task's line is in an export: the invoice has gone out, the line stays as billed."""

    title = "Already billed"


def _line_of(carrier_id: uuid.UUID, task_id: uuid.UUID) -> tuple[BillingLine, datetime | None]:
    """The task's line and when its export was made (None: not exported); (None, None)."""
    found = db.session.execute(
        select(BillingLine, BillingExport.created_at)
        .outerjoin(
            BillingExport,
            and_(
                BillingExport.transporteur_id == BillingLine.transporteur_id,
                BillingExport.id == BillingLine.export_id,
            ),
        )
        .where(BillingLine.transporteur_id == carrier_id, BillingLine.taak_id == task_id)
    ).first()
    return (found[0], found[1]) if found else (None, None)


def _already_billed(carrier_id: uuid.UUID, line: BillingLine, exported_at: datetime):
    day = exported_at.astimezone(carrier_zone(carrier_id)).date().isoformat()
    return AlreadyBilled(f"already billed in export {day}", export_id=str(line.export_id))


def line_for_completion(*, carrier_id: uuid.UUID, task: Task) -> BillingLine:
    """The line a completion makes: the planned quantity and unit until the actual work is
    reported (record_line). Called for every completion (lifecycle.move_task), so the board,
    the driver's status move and the API all bill alike.

    Completing a reopened task brings its line back (while reopened, `unexported` leaves it
    out): with the new completion's time and driver, the reported values kept, and the
    planned ones taken afresh when nothing was reported (the plan may have changed). A line
    already exported stays as billed: a reopened task is never billed twice. The caller
    holds the task's row lock, so concurrent completions cannot both insert.
    """
    if task.transporteur_id != carrier_id:
        raise NotFound("task not found")
    if task.afgerond_op is None:
        raise ValidationFailed([{"field": "afgerond_op", "message": "the task is not completed"}])
    line, _exported_at = _line_of(carrier_id, task.id)
    if line is not None and line.export_id is not None:
        logger.info("task %s completed again; its line %s stays billed", task.id, line.id)
        return line
    if line is None:
        line = BillingLine(transporteur_id=carrier_id, taak_id=task.id)
        db.session.add(line)
    if line.gemeld_op is None:
        line.hoeveelheid, line.eenheid = task.hoeveelheid, task.eenheid
    line.chauffeur_id = task.chauffeur_id
    line.afgerond_op = task.afgerond_op
    db.session.flush()
    logger.info("billing line %s for completed task %s", line.id, task.id)
    return line


def completed_without_line(*, carrier_id: uuid.UUID, since: datetime | None) -> list[Task]:
    """Completed tasks without a billing line (completed on the board or by the driver before
    every completion made one), oldest first; since: completed at or after it."""
    stmt = select(Task).where(
        Task.transporteur_id == carrier_id,
        Task.status == "afgerond",
        ~exists().where(
            BillingLine.transporteur_id == Task.transporteur_id, BillingLine.taak_id == Task.id
        ),
    )
    if since is not None:
        stmt = stmt.where(Task.afgerond_op >= since)
    return list(db.session.scalars(stmt.order_by(Task.afgerond_op, Task.id)))


def record_line(
    *,
    carrier_id: uuid.UUID,
    task: Task,
    hoeveelheid: float | None = None,
    eenheid: str | None = None,
    kilometers: float | None = None,
    wachttijd_minuten: int | None = None,
    opmerkingen: str | None = None,
) -> BillingLine:
    """The actual work of a completed task (POST afronding): its line, updated or made.

    Quantity and unit default to the task's planned ones. Sending the completion again
    replaces every value (the latest report is the truth); once the line is in an export
    it is refused with AlreadyBilled (409), since the invoice has gone out.
    """
    if task.transporteur_id != carrier_id:
        raise NotFound("task not found")
    if task.afgerond_op is None:
        raise ValidationFailed([{"field": "afgerond_op", "message": "the task is not completed"}])
    errors: list[dict] = []
    _check_amount(errors, "hoeveelheid", hoeveelheid, 1e9)
    _check_amount(errors, "kilometers", kilometers, 100_000)
    _check_amount(errors, "wachttijd_minuten", wachttijd_minuten, 10_000)
    if wachttijd_minuten is not None and not isinstance(wachttijd_minuten, int):
        errors.append({"field": "wachttijd_minuten", "message": "whole minutes"})
    eenheid = (eenheid.strip() or None) if eenheid is not None else task.eenheid
    if eenheid is not None and len(eenheid) > EENHEID_MAX:
        errors.append({"field": "eenheid", "message": f"at most {EENHEID_MAX} characters"})
    if errors:
        raise ValidationFailed(errors)

    line, exported_at = _line_of(carrier_id, task.id)
    if line is not None and line.export_id is not None:
        raise _already_billed(carrier_id, line, exported_at)
    new = line is None
    if new:
        line = BillingLine(transporteur_id=carrier_id, taak_id=task.id)
        db.session.add(line)
    line.chauffeur_id = task.chauffeur_id
    line.afgerond_op = task.afgerond_op
    line.hoeveelheid = float(hoeveelheid) if hoeveelheid is not None else task.hoeveelheid
    line.eenheid = eenheid
    line.kilometers = float(kilometers) if kilometers is not None else None
    line.wachttijd_minuten = wachttijd_minuten
    line.opmerkingen = opmerkingen
    line.gemeld_op = utcnow()
    db.session.flush()
    logger.info("billing line %s for task %s (%s)", line.id, task.id, "new" if new else "updated")
    return line


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
    task = aliased(Task)  # the list query joins Task too; this one must stay its own
    return exists().where(
        task.transporteur_id == BillingLine.transporteur_id,
        task.id == BillingLine.taak_id,
        task.status == "afgerond",
    )


def _unexported_where(
    carrier_id: uuid.UUID, van: date, tot: date, chauffeur_id: uuid.UUID | None
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
    return where


def _rows(carrier_id: uuid.UUID, where: list) -> list[BillingRow]:
    """Lines joined to their tasks, then driver names and plates: three queries in all.

    Names and plates come from the drivers and fleet services (one IN query each) rather
    than a join on their tables: those services stay the only door to their tables, and
    the count stays fixed whatever the number of rows (a batch names few drivers and
    vehicles, so the IN lists stay short).
    """
    zone = carrier_zone(carrier_id)
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
            Task.naam,
            Task.type,
            Task.adres,
            Task.postcode,
            Task.stad,
            Task.vdm_nummer,
            Task.vehicle_id,
            Task.gepland_op,
        )
        .join(
            Task,
            and_(
                Task.transporteur_id == BillingLine.transporteur_id,
                Task.id == BillingLine.taak_id,
            ),
        )
        .where(*where)
        .order_by(BillingLine.afgerond_op, Task.naam, BillingLine.id)
    ).all()
    names = drivers.names_by_id(carrier_id=carrier_id, driver_ids={r.chauffeur_id for r in found})
    plates = fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids={r.vehicle_id for r in found})
    return [
        BillingRow(
            naam=r.naam,
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
            taak_id=r.taak_id,
            gepland=r.gemeld_op is None,
        )
        for r in found
    ]


def unexported(
    *, carrier_id: uuid.UUID, van: date, tot: date, chauffeur_id: uuid.UUID | None = None
) -> list[BillingRow]:
    """Lines not exported yet, completed from van through tot in the carrier's time zone."""
    return _rows(carrier_id, _unexported_where(carrier_id, van, tot, chauffeur_id))


def totals(rows: Iterable[BillingRow]) -> Totals:
    """Count, quantity per unit, kilometres and waiting minutes of some rows."""
    count = 0
    per_unit: dict[str, list[float]] = {}
    km: list[float] = []
    minutes = 0
    for row in rows:
        count += 1
        if row.hoeveelheid is not None:
            per_unit.setdefault(row.eenheid or "", []).append(row.hoeveelheid)
        if row.kilometers is not None:
            km.append(row.kilometers)
        minutes += row.wachttijd_minuten or 0
    return Totals(
        regels=count,
        hoeveelheid={unit: math.fsum(values) for unit, values in sorted(per_unit.items())},
        kilometers=math.fsum(km),
        wachttijd_minuten=minutes,
    )


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
    chauffeur_id: uuid.UUID | None = None,
    limit: int = 100,
) -> list[ReopenedRow]:
    """Tasks whose exported line no longer matches them: reopened (and perhaps completed
    again or cancelled) after the export. Their line stays as billed; the planner decides
    whether the invoice needs a correction. Billed or completed again within van..tot."""
    check_period(van, tot)
    zone = carrier_zone(carrier_id)
    start, end = _bounds(zone, van, tot)
    stmt = (
        select(
            Task.id,
            Task.naam,
            Task.status,
            Task.afgerond_op,
            BillingLine.afgerond_op.label("billed_at"),
            BillingExport.id.label("export_id"),
            BillingExport.created_at.label("exported_at"),
        )
        .join(
            Task,
            and_(
                Task.transporteur_id == BillingLine.transporteur_id, Task.id == BillingLine.taak_id
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
                Task.status != "afgerond",
                Task.afgerond_op.is_(None),
                Task.afgerond_op != BillingLine.afgerond_op,
            ),
            or_(
                and_(BillingLine.afgerond_op >= start, BillingLine.afgerond_op < end),
                and_(Task.afgerond_op >= start, Task.afgerond_op < end),
            ),
        )
        .order_by(BillingLine.afgerond_op, Task.id)
        .limit(limit)
    )
    if chauffeur_id is not None:
        stmt = stmt.where(BillingLine.chauffeur_id == chauffeur_id)
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
    chauffeur_id: uuid.UUID | None = None,
    actor_label: str,
) -> BillingExport:
    """A new batch holding every line `unexported` selects; ValidationFailed when none.

    One UPDATE stamps the lines, guarded by `export_id IS NULL`: an export running at the
    same time (PostgreSQL re-checks the condition after waiting for the row lock) cannot
    take a line twice.
    """
    where = _unexported_where(carrier_id, van, tot, chauffeur_id)
    batch = BillingExport(
        transporteur_id=carrier_id,
        van=van,
        tot=tot,
        chauffeur_id=chauffeur_id,
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
    logger.info(
        "billing export %s: %s lines, %s..%s, by %s", batch.id, batch.regels, van, tot, actor_label
    )
    return batch


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


# --- files ------------------------------------------------------------------------------

# CSV is made for Dutch Excel, the tool the office opens it with: UTF-8 with a BOM (else
# Excel reads it as Windows-1252), ';' between fields and a decimal comma (what Excel
# expects in the nl-NL locale; a point would turn 1.5 into a date or text), no thousands
# separator, times as 'YYYY-MM-DD HH:MM' on the carrier's clock, CRLF line ends. Software
# that reads the file should take the XLSX, which holds real numbers and dates.
CSV_DATETIME = "%Y-%m-%d %H:%M"
# Text a spreadsheet would run as a formula (CSV injection): prefixed with an apostrophe.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_number(value: float | int) -> str:
    if isinstance(value, int) or value.is_integer():
        return str(int(value))
    return format(Decimal(repr(value)), "f").replace(".", ",")


def _csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime(CSV_DATETIME)
    if isinstance(value, int | float):
        return _csv_number(value)
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def to_csv(rows: Sequence[BillingRow]) -> bytes:
    """The rows as CSV for Dutch Excel (see above), with a header row of field names."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_csv_value(getattr(row, name)) for name in COLUMNS])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


XLSX_DATETIME = "yyyy-mm-dd hh:mm"
XLSX_WIDTHS = {"gepland_op": 17, "afgerond_op": 17, "taak_id": 38}


def to_xlsx(rows: Sequence[BillingRow]) -> bytes:
    """The rows as an Excel sheet: numbers and dates as such, frozen header, autofilter."""
    from openpyxl import Workbook
    from openpyxl.styles import Font, PatternFill
    from openpyxl.utils import get_column_letter

    book = Workbook()
    sheet = book.active
    sheet.title = "Facturatie"
    sheet.append(COLUMNS)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
        cell.fill = PatternFill("solid", fgColor="E3F3E6")
    widths = {name: len(name) for name in COLUMNS}
    for number, row in enumerate(rows, start=2):
        for column, name in enumerate(COLUMNS, start=1):
            value = getattr(row, name)
            cell = sheet.cell(row=number, column=column)
            if isinstance(value, datetime):
                # Excel has no time zones: the carrier's wall-clock time.
                cell.value = value.replace(tzinfo=None)
                cell.number_format = XLSX_DATETIME
            elif isinstance(value, int | float) or value is None:
                cell.value = value
            else:
                # Set as text explicitly: openpyxl would store '=...' as a formula.
                cell.value = str(value)
                cell.data_type = "s"
                if number <= 500:
                    widths[name] = max(widths[name], len(cell.value))
            if isinstance(value, int | float) and number <= 500:
                widths[name] = max(widths[name], len(str(value)))
    for column, name in enumerate(COLUMNS, start=1):
        width = XLSX_WIDTHS.get(name) or min(max(widths[name], 8), 50)
        sheet.column_dimensions[get_column_letter(column)].width = width + 2
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(COLUMNS))}{len(rows) + 1}"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def has_line(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> bool:
    """Whether the task has a billing line (then deleting it archives it instead)."""
    return bool(
        db.session.scalar(
            select(BillingLine.id).where(
                BillingLine.transporteur_id == carrier_id, BillingLine.taak_id == task_id
            )
        )
    )
