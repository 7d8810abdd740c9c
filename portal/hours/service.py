"""Hours: work days and the rules that guard work days and activities; days/checks.py holds
the refusals and the small checks every change makes, days/queries.py the reads the API and
the pages share (both re-exported here). With days/activities.py (recording and correcting
activities) and weeks/ (approval, the overview, the week page) the only door to werkdagen,
activiteiten and week_goedkeuringen.

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
from datetime import datetime

from sqlalchemy import or_, select

from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.english_names import ACTIVITY_KIND, english
from portal.errors import ValidationFailed
from portal.extensions import db
from portal.hours.days.checks import (
    EARLIEST,
    FUTURE_SLACK,
    REDEN_MAX,
    TEXT_MAX,
    HoursConflict,
    HoursInvalid,
    PreconditionFailed,
    apply_changes,
    check_moment,
    check_version,
    clean_text,
    etag_of,
    flush_or,
    local_text,
    racing,
    record_update,
)
from portal.hours.days.queries import (
    DayPage,
    activities_of,
    approved_weeks,
    first_work_day,
    get_activity,
    get_work_day,
    list_work_days,
    refuse_locked,
    touched_weeks,
    work_days_of_drivers,
)
from portal.hours.models import WorkDay
from portal.hours.totals import MAX_DAY
from portal.types import Expected, utcnow

__all__ = [
    "EARLIEST",
    "FUTURE_SLACK",
    "REDEN_MAX",
    "TEXT_MAX",
    "WORK_DAY_FIELDS",
    "DayPage",
    "HoursConflict",
    "HoursInvalid",
    "PreconditionFailed",
    "activities_of",
    "approved_weeks",
    "check_moment",
    "check_version",
    "clean_text",
    "etag_of",
    "first_work_day",
    "flush_or",
    "get_activity",
    "get_work_day",
    "list_work_days",
    "local_text",
    "racing",
    "refuse_locked",
    "start_work_day",
    "touched_weeks",
    "update_work_day",
    "work_days_of_drivers",
]

logger = logging.getLogger(__name__)


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
    driver_id: uuid.UUID,
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
        running = _running_day(carrier_id, driver_id)
        if running is not None:
            raise HoursConflict(
                f"The driver's work day {running.id} (since "
                f"{local_text(running.gestart_op, zone)}) is still running; end it first.",
                code="werkdag_loopt",
                params={"begin": running.gestart_op},
                werkdag_id=str(running.id),
            )
    _refuse_clashing_day(carrier_id, driver_id, gestart_op, beeindigd_op, zone)
    refuse_locked(carrier_id, driver_id, [(gestart_op, beeindigd_op)], zone, now)
    day = WorkDay(
        transporteur_id=carrier_id,
        chauffeur_id=driver_id,
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
            "chauffeur_id": [None, driver_id],
            "gestart_op": [None, gestart_op],
            **({"beeindigd_op": [None, beeindigd_op]} if beeindigd_op else {}),
        },
    )
    logger.info("work day %s of driver %s started by %s", day.id, driver_id, actor.label)
    return day


def _refuse_second_running(carrier_id: uuid.UUID, driver_id: uuid.UUID) -> None:
    """A work day runs again only while no other day of the driver runs."""
    running = _running_day(carrier_id, driver_id)
    if running is not None:
        raise HoursConflict(
            f"The driver's work day {running.id} is running; only one day can run.",
            code="werkdag_loopt",
            params={"begin": running.gestart_op},
            werkdag_id=str(running.id),
        )


def _activity_closed_by(carrier_id: uuid.UUID, day: WorkDay, begin, end, zone):
    """Refuse new times that would leave one of the day's activities outside it; the running
    activity an end closes, if any."""
    activities = activities_of(carrier_id=carrier_id, work_day_ids={day.id})[day.id]
    closing = None
    for activity in activities:
        if activity.begin < begin:
            raise HoursInvalid(
                "gestart_op",
                f"activity {english(ACTIVITY_KIND, activity.soort)} begins earlier, at "
                f"{local_text(activity.begin, zone)}",
                code="activiteit_voor_begin",
                params={"soort": activity.soort, "begin": activity.begin},
            )
        if end is None:
            continue
        if activity.begin >= end or (activity.einde is not None and activity.einde > end):
            shown = local_text(activity.einde or activity.begin, zone)
            raise HoursInvalid(
                "beeindigd_op",
                f"activity {english(ACTIVITY_KIND, activity.soort)} runs until {shown}, after this "
                "end",
                code="activiteit_na_einde",
                params={"soort": activity.soort, "einde": activity.einde or activity.begin},
            )
        if activity.einde is None:
            closing = activity
    return closing


def _record_changes(
    carrier_id: uuid.UUID, day: WorkDay, values: dict, *, closing, actor: Actor
) -> None:
    """Set the day's changed values (and end the activity the day's end closes), with the
    changes in the audit trail."""
    end = values["beeindigd_op"]
    changes = apply_changes(day, values)
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
    record_update(carrier_id=carrier_id, actor=actor, entity="werkdag", row=day, changes=changes)


WORK_DAY_FIELDS = ("gestart_op", "beeindigd_op", "opmerking")


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
        _refuse_second_running(carrier_id, day.chauffeur_id)
    _refuse_clashing_day(carrier_id, day.chauffeur_id, begin, end, zone, exclude=day.id)
    closing = _activity_closed_by(carrier_id, day, begin, end, zone)
    _record_changes(
        carrier_id,
        day,
        {"gestart_op": begin, "beeindigd_op": end, "opmerking": opmerking},
        closing=closing,
        actor=actor,
    )
    return day
