"""Reading hours: work days and activities by carrier, a driver's page of days, several
drivers' days at once, the approved weeks, and the lock an approved week puts on changes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_, select

from portal.accounts.service import carrier_zone
from portal.errors import NotFound
from portal.extensions import db
from portal.hours import totals
from portal.hours.days.checks import HoursConflict
from portal.hours.models import Activity, WeekApproval, WorkDay
from portal.hours.pay_models import PayrollExportWeek
from portal.hours.totals import IsoWeek
from portal.types import utcnow


def get_work_day(*, carrier_id: uuid.UUID, work_day_id: uuid.UUID, lock: bool = False) -> WorkDay:
    """The carrier's work day; NotFound when absent or another carrier's."""
    stmt = select(WorkDay).where(WorkDay.transporteur_id == carrier_id, WorkDay.id == work_day_id)
    if lock:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    day = db.session.scalar(stmt)
    if day is None:
        raise NotFound("work day not found")
    return day


def get_activity(*, carrier_id: uuid.UUID, activity_id: uuid.UUID, lock: bool = False) -> Activity:
    """The carrier's activity; NotFound when absent or another carrier's."""
    stmt = select(Activity).where(
        Activity.transporteur_id == carrier_id, Activity.id == activity_id
    )
    if lock:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    activity = db.session.scalar(stmt)
    if activity is None:
        raise NotFound("activity not found")
    return activity


def activities_of(*, carrier_id: uuid.UUID, work_day_ids: set[uuid.UUID]) -> dict:
    """The activities of some work days, by day, each day's in order: one query."""
    found: dict[uuid.UUID, list[Activity]] = {day_id: [] for day_id in work_day_ids}
    if not work_day_ids:
        return found
    rows = db.session.scalars(
        select(Activity)
        .where(Activity.transporteur_id == carrier_id, Activity.werkdag_id.in_(work_day_ids))
        .order_by(Activity.begin, Activity.id)
    )
    for activity in rows:
        found[activity.werkdag_id].append(activity)
    return found


def first_work_day(*, carrier_id: uuid.UUID, driver_id: uuid.UUID) -> datetime | None:
    """When the driver's first work day in the app began (None: the app was never used)."""
    return db.session.scalar(
        select(func.min(WorkDay.gestart_op)).where(
            WorkDay.transporteur_id == carrier_id, WorkDay.chauffeur_id == driver_id
        )
    )


def work_days_of_drivers(
    *, carrier_id: uuid.UUID, driver_ids: set[uuid.UUID], van: datetime, tot: datetime
) -> dict[uuid.UUID, list[tuple[WorkDay, list[Activity]]]]:
    """Several drivers' work days that overlap [van, tot), oldest first, each with its
    activities in order: two queries, whatever the number of drivers."""
    found: dict[uuid.UUID, list[tuple[WorkDay, list[Activity]]]] = {
        driver_id: [] for driver_id in driver_ids
    }
    if not driver_ids:
        return found
    days = list(
        db.session.scalars(
            select(WorkDay)
            .where(
                WorkDay.transporteur_id == carrier_id,
                WorkDay.chauffeur_id.in_(driver_ids),
                WorkDay.gestart_op < tot,
                or_(WorkDay.beeindigd_op.is_(None), WorkDay.beeindigd_op > van),
            )
            .order_by(WorkDay.gestart_op, WorkDay.id)
        )
    )
    # The activities' query runs also without days, so a page's query count never depends
    # on whether its drivers recorded anything.
    activities: dict[uuid.UUID, list[Activity]] = {day.id: [] for day in days}
    for activity in db.session.scalars(
        select(Activity)
        .where(
            Activity.transporteur_id == carrier_id,
            Activity.werkdag_id.in_(list(activities)),
        )
        .order_by(Activity.begin, Activity.id)
    ):
        activities[activity.werkdag_id].append(activity)
    for day in days:
        found[day.chauffeur_id].append((day, activities[day.id]))
    return found


@dataclass
class DayPage:
    """A page of a driver's work days with their activities and what is locked."""

    days: list[WorkDay]
    total: int
    activities: dict[uuid.UUID, list[Activity]]
    approved: dict[IsoWeek, WeekApproval]  # the driver's approved weeks among those touched

    def locked(self, day: WorkDay, zone, now: datetime) -> bool:
        return bool(touched_weeks(day, zone, now) & self.approved.keys())


def touched_weeks(day: WorkDay, zone, now: datetime) -> set[IsoWeek]:
    """The ISO weeks a work day touches (a running one: up to now)."""
    end = day.beeindigd_op or max(now, day.gestart_op)
    return totals.weeks_touched(day.gestart_op, end, zone)


