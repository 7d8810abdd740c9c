"""Tasks reopened after their line was exported: the line stays as billed (a task is never
billed twice), and the billing page lists them so the planner decides whether the invoice
needs a correction."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import and_, or_, select

from portal.accounts.service import carrier_zone
from portal.billing import periods
from portal.billing.models import BillingExport, BillingLine
from portal.extensions import db
from portal.tasks import completed_work


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
    periods.check_period(van, tot)
    zone = carrier_zone(carrier_id)
    start, end = periods.bounds(zone, van, tot)
    stmt = _query(carrier_id, start, end, limit)
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


def _query(carrier_id: uuid.UUID, start: datetime, end: datetime, limit: int):
    """Exported lines whose task is no longer completed at the billed moment, billed or
    completed again within [start, end)."""
    task = completed_work.facts()
    return (
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
