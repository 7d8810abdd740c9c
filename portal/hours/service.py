"""Hours: work days, the rules that guard work days and activities, and the reads the API
and the pages share. With activities.py (recording and correcting activities) and weeks.py
(approval, the overview, the week page) the only door to werkdagen, activiteiten and
week_goedkeuringen.

Rules (the API and the portal share them, since both come through here):
- A driver has at most one running work day and one running activity; a work day lasts at
  most 24 hours and may cross midnight; times lie after 2000 and not in the future (five
  minutes of clock difference allowed).
- An activity lies within its work day: it cannot begin before the day began nor end after
  the day ended; a running activity needs a running day. The day is not stretched to fit:
  correct the day first, so nothing moves without someone saying so.
- Ending a work day ends its running activity at the same moment; a day cannot end before
  any of its activities has ended, nor begin after one began.
- Neither work days nor activities of a driver overlap (half-open: one may end at the
  moment the next begins). The service checks it with the work day's row locked, so two
  requests on one day take turns; PostgreSQL's exclusion constraints back it up.
- A week approved by a planner locks every work day that touches it (a day crossing
  Sunday midnight touches two weeks) until the week is reopened with a reason; approval
  and reopening are kept as history and in the audit trail. A week with a running work
  day cannot be approved.

Refusals carry a `code` and `params` so the portal can word them in the user's language.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError

from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import Conflict, DomainError, NotFound, ValidationFailed
from portal.extensions import db
from portal.hours import totals
from portal.hours.models import Activity, WeekApproval, WorkDay
from portal.hours.totals import MAX_DAY, IsoWeek
from portal.types import Expected, utcnow, version_stale, versions_text

logger = logging.getLogger(__name__)

FUTURE_SLACK = timedelta(minutes=5)  # a phone's clock may run a little ahead
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
TEXT_MAX = 2000
REDEN_MAX = 1000


class PreconditionFailed(DomainError):
    """The If-Match ETag is stale: someone changed the work day or activity meanwhile."""

    status = 412
    title = "Precondition failed"


class HoursConflict(Conflict):
    """A clash with other hours (overlap, a running day, an approved week)."""

    def __init__(self, detail: str, *, code: str, params: dict | None = None, **extra):
        super().__init__(detail, **extra)
        self.code = code
        self.params = params or {}


class HoursInvalid(ValidationFailed):
    """A value that breaks a rule of hours, at one field."""

    def __init__(self, field_: str, message: str, *, code: str, params: dict | None = None):
        super().__init__([{"field": field_, "message": message}])
        self.field = field_
        self.code = code
        self.params = params or {}


def etag_of(row: WorkDay | Activity) -> str:
    return f'"{row.versie}"'


def local_text(moment: datetime, zone) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")


def clean_text(field_: str, value: str | None, limit: int = TEXT_MAX) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if len(value) > limit:
        raise HoursInvalid(field_, f"at most {limit} characters", code="te_lang_tekst")
    return value or None


def check_moment(field_: str, value: datetime, now: datetime) -> None:
    if value.tzinfo is None:
        raise HoursInvalid(field_, "needs a time zone", code="tijdzone")
    if value < EARLIEST:
        raise HoursInvalid(field_, "before the year 2000", code="te_vroeg")
    if value > now + FUTURE_SLACK:
        raise HoursInvalid(field_, "lies in the future", code="toekomst")


def flush_or(conflict: HoursConflict) -> None:
    """Flush; a clash the database finds (a request at the same moment) is conflict."""
    try:
        with db.session.begin_nested():
            db.session.flush()
    except IntegrityError:
        raise conflict from None


def racing() -> HoursConflict:
    return HoursConflict(
        "Another change to this driver's hours was saved at the same moment and clashes with "
        "this one; load the hours again and retry.",
        code="tegelijk",
    )


# --- reading -----------------------------------------------------------------------------


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


def first_work_day(*, carrier_id: uuid.UUID, chauffeur_id: uuid.UUID) -> datetime | None:
    """When the driver's first work day in the app began (None: the app was never used)."""
    return db.session.scalar(
        select(func.min(WorkDay.gestart_op)).where(
            WorkDay.transporteur_id == carrier_id, WorkDay.chauffeur_id == chauffeur_id
        )
    )