def list_work_days(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    start: datetime | None = None,
    end: datetime | None = None,
    limit: int = 100,
    offset: int = 0,
    now: datetime | None = None,
) -> DayPage:
    """A driver's work days that overlap [van, tot), newest first, with their activities
    and the approved weeks they touch: four queries, whatever the page size."""
    now = now or utcnow()
    where = [WorkDay.transporteur_id == carrier_id, WorkDay.chauffeur_id == driver_id]
    if end is not None:
        where.append(WorkDay.gestart_op < end)
    if start is not None:
        where.append(or_(WorkDay.beeindigd_op.is_(None), WorkDay.beeindigd_op > start))
    total = db.session.scalar(select(func.count()).select_from(WorkDay).where(*where)) or 0
    days = list(
        db.session.scalars(
            select(WorkDay)
            .where(*where)
            .order_by(WorkDay.gestart_op.desc(), WorkDay.id)
            .limit(limit)
            .offset(offset)
        )
    )
    zone = carrier_zone(carrier_id)
    weeks = set().union(*(touched_weeks(day, zone, now) for day in days)) if days else set()
    approved = approved_weeks(carrier_id=carrier_id, driver_ids={driver_id}, weeks=weeks)
    return DayPage(
        days=days,
        total=total,
        activities=activities_of(carrier_id=carrier_id, work_day_ids={d.id for d in days}),
        approved={week: row for (_, week), row in approved.items()},
    )


def approved_weeks(
    *, carrier_id: uuid.UUID, weeks, driver_ids: set[uuid.UUID] | None = None
) -> dict[tuple[uuid.UUID, IsoWeek], WeekApproval]:
    """The approvals in force of some weeks (of some drivers, or all): one query."""
    keys = {week.key for week in weeks}
    if not keys or driver_ids == set():
        return {}
    stmt = select(WeekApproval).where(
        WeekApproval.transporteur_id == carrier_id,
        WeekApproval.heropend_op.is_(None),
        (WeekApproval.jaar * 100 + WeekApproval.week).in_(keys),
    )
    if driver_ids is not None:
        stmt = stmt.where(WeekApproval.chauffeur_id.in_(driver_ids))
    return {
        (row.chauffeur_id, IsoWeek(row.jaar, row.week)): row for row in db.session.scalars(stmt)
    }


def exported_weeks(
    *, carrier_id: uuid.UUID, weeks, driver_ids: set[uuid.UUID] | None = None
) -> set[tuple[uuid.UUID, IsoWeek]]:
    """The (driver, week)s of some weeks that a payroll export carried: one query."""
    keys = {week.key for week in weeks}
    if not keys or driver_ids == set():
        return set()
    stmt = select(PayrollExportWeek.chauffeur_id, PayrollExportWeek.jaar, PayrollExportWeek.week)
    stmt = stmt.where(
        PayrollExportWeek.transporteur_id == carrier_id,
        (PayrollExportWeek.jaar * 100 + PayrollExportWeek.week).in_(keys),
    )
    if driver_ids is not None:
        stmt = stmt.where(PayrollExportWeek.chauffeur_id.in_(driver_ids))
    return {(row.chauffeur_id, IsoWeek(row.jaar, row.week)) for row in db.session.execute(stmt)}


def first_unexported_week(*, carrier_id: uuid.UUID, since: IsoWeek) -> IsoWeek | None:
    """The earliest week from since on that is approved for a driver and that no payroll
    export carried for that driver: two queries."""
    approved = db.session.execute(
        select(WeekApproval.chauffeur_id, WeekApproval.jaar, WeekApproval.week).where(
            WeekApproval.transporteur_id == carrier_id,
            WeekApproval.heropend_op.is_(None),
            WeekApproval.jaar * 100 + WeekApproval.week >= since.key,
        )
    )
    waiting = {(row.chauffeur_id, IsoWeek(row.jaar, row.week)) for row in approved}
    if waiting:
        weeks = {week for _driver, week in waiting}
        waiting -= exported_weeks(carrier_id=carrier_id, weeks=weeks)
    return min((week for _driver, week in waiting), key=lambda w: w.key, default=None)


def last_exported_week(*, carrier_id: uuid.UUID) -> IsoWeek | None:
    """The latest week any payroll export carried: one query."""
    key = db.session.scalar(
        select(func.max(PayrollExportWeek.jaar * 100 + PayrollExportWeek.week)).where(
            PayrollExportWeek.transporteur_id == carrier_id
        )
    )
    return None if key is None else IsoWeek(key // 100, key % 100)


def refuse_locked(
    carrier_id: uuid.UUID, chauffeur_id: uuid.UUID, spans, zone, now: datetime
) -> None:
    """HoursConflict when any of spans ((begin, end or None) pairs, a change's old and new
    times) touches an approved week of the driver."""
    weeks = set()
    for begin, end in spans:
        weeks |= totals.weeks_touched(begin, end or max(now, begin), zone)
    approved = approved_weeks(carrier_id=carrier_id, driver_ids={chauffeur_id}, weeks=weeks)
    if approved:
        week = min(week for _, week in approved)
        raise HoursConflict(
            f"Week {week.label} of this driver is approved: its hours cannot change until a "
            "planner reopens the week.",
            code="week_goedgekeurd",
            params={"week": week},
            week=week.label,
        )
