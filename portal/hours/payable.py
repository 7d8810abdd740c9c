"""Payable hours of a driver's week: the recorded work days and activities turned into paid
minutes by CAO category and daily allowances (the pure computation in cao/), with whether a
planner approved the week.

Until carriers keep their own rule sets, the CAO preset holds (40 contract hours, its
surcharges and windows, allowances of 0.00): the figures show the structure the payroll
export will carry.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from sqlalchemy import or_, select

from portal.accounts.service import carrier_zone
from portal.errors import ValidationFailed
from portal.extensions import db
from portal.hours import cao
from portal.hours.models import WorkDay
from portal.hours.queries import activities_of, approved_weeks
from portal.hours.totals import IsoWeek
from portal.types import utcnow

# The preset's first day: a Monday long before any carrier's data.
PRESET_FROM = date(2000, 1, 3)
# A work day lasts at most 24 hours (service.py), so one touching a week starts at most a day
# before its Monday.
LONGEST_DAY = timedelta(hours=24)


@dataclass(frozen=True)
class PayableWeek:
    week: IsoWeek
    status: str  # "open" or "goedgekeurd"
    result: cao.Weekresultaat

    def to_json(self) -> dict:
        # Corrections with a reason come with the planner's review; none yet.
        return {"status": self.status, **self.result.to_json(), "correcties": []}


def rule_sets(*, carrier_id: uuid.UUID) -> list[cao.Regelset]:
    """The carrier's rule sets, oldest first: the CAO preset for now."""
    return [cao.cao_preset(PRESET_FROM)]


def payable_week(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, week: IsoWeek, now: datetime | None = None
) -> PayableWeek:
    """The driver's week as payable hours: three queries (work days, their activities, the
    approval). A work day still running counts up to now. ValidationFailed (with the
    computation's code) when the recorded work cannot be computed."""
    now = now or utcnow()
    zone = carrier_zone(carrier_id)
    start = datetime.combine(week.monday, time(0), tzinfo=zone)
    end = datetime.combine(week.monday + timedelta(days=7), time(0), tzinfo=zone)
    days = list(
        db.session.scalars(
            select(WorkDay)
            .where(
                WorkDay.transporteur_id == carrier_id,
                WorkDay.chauffeur_id == driver_id,
                WorkDay.gestart_op < end,
                WorkDay.gestart_op >= start - LONGEST_DAY,
                or_(WorkDay.beeindigd_op.is_(None), WorkDay.beeindigd_op > start),
            )
            .order_by(WorkDay.gestart_op, WorkDay.id)
        )
    )
    activities = activities_of(carrier_id=carrier_id, work_day_ids={d.id for d in days})
    work_days = []
    for day in days:
        ended = day.beeindigd_op or max(now, day.gestart_op + timedelta(minutes=1))
        work_days.append(
            cao.Werkdag(
                gestart_op=day.gestart_op,
                beeindigd_op=ended,
                activiteiten=tuple(
                    cao.Activiteit(a.soort, a.begin, min(a.einde or now, ended))
                    for a in activities[day.id]
                    if (a.einde or now) > a.begin
                ),
            )
        )
    try:
        result = cao.bereken_week(
            jaar=week.jaar,
            week=week.week,
            werkdagen=work_days,
            regelsets=rule_sets(carrier_id=carrier_id),
            zone=zone,
        )
    except cao.CaoFout as error:
        raise ValidationFailed(
            [{"field": "week", "code": error.code, "message": str(error), **error.params}]
        ) from error
    approved = approved_weeks(carrier_id=carrier_id, driver_ids={driver_id}, weeks={week})
    return PayableWeek(
        week=week,
        status="goedgekeurd" if (driver_id, week) in approved else "open",
        result=result,
    )
