"""Hours by the week as the pages read them: the overview of every driver's hours over a
period, each week's state, and one driver's week for the week page."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date, datetime

from sqlalchemy import Float, String, and_, or_, select, type_coerce
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from portal.accounts.service import carrier_zone
from portal.billing.service import check_period
from portal.drivers import service as drivers
from portal.drivers.service import Driver
from portal.extensions import db
from portal.hours import totals
from portal.hours.days.queries import exported_weeks
from portal.hours.models import Activity, WeekApproval, WorkDay
from portal.hours.review import corrections
from portal.hours.service import activities_of, approved_weeks, touched_weeks
from portal.hours.totals import MAX_DAY, IsoWeek, Span
from portal.hours.weeks.approval import approval_history
from portal.tasks import service as tasks
from portal.types import utcnow


class epoch(FunctionElement):
    """A timestamp column as POSIX seconds (a float): the overview reads a month of a
    carrier's activities, and numbers cost far less to fetch than a datetime per value."""

    type = Float()
    name = "epoch"
    inherit_cache = True


@compiles(epoch, "postgresql")
def _epoch_postgresql(element, compiler, **kw):
    return f"CAST(EXTRACT(EPOCH FROM {compiler.process(element.clauses, **kw)}) AS FLOAT8)"


@compiles(epoch, "sqlite")
def _epoch_sqlite(element, compiler, **kw):
    # UTCDateTime keeps naive UTC text on SQLite, which julianday() reads as UTC.
    return f"((julianday({compiler.process(element.clauses, **kw)}) - 2440587.5) * 86400.0)"


def _span_rows(
    carrier_id: uuid.UUID,
    start: datetime,
    end: datetime,
    drivers_by_key: dict,
) -> list[tuple]:
    """The activities that may count in [start, end) as totals.summarize_rows takes them:
    (driver, kind, begin, end, its day's start), times as POSIX seconds. One query."""
    rows = db.session.execute(
        select(
            # The raw driver id: a uuid from psycopg, 32 hex digits from SQLite; looked up
            # below rather than converted row by row.
            type_coerce(Activity.chauffeur_id, String),
            Activity.soort,
            epoch(Activity.begin),
            epoch(Activity.einde),
            epoch(WorkDay.gestart_op),
        )
        .join(
            WorkDay,
            and_(
                WorkDay.transporteur_id == Activity.transporteur_id,
                WorkDay.id == Activity.werkdag_id,
            ),
        )
        .where(
            Activity.transporteur_id == carrier_id,
            Activity.begin < end,
            # A counted activity spans at most 24 hours (see totals.counted_end).
            Activity.begin >= start - MAX_DAY,
            or_(Activity.einde.is_(None), Activity.einde > start),
        )
    )
    return [(drivers_by_key[key], *rest) for key, *rest in rows]


# A week's state as the overview shows it: open, waiting for the driver's answer to a
# correction, approved, or approved and carried by a payroll export.
WEEK_STATES = ("open", "wacht_op_chauffeur", "goedgekeurd", "geexporteerd")


@dataclass
class HoursRow:
    """A driver's line of the overview: hours, and the approvals of the period's weeks."""

    driver: Driver
    hours: totals.DriverHours
    approvals: dict[IsoWeek, WeekApproval] = field(default_factory=dict)
    waiting: set[IsoWeek] = field(default_factory=set)  # a correction waits for the driver
    exported: set[IsoWeek] = field(default_factory=set)

    def state(self, week: IsoWeek) -> str:
        """The week's state, one of WEEK_STATES."""
        if week in self.approvals:
            return "geexporteerd" if week in self.exported else "goedgekeurd"
        return "wacht_op_chauffeur" if week in self.waiting else "open"

    @property
    def weeks(self) -> list[IsoWeek]:
        return list(self.hours.per_week)

    @property
    def approved_count(self) -> int:
        return sum(1 for week in self.hours.per_week if week in self.approvals)


@dataclass
class Overview:
    van: date
    tot: date
    zone: object
    weeks: list[IsoWeek]
    rows: list[HoursRow]

    @property
    def total(self) -> totals.Totals:
        result = totals.Totals()
        for row in self.rows:
            result.add(row.hours.totaal)
        return result


