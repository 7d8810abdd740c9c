"""Hours: a driver's activities within a work day, recorded and corrected under the rules of
service.py (within the day, no overlap, not in an approved week), with the work day's row
locked so that two requests on one day take turns."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import or_, select

from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.english_names import ACTIVITY_KIND, english
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.hours.days.checks import apply_changes, record_update
from portal.hours.models import SOORTEN, Activity, WorkDay
from portal.hours.service import (
    HoursConflict,
    HoursInvalid,
    check_moment,
    check_version,
    clean_text,
    flush_or,
    get_activity,
    get_work_day,
    local_text,
    racing,
    refuse_locked,
)
from portal.hours.totals import MAX_DAY
from portal.tasks import service as tasks
from portal.types import Expected, utcnow


def _clashing_activity(
    carrier_id, chauffeur_id, begin: datetime, end: datetime | None, exclude=None
) -> Activity | None:
    where = [
        Activity.transporteur_id == carrier_id,
        Activity.chauffeur_id == chauffeur_id,
        or_(Activity.einde.is_(None), Activity.einde > begin),
        # Activities lie within days of at most 24 hours: none that began a day earlier
        # reaches begin, which keeps the index range short.
        Activity.begin > begin - MAX_DAY,
    ]
    if end is not None:
        where.append(Activity.begin < end)
    if exclude is not None:
        where.append(Activity.id != exclude)
    return db.session.scalar(select(Activity).where(*where).order_by(Activity.begin).limit(1))


def _check_within_day(day: WorkDay, begin: datetime, einde: datetime | None, zone) -> None:
    """An activity lies within its work day; a running one needs a running day."""
    day_until = day.beeindigd_op or day.gestart_op + MAX_DAY
    bounds = {"begin": day.gestart_op, "einde": day.beeindigd_op}
    shown = f"{local_text(day.gestart_op, zone)} to " + (
        local_text(day.beeindigd_op, zone) if day.beeindigd_op else "running"
    )
    if begin < day.gestart_op or begin >= day_until:
        raise HoursInvalid(
            "begin", f"outside its work day ({shown})", code="buiten_werkdag", params=bounds
        )
    if einde is None and day.beeindigd_op is not None:
        raise HoursInvalid(
            "einde",
            f"required: the work day has ended ({shown})",
            code="einde_nodig",
            params=bounds,
        )
    if einde is not None and einde > day_until:
        raise HoursInvalid(
            "einde", f"outside its work day ({shown})", code="buiten_werkdag", params=bounds
        )


def _overlap(clash: Activity, zone) -> HoursConflict:
    """The refusal of an activity that overlaps another of the driver (or one still running)."""
    until = local_text(clash.einde, zone) if clash.einde else "still running"
    params = {"soort": clash.soort, "begin": clash.begin, "einde": clash.einde}
    kind = english(ACTIVITY_KIND, clash.soort)
    if clash.einde is None:
        detail = (
            f"The driver's activity {clash.id} ({kind} since "
            f"{local_text(clash.begin, zone)}) is still running; end it first."
        )
        code = "activiteit_loopt"
    else:
        detail = (
            f"Overlaps the driver's activity {clash.id} ({kind}, "
            f"{local_text(clash.begin, zone)} to {until})."
        )
        code = "overlap_activiteit"
    return HoursConflict(
        detail, code=code, params=params, activiteit_id=str(clash.id), soort=clash.soort
    )


def _check_task(carrier_id: uuid.UUID, day: WorkDay, taak_id: uuid.UUID) -> None:
    """An activity names a task of the day's driver (an archived one too)."""
    try:
        task = tasks.get_task(carrier_id=carrier_id, task_id=taak_id, archived=True)
    except NotFound:
        task = None
    if task is None or task.chauffeur_id != day.chauffeur_id:
        raise HoursInvalid("taak_id", "not a task of this driver", code="taak")


def _check_activity(
    carrier_id: uuid.UUID,
    day: WorkDay,
    *,
    soort: str,
    begin: datetime,
    einde: datetime | None,
    taak_id: uuid.UUID | None,
    exclude: uuid.UUID | None,
    zone,
    now: datetime,
    changed: list,
) -> None:
    """The rules of an activity, most basic first; changed lists the (begin, end) spans the
    change touches (old and new), which must lie outside approved weeks."""
    if soort not in SOORTEN:
        raise HoursInvalid("soort", f"one of {', '.join(SOORTEN)}", code="soort")
    if einde is not None and einde <= begin:
        raise HoursInvalid("einde", "must be after begin", code="volgorde")
    _check_within_day(day, begin, einde, zone)
    refuse_locked(carrier_id, day.chauffeur_id, changed, zone, now)
    clash = _clashing_activity(carrier_id, day.chauffeur_id, begin, einde, exclude)
    if clash is not None:
        raise _overlap(clash, zone)
    if taak_id is not None:
        _check_task(carrier_id, day, taak_id)


