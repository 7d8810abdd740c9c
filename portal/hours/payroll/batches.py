"""The payroll export: approved weeks' payable hours per driver per week as CSV and XLSX, with
the payroll categories as columns named and coded the way the carrier's payroll package
imports them (settings kept by portal/accounts/payroll_columns.py).

Like the billing export, a batch (loon_exports) records which weeks it carried, with their
figures and the column settings it was made with, so downloading it again gives the same
file, and a week already exported is left out of the next export unless the planner asks to
export it again (the batch then says `opnieuw`). A week that is not approved is never
exported; an approved week that cannot be computed (its rule set, say) neither.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from sqlalchemy import and_, select

from portal import spreadsheets
from portal.accounts import payroll_columns as settings
from portal.drivers import service as drivers
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.hours import cao
from portal.hours.days.queries import approved_weeks
from portal.hours.pay_models import PayrollExport, PayrollExportWeek
from portal.hours.payroll.columns import column_settings, columns_of_batch, value
from portal.hours.payroll.payable import payable_weeks
from portal.hours.totals import IsoWeek

logger = logging.getLogger(__name__)

MAX_WEEKS = 53
# --- the preview --------------------------------------------------------------------------


@dataclass(frozen=True)
class Exported:
    export_id: uuid.UUID
    created_at: datetime
    keer: int  # how many batches carried the week


@dataclass(frozen=True)
class PreviewRow:
    driver_id: uuid.UUID
    naam: str
    personeelsnummer: str | None
    actief: bool
    user_token: str  # for the link to the driver's week
    week: IsoWeek
    goedgekeurd: bool
    fout: cao.CaoError | None
    cijfers: dict | None  # as a batch stores them; None when the week cannot be computed
    geexporteerd: Exported | None

    @property
    def exporteerbaar(self) -> bool:
        return self.goedgekeurd and self.cijfers is not None


COUNTS = ("goedgekeurd", "niet_goedgekeurd", "fout", "al_geexporteerd", "nieuw")


@dataclass(frozen=True)
class Preview:
    van: IsoWeek
    tot: IsoWeek
    weken: list[IsoWeek]
    rows: list[PreviewRow]

    @property
    def counts(self) -> dict[str, int]:
        """goedgekeurd and niet_goedgekeurd; of the approved: fout (not computable),
        al_geexporteerd (exported before) and nieuw (to export)."""
        found = dict.fromkeys(COUNTS, 0)
        for row in self.rows:
            found["goedgekeurd" if row.goedgekeurd else "niet_goedgekeurd"] += 1
            if row.goedgekeurd and row.cijfers is None:
                found["fout"] += 1
            elif row.exporteerbaar:
                found["al_geexporteerd" if row.geexporteerd else "nieuw"] += 1
        return found

    def te_exporteren(self, opnieuw: bool) -> list[PreviewRow]:
        """The rows an export takes: approved with figures, the exported ones on request."""
        return [r for r in self.rows if r.exporteerbaar and (opnieuw or r.geexporteerd is None)]


def weeks_of(start: IsoWeek, end: IsoWeek) -> list[IsoWeek]:
    """van through tot; ValidationFailed when tot is before van or the span is too long."""
    count = (end.monday - start.monday).days // 7 + 1
    if count < 1:
        raise ValidationFailed([{"field": "tot", "code": "tot_voor_van", "message": "before van"}])
    if count > MAX_WEEKS:
        raise ValidationFailed(
            [{"field": "tot", "code": "te_lang", "message": f"at most {MAX_WEEKS} weeks"}]
        )
    return [start.shifted(n) for n in range(count)]


def _exported(carrier_id: uuid.UUID, driver_ids: set, weeks: list[IsoWeek]) -> dict:
    """(driver, week) -> the latest batch that carried it: one query."""
    rows = db.session.execute(
        select(
            PayrollExportWeek.chauffeur_id,
            PayrollExportWeek.jaar,
            PayrollExportWeek.week,
            PayrollExport.id,
            PayrollExport.created_at,
        )
        .join(
            PayrollExport,
            and_(
                PayrollExport.transporteur_id == PayrollExportWeek.transporteur_id,
                PayrollExport.id == PayrollExportWeek.export_id,
            ),
        )
        .where(
            PayrollExportWeek.transporteur_id == carrier_id,
            PayrollExportWeek.chauffeur_id.in_(driver_ids),
            (PayrollExportWeek.jaar * 100 + PayrollExportWeek.week).in_([w.key for w in weeks]),
        )
        .order_by(PayrollExport.created_at, PayrollExport.id)
    )
    found: dict = {}
    for row in rows:
        key = (row.chauffeur_id, IsoWeek(row.jaar, row.week))
        keer = found[key].keer + 1 if key in found else 1
        found[key] = Exported(row.id, row.created_at, keer)
    return found


def _cijfers(driver, payable) -> dict:
    data = payable.result.to_json()
    return {
        "chauffeur": {"naam": driver.naam, "personeelsnummer": driver.personeelsnummer},
        "jaar": payable.week.jaar,
        "week": payable.week.week,
        "regelset_geldig_vanaf": data["regelset_geldig_vanaf"],
        "contract_min": data["contract_min"],
        "totaal": data["totaal"],
    }


def preview(*, carrier_id: uuid.UUID, start: IsoWeek, end: IsoWeek) -> Preview:
    """Every driver-week of the period worth a look: approved, worked, exported before, or
    not computable; active drivers and those who left with an approved week. By name, then
    week. A fixed number of queries whatever the numbers."""
    weeks = weeks_of(start, end)
    everyone = drivers.list_drivers(carrier_id=carrier_id, active_only=False)
    approved = approved_weeks(carrier_id=carrier_id, weeks=weeks)
    leavers = {driver_id for driver_id, _ in approved}
    shown = [d for d in everyone if d.actief or d.id in leavers]
    ids = {d.id for d in shown}
    payable = payable_weeks(carrier_id=carrier_id, driver_ids=ids, weeks=weeks)
    exported = _exported(carrier_id, ids, weeks) if ids else {}
    rows = []
    for driver in shown:
        for week in weeks:
            found = payable[driver.id, week]
            done = exported.get((driver.id, week))
            ok = found.status == "goedgekeurd"
            worked = found.result is not None and found.result.totaal.gewerkt_min > 0
            if not (ok or worked or done or found.fout):
                continue
            rows.append(
                PreviewRow(
                    driver_id=driver.id,
                    naam=driver.naam,
                    personeelsnummer=driver.personeelsnummer,
                    actief=driver.actief,
                    user_token=driver.user_token,
                    week=week,
                    goedgekeurd=ok,
                    fout=found.fout,
                    cijfers=_cijfers(driver, found) if found.result is not None else None,
                    geexporteerd=done,
                )
            )
    return Preview(van=start, tot=end, weken=weeks, rows=rows)


# --- export batches -----------------------------------------------------------------------


def export(
    *, carrier_id: uuid.UUID, van: IsoWeek, tot: IsoWeek, opnieuw: bool, actor_label: str
) -> tuple[PayrollExport, Preview]:
    """A batch of the period's approved weeks not exported yet (with opnieuw: those exported
    before too). ValidationFailed code `niets_te_exporteren`, with the counts that say why,
    when there is none. Exports of one carrier run one after the other."""
    settings.lock_for_payroll_export(carrier_id=carrier_id)
    found = preview(carrier_id=carrier_id, start=van, end=tot)
    chosen = found.te_exporteren(opnieuw)
    if not chosen:
        why = {"field": "periode", "code": "niets_te_exporteren", "message": "nothing to export"}
        raise ValidationFailed([why | found.counts])
    kop, columns = column_settings(carrier_id=carrier_id, figures=[r.cijfers for r in chosen])
    batch = PayrollExport(
        transporteur_id=carrier_id,
        van=van.monday,
        tot=tot.monday,
        weken=len(chosen),
        opnieuw=any(r.geexporteerd is not None for r in chosen),
        kolommen={"kop": kop, "kolommen": [asdict(c) for c in columns]},
        gemaakt_door=actor_label[:254],
    )
    db.session.add(batch)
    db.session.flush()
    db.session.add_all(
        PayrollExportWeek(
            transporteur_id=carrier_id,
            export_id=batch.id,
            chauffeur_id=row.driver_id,
            jaar=row.week.jaar,
            week=row.week.week,
            cijfers=row.cijfers,
        )
        for row in chosen
    )
    db.session.flush()
    logger.info("payroll export %s: %s weeks of %s..%s", batch.id, batch.weken, van, tot)
    return batch, found


def get_export(*, carrier_id: uuid.UUID, export_id: uuid.UUID) -> PayrollExport:
    """The carrier's payroll batch; NotFound when absent or another carrier's."""
    batch = db.session.scalar(
        select(PayrollExport).where(
            PayrollExport.transporteur_id == carrier_id, PayrollExport.id == export_id
        )
    )
    if batch is None:
        raise NotFound("payroll export not found")
    return batch


def export_weeks(
    *, carrier_id: uuid.UUID, export_id: uuid.UUID
) -> tuple[PayrollExport, list[PayrollExportWeek]]:
    """A batch and its weeks as exported, in file order (driver name, then week)."""
    batch = get_export(carrier_id=carrier_id, export_id=export_id)
    weeks = list(
        db.session.scalars(
            select(PayrollExportWeek).where(
                PayrollExportWeek.transporteur_id == carrier_id,
                PayrollExportWeek.export_id == batch.id,
            )
        )
    )
    weeks.sort(key=_file_order)
    return batch, weeks


def _file_order(row: PayrollExportWeek):
    who = row.cijfers.get("chauffeur", {})
    return ((who.get("naam") or "").casefold(), str(row.chauffeur_id), row.jaar, row.week)


def list_exports(*, carrier_id: uuid.UUID, limit: int, offset: int = 0) -> list[PayrollExport]:
    """The carrier's payroll batches, newest first."""
    return list(
        db.session.scalars(
            select(PayrollExport)
            .where(PayrollExport.transporteur_id == carrier_id)
            .order_by(PayrollExport.created_at.desc(), PayrollExport.id)
            .limit(limit)
            .offset(offset)
        )
    )