def overview(
    *, carrier_id: uuid.UUID, first_day: date, last_day: date, now: datetime | None = None
) -> Overview:
    """Every driver's hours over days van through tot (the carrier's calendar), by name:
    active drivers always, inactive ones when they have time in the period, each week with
    its state. Five queries (drivers, activities, approvals, corrections, payroll exports),
    whatever the number of drivers."""
    check_period(first_day, last_day)
    now = now or utcnow()
    zone = carrier_zone(carrier_id)
    everyone = drivers.list_drivers(carrier_id=carrier_id, active_only=False)
    start, end = totals.period_bounds(first_day, last_day, zone)
    by_key = {d.id: d.id for d in everyone} | {d.id.hex: d.id for d in everyone}
    summary = totals.summarize_rows(
        _span_rows(carrier_id, start, end, by_key),
        zone=zone,
        first_day=first_day,
        last_day=last_day,
        now=now,
        driver_ids=[d.id for d in everyone if d.actief],
    )
    weeks = totals.weeks_between(first_day, last_day)
    approvals = approved_weeks(carrier_id=carrier_id, weeks=weeks)
    by_driver: dict[uuid.UUID, dict[IsoWeek, WeekApproval]] = {}
    for (chauffeur_id, week), row in approvals.items():
        by_driver.setdefault(chauffeur_id, {})[week] = row
    shown = [driver for driver in everyone if driver.id in summary]
    ids = {driver.id for driver in shown}
    waiting: dict[uuid.UUID, set[IsoWeek]] = {}
    found = corrections.of_weeks(carrier_id=carrier_id, driver_ids=ids, weeks=weeks)
    for (chauffeur_id, week), rows in found.items():
        if any(row.reactie is None for row in rows):
            waiting.setdefault(chauffeur_id, set()).add(week)
    exported: dict[uuid.UUID, set[IsoWeek]] = {}
    for chauffeur_id, week in exported_weeks(carrier_id=carrier_id, weeks=weeks, driver_ids=ids):
        exported.setdefault(chauffeur_id, set()).add(week)
    rows = [
        HoursRow(
            driver,
            summary[driver.id],
            by_driver.get(driver.id, {}),
            waiting.get(driver.id, set()),
            exported.get(driver.id, set()),
        )
        for driver in shown
    ]
    return Overview(van=first_day, tot=last_day, zone=zone, weeks=weeks, rows=rows)


@dataclass
class WeekDetail:
    """One driver's week: its work days (those touching the week) with activities, the
    totals of its seven days, the approval in force and the history of approvals."""

    week: IsoWeek
    days: list[WorkDay]
    activities: dict[uuid.UUID, list[Activity]]
    hours: totals.DriverHours
    approval: WeekApproval | None
    history: list[WeekApproval]
    task_names: dict[uuid.UUID, str]
    locked_days: set[uuid.UUID]
    running: bool


def week_detail(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, week: IsoWeek, now: datetime | None = None
) -> WeekDetail:
    """A driver's week for the week page: five queries."""
    now = now or utcnow()
    zone = carrier_zone(carrier_id)
    start, end = totals.period_bounds(week.monday, week.sunday, zone)
    days = list(
        db.session.scalars(
            select(WorkDay)
            .where(
                WorkDay.transporteur_id == carrier_id,
                WorkDay.chauffeur_id == driver_id,
                WorkDay.gestart_op < end,
                WorkDay.gestart_op >= start - MAX_DAY,
                or_(WorkDay.beeindigd_op.is_(None), WorkDay.beeindigd_op > start),
            )
            .order_by(WorkDay.gestart_op, WorkDay.id)
        )
    )
    activities = activities_of(carrier_id=carrier_id, work_day_ids={d.id for d in days})
    started = {d.id: d.gestart_op for d in days}
    spans = [
        Span(a.chauffeur_id, a.soort, a.begin, a.einde, started[a.werkdag_id])
        for listed in activities.values()
        for a in listed
    ]
    hours = totals.summarize(
        spans, zone=zone, start=week.monday, end=week.sunday, now=now, driver_ids=[driver_id]
    )[driver_id]
    history = approval_history(carrier_id=carrier_id, driver_id=driver_id, week=week)
    approval = next((row for row in history if row.heropend_op is None), None)
    # Days that also touch a neighbouring week may be locked by that week's approval.
    touched = {d.id: touched_weeks(d, zone, now) for d in days}
    others = set().union(*touched.values()) - {week} if touched else set()
    approved = {w for _, w in approved_weeks(
        carrier_id=carrier_id, driver_ids={driver_id}, weeks=others
    )}  # fmt: skip
    if approval is not None:
        approved.add(week)
    task_ids = {a.taak_id for listed in activities.values() for a in listed if a.taak_id}
    return WeekDetail(
        week=week,
        days=days,
        activities=activities,
        hours=hours,
        approval=approval,
        history=history,
        task_names=tasks.names_by_id(carrier_id=carrier_id, task_ids=task_ids),
        locked_days={d.id for d in days if touched[d.id] & approved},
        running=any(d.beeindigd_op is None for d in days),
    )