ACTIVITY_FIELDS = ("soort", "begin", "einde", "taak_id", "opmerking")


def add_activity(
    *,
    carrier_id: uuid.UUID,
    work_day_id: uuid.UUID,
    data: dict,
    actor: Actor,
    now: datetime | None = None,
) -> Activity:
    """Record an activity in a work day: from `begin` (default now) to `einde` (None while
    it runs)."""
    now = now or utcnow()
    zone = carrier_zone(carrier_id)
    day = get_work_day(carrier_id=carrier_id, work_day_id=work_day_id, lock=True)
    unknown = set(data) - set(ACTIVITY_FIELDS)
    if unknown:
        raise ValidationFailed([{"field": f, "message": "unknown field"} for f in sorted(unknown)])
    begin = data.get("begin") or now
    einde = data.get("einde")
    check_moment("begin", begin, now)
    if einde is not None:
        check_moment("einde", einde, now)
    opmerking = clean_text("opmerking", data.get("opmerking"))
    _check_activity(
        carrier_id,
        day,
        soort=data.get("soort", ""),
        begin=begin,
        einde=einde,
        taak_id=data.get("taak_id"),
        exclude=None,
        zone=zone,
        now=now,
        changed=[(begin, einde)],
    )
    activity = Activity(
        transporteur_id=carrier_id,
        werkdag_id=day.id,
        chauffeur_id=day.chauffeur_id,
        soort=data["soort"],
        begin=begin,
        einde=einde,
        taak_id=data.get("taak_id"),
        opmerking=opmerking,
    )
    db.session.add(activity)
    flush_or(racing())
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="activiteit",
        entity_id=activity.id,
        action="created",
        changes={
            name: [None, getattr(activity, name)]
            for name in ("werkdag_id", "soort", "begin", "einde", "taak_id")
            if getattr(activity, name) is not None
        },
    )
    return activity


def _merged(activity: Activity, data: dict, now: datetime) -> dict:
    """The activity's fields with data's changes, each changed one checked on its own."""
    for name in ("soort", "begin"):
        if name in data and data[name] is None:
            raise HoursInvalid(name, "cannot be null", code="verplicht")
    merged = {name: data.get(name, getattr(activity, name)) for name in ACTIVITY_FIELDS}
    if "begin" in data:
        check_moment("begin", merged["begin"], now)
    if "einde" in data and merged["einde"] is not None:
        check_moment("einde", merged["einde"], now)
    if "opmerking" in data:
        merged["opmerking"] = clean_text("opmerking", data["opmerking"])
    return merged


def update_activity(
    *,
    carrier_id: uuid.UUID,
    activity_id: uuid.UUID,
    data: dict,
    actor: Actor,
    expected_version: Expected = None,
    now: datetime | None = None,
) -> Activity:
    """Correct an activity or end it; only the keys of data change. The same rules hold as
    for a new one."""
    now = now or utcnow()
    zone = carrier_zone(carrier_id)
    # Lock the work day before the activity, as every write does: no deadlock.
    work_day_id = get_activity(carrier_id=carrier_id, activity_id=activity_id).werkdag_id
    day = get_work_day(carrier_id=carrier_id, work_day_id=work_day_id, lock=True)
    activity = get_activity(carrier_id=carrier_id, activity_id=activity_id, lock=True)
    check_version(activity, expected_version, "activity")
    unknown = set(data) - set(ACTIVITY_FIELDS)
    if unknown:
        raise ValidationFailed(
            [{"field": f, "message": "cannot be changed"} for f in sorted(unknown)]
        )
    merged = _merged(activity, data, now)
    _check_activity(
        carrier_id,
        day,
        soort=merged["soort"],
        begin=merged["begin"],
        einde=merged["einde"],
        taak_id=merged["taak_id"] if "taak_id" in data else None,
        exclude=activity.id,
        zone=zone,
        now=now,
        changed=[(activity.begin, activity.einde), (merged["begin"], merged["einde"])],
    )
    changes = apply_changes(activity, merged)
    record_update(
        carrier_id=carrier_id, actor=actor, entity="activiteit", row=activity, changes=changes
    )
    return activity