# --- files --------------------------------------------------------------------------------

# Written as every export writes them (portal/spreadsheets.py): CSV for Dutch Excel and
# payroll packages that read it, XLSX with real numbers, text cleaned and never a formula.


def _table(batch: PayrollExport, weeks: list[PayrollExportWeek]):
    kop, columns = columns_of_batch(batch)
    shown = [c for c in columns if c.mee]
    return (
        shown,
        [c.header(kop) for c in shown],
        [[value(c, w.cijfers) for c in shown] for w in weeks],
    )


def to_csv(batch: PayrollExport, weeks: list[PayrollExportWeek]) -> bytes:
    """The batch as CSV: a header row, then one row per driver-week."""
    _, header, rows = _table(batch, weeks)
    return spreadsheets.to_csv([header, *rows])


def to_xlsx(batch: PayrollExport, weeks: list[PayrollExportWeek]) -> bytes:
    """The batch as an Excel sheet; the same bytes every time (the batch's time stamps it)."""
    shown, header, rows = _table(batch, weeks)
    book = spreadsheets.new_book()
    sheet = book.active
    sheet.title = "Loonexport"
    for column, text in enumerate(header, start=1):
        spreadsheets.bold(spreadsheets.put_at(sheet, 1, column, str(text)))
    for number, row in enumerate(rows, start=2):
        for column, (spec, item) in enumerate(zip(shown, row, strict=True), start=1):
            cell = spreadsheets.put_at(sheet, number, column, item)
            if not isinstance(item, str) and spec.soort in ("uren", "geld"):
                cell.number_format = "0.00"
    for column, text in enumerate(header, start=1):
        width = max(len(text), 24 if shown[column - 1].key == "naam" else 8)
        spreadsheets.column_width(sheet, column, width)
    sheet.freeze_panes = "A2"
    stamp = batch.created_at.astimezone(UTC).replace(tzinfo=None, microsecond=0)
    return spreadsheets.save(book, stamp=stamp)


def file_name(batch: PayrollExport, fmt: str) -> str:
    first, last = IsoWeek.of(batch.van), IsoWeek.of(batch.tot)
    return f"loonexport-{first.label}-{last.label}.{fmt}"
