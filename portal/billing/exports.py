"""Export batches: the lines not exported yet (in a period, of a driver or customer), and
the batches that stamp lines as billed. Periods are periods.py's, a line's row rows.py's,
the tasks reopened after their line was billed reopened.py's; their names are re-exported
here, where callers find them."""

from __future__ import annotations

import logging
import uuid
from datetime import date

from sqlalchemy import select, update

from portal.accounts.service import carrier_zone
from portal.billing import invoices, periods, reopened, rows
from portal.billing.line_totals import Totals, totals  # noqa: F401 (callers read them here)
from portal.billing.models import BillingExport, BillingLine
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.tasks import completed_work

logger = logging.getLogger(__name__)

# Periods, rows and reopened tasks: callers read them here.
FIRST_DAY = periods.FIRST_DAY
LAST_DAY = periods.LAST_DAY
check_period = periods.check_period
longer_than_a_year = periods.longer_than_a_year
BillingRow = rows.BillingRow
COLUMNS = rows.COLUMNS
ReopenedRow = reopened.ReopenedRow
reopened_after_export = reopened.reopened_after_export


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
    periods.check_period(van, tot)
    start, end = periods.bounds(carrier_zone(carrier_id), van, tot)
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
    return rows.rows_of(carrier_id, _unexported_where(carrier_id, van, tot, driver_id, klant))


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
        raise ValidationFailed(
            [{"field": "periode", "code": "nothing_to_export", "message": "nothing to export"}]
        )
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
    found = rows.rows_of(
        carrier_id,
        [BillingLine.transporteur_id == carrier_id, BillingLine.export_id == batch.id],
    )
    return batch, found


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