def work_days_of_drivers(
    *, carrier_id: uuid.UUID, chauffeur_ids: set[uuid.UUID], van: datetime, tot: datetime
) -> dict[uuid.UUID, list[tuple[WorkDay, list[Activity]]]]:
    """Several drivers' work days that overlap [van, tot), oldest first, each with its
    activities in order: two queries, whatever the number of drivers."""
    found: dict[uuid.UUID, list[tuple[WorkDay, list[Activity]]]] = {
        driver_id: [] for driver_id in chauffeur_ids
    }
    if not chauffeur_ids:
        return found
    days = list(
        db.session.scalars(
            select(WorkDay)
            .where(
                WorkDay.transporteur_id == carrier_id,
                WorkDay.chauffeur_id.in_(chauffeur_ids),
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
    chauffeur_id: uuid.UUID,
    van: datetime | None = None,
    tot: datetime | None = None,
    limit: int = 100,
    offset: int = 0,
    now: datetime | None = None,
) -> DayPage:
    """A driver's work days that overlap [van, tot), newest first, with their activities
    and the approved weeks they touch: four queries, whatever the page size."""
    now = now or utcnow()
    where = [WorkDay.transporteur_id == carrier_id, WorkDay.chauffeur_id == chauffeur_id]
    if tot is not None:
        where.append(WorkDay.gestart_op < tot)
    if van is not None:
        where.append(or_(WorkDay.beeindigd_op.is_(None), WorkDay.beeindigd_op > van))
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
    approved = approved_weeks(carrier_id=carrier_id, chauffeur_ids={chauffeur_id}, weeks=weeks)
    return DayPage(
        days=days,
        total=total,
        activities=activities_of(carrier_id=carrier_id, work_day_ids={d.id for d in days}),
        approved={week: row for (_, week), row in approved.items()},
    )


def approved_weeks(
    *, carrier_id: uuid.UUID, weeks, chauffeur_ids: set[uuid.UUID] | None = None
) -> dict[tuple[uuid.UUID, IsoWeek], WeekApproval]:
    """The approvals in force of some weeks (of some drivers, or all): one query."""
    keys = {week.key for week in weeks}
    if not keys or chauffeur_ids == set():
        return {}
    stmt = select(WeekApproval).where(
        WeekApproval.transporteur_id == carrier_id,
        WeekApproval.heropend_op.is_(None),
        (WeekApproval.jaar * 100 + WeekApproval.week).in_(keys),
    )
    if chauffeur_ids is not None:
        stmt = stmt.where(WeekApproval.chauffeur_id.in_(chauffeur_ids))
    return {
        (row.chauffeur_id, IsoWeek(row.jaar, row.week)): row for row in db.session.scalars(stmt)
    }


def refuse_locked(
    carrier_id: uuid.UUID, chauffeur_id: uuid.UUID, spans, zone, now: datetime
) -> None:
    """HoursConflict when any of spans ((begin, end or None) pairs, a change's old and new
    times) touches an approved week of the driver."""
    weeks = set()
    for begin, end in spans:
        weeks |= totals.weeks_touched(begin, end or max(now, begin), zone)
    approved = approved_weeks(carrier_id=carrier_id, chauffeur_ids={chauffeur_id}, weeks=weeks)
    if approved:
        week = min(week for _, week in approved)
        raise HoursConflict(
            f"Week {week.label} of this driver is approved: its hours cannot change until a "
            "planner reopens the week.",
            code="week_goedgekeurd",
            params={"week": week},
            week=week.label,
        )


# --- work days ---------------------------------------------------------------------------


def _check_day_span(begin: datetime, end: datetime | None, zone) -> None:
    if end is None:
        return
    if end <= begin:
        raise HoursInvalid("beeindigd_op", "must be after gestart_op", code="volgorde")
    if end - begin > MAX_DAY:
        latest = local_text(begin + MAX_DAY, zone)
        raise HoursInvalid(
            "beeindigd_op",
            f"a work day lasts at most 24 hours: end it by {latest}",
            code="dag_te_lang",
            params={"uiterlijk": begin + MAX_DAY},
        )


def _running_day(carrier_id: uuid.UUID, chauffeur_id: uuid.UUID) -> WorkDay | None:
    return db.session.scalar(
        select(WorkDay).where(
            WorkDay.transporteur_id == carrier_id,
            WorkDay.chauffeur_id == chauffeur_id,
            WorkDay.beeindigd_op.is_(None),
        )
    )


def _clashing_day(
    carrier_id: uuid.UUID,
    chauffeur_id: uuid.UUID,
    begin: datetime,
    end: datetime | None,
    exclude: uuid.UUID | None = None,
) -> WorkDay | None:
    where = [
        WorkDay.transporteur_id == carrier_id,
        WorkDay.chauffeur_id == chauffeur_id,
        or_(WorkDay.beeindigd_op.is_(None), WorkDay.beeindigd_op > begin),
    ]
    if end is not None:
        where.append(WorkDay.gestart_op < end)
    if exclude is not None:
        where.append(WorkDay.id != exclude)
    return db.session.scalar(select(WorkDay).where(*where).order_by(WorkDay.gestart_op).limit(1))


def _refuse_clashing_day(carrier_id, chauffeur_id, begin, end, zone, exclude=None) -> None:
    clash = _clashing_day(carrier_id, chauffeur_id, begin, end, exclude)
    if clash is None:
        return
    until = local_text(clash.beeindigd_op, zone) if clash.beeindigd_op else "still running"
    since = local_text(clash.gestart_op, zone)
    raise HoursConflict(
        f"Overlaps the driver's work day {clash.id} ({since} to {until}).",
        code="overlap_werkdag",
        params={"begin": clash.gestart_op, "einde": clash.beeindigd_op},
        werkdag_id=str(clash.id),
    )


def start_work_day(
    *,
    carrier_id: uuid.UUID,
    chauffeur_id: uuid.UUID,
    actor: Actor,
    gestart_op: datetime | None = None,
    beeindigd_op: datetime | None = None,
    opmerking: str | None = None,
    now: datetime | None = None,
) -> WorkDay:
    """Start a work day (now, or at gestart_op); with beeindigd_op it records a whole day."""
    now = now or utcnow()
    zone = carrier_zone(carrier_id)
    gestart_op = gestart_op or now
    check_moment("gestart_op", gestart_op, now)
    if beeindigd_op is not None:
        check_moment("beeindigd_op", beeindigd_op, now)
    _check_day_span(gestart_op, beeindigd_op, zone)
    opmerking = clean_text("opmerking", opmerking)
    if beeindigd_op is None:
        running = _running_day(carrier_id, chauffeur_id)
        if running is not None:
            raise HoursConflict(
                f"The driver's work day {running.id} (since "
                f"{local_text(running.gestart_op, zone)}) is still running; end it first.",
                code="werkdag_loopt",
                params={"begin": running.gestart_op},
                werkdag_id=str(running.id),
            )
    _refuse_clashing_day(carrier_id, chauffeur_id, gestart_op, beeindigd_op, zone)
    refuse_locked(carrier_id, chauffeur_id, [(gestart_op, beeindigd_op)], zone, now)
    day = WorkDay(
        transporteur_id=carrier_id,
        chauffeur_id=chauffeur_id,
        gestart_op=gestart_op,
        beeindigd_op=beeindigd_op,
        opmerking=opmerking,
    )
    db.session.add(day)
    flush_or(racing())
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="werkdag",
        entity_id=day.id,
        action="created",
        changes={
            "chauffeur_id": [None, chauffeur_id],
            "gestart_op": [None, gestart_op],
            **({"beeindigd_op": [None, beeindigd_op]} if beeindigd_op else {}),
        },
    )
    logger.info("work day %s of driver %s started by %s", day.id, chauffeur_id, actor.label)
    return day


WORK_DAY_FIELDS = ("gestart_op", "beeindigd_op", "opmerking")


def check_version(row, expected: Expected, what: str) -> None:
    if version_stale(row.versie, expected):
        raise PreconditionFailed(
            f"The {what} changed meanwhile (version {row.versie}, you sent "
            f"{versions_text(expected)}).",
            etag=etag_of(row),
        )


def update_work_day(
    *,
    carrier_id: uuid.UUID,
    work_day_id: uuid.UUID,
    data: dict,
    actor: Actor,
    expected_version: Expected = None,
    now: datetime | None = None,
) -> WorkDay:
    """End a work day, correct its times or remark. Only the keys of data change;
    `beeindigd_op` None makes it run again (when no other day runs)."""
    now = now or utcnow()
    zone = carrier_zone(carrier_id)
    day = get_work_day(carrier_id=carrier_id, work_day_id=work_day_id, lock=True)
    check_version(day, expected_version, "work day")
    unknown = set(data) - set(WORK_DAY_FIELDS)
    if unknown:
        raise ValidationFailed(
            [{"field": f, "message": "cannot be changed"} for f in sorted(unknown)]
        )
    if "gestart_op" in data and data["gestart_op"] is None:
        raise HoursInvalid("gestart_op", "cannot be null", code="verplicht")
    begin = data.get("gestart_op", day.gestart_op)
    end = data.get("beeindigd_op", day.beeindigd_op)
    if "gestart_op" in data:
        check_moment("gestart_op", begin, now)
    if "beeindigd_op" in data and end is not None:
        check_moment("beeindigd_op", end, now)
    _check_day_span(begin, end, zone)
    opmerking = clean_text("opmerking", data["opmerking"]) if "opmerking" in data else day.opmerking
    refuse_locked(
        carrier_id, day.chauffeur_id, [(day.gestart_op, day.beeindigd_op), (begin, end)], zone, now
    )
    if end is None and day.beeindigd_op is not None:
        running = _running_day(carrier_id, day.chauffeur_id)
        if running is not None:
            raise HoursConflict(
                f"The driver's work day {running.id} is running; only one day can run.",
                code="werkdag_loopt",
                params={"begin": running.gestart_op},
                werkdag_id=str(running.id),
            )
    _refuse_clashing_day(carrier_id, day.chauffeur_id, begin, end, zone, exclude=day.id)
    activities = activities_of(carrier_id=carrier_id, work_day_ids={day.id})[day.id]
    closing = None
    for activity in activities:
        if activity.begin < begin:
            raise HoursInvalid(
                "gestart_op",
                f"activity {activity.soort} begins earlier, at {local_text(activity.begin, zone)}",
                code="activiteit_voor_begin",
                params={"soort": activity.soort, "begin": activity.begin},
            )
        if end is None:
            continue
        if activity.begin >= end or (activity.einde is not None and activity.einde > end):
            shown = local_text(activity.einde or activity.begin, zone)
            raise HoursInvalid(
                "beeindigd_op",
                f"activity {activity.soort} runs until {shown}, after this end",
                code="activiteit_na_einde",
                params={"soort": activity.soort, "einde": activity.einde or activity.begin},
            )
        if activity.einde is None:
            closing = activity
    changes = {}
    for name, value in (("gestart_op", begin), ("beeindigd_op", end), ("opmerking", opmerking)):
        if getattr(day, name) != value:
            changes[name] = [getattr(day, name), value]
            setattr(day, name, value)
    if closing is not None:
        closing.einde = end
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="activiteit",
            entity_id=closing.id,
            action="updated",
            changes={"einde": [None, end]},
        )
    if changes:
        flush_or(racing())
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="werkdag",
            entity_id=day.id,
            action="updated",
            changes=changes,
        )
    return day
