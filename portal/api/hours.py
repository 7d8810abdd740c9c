"""Hours operations of the API: a driver's work days and activities (hours_weeks.py: the
hours of all drivers of a carrier, a driver's paid week and the corrections to it)."""

from __future__ import annotations

import uuid

from portal.accounts.service import carrier_zone
from portal.api.core import (
    driver_access,
    if_match_versions,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    write,
)
from portal.errors import Forbidden, ValidationFailed
from portal.hours import service
from portal.hours.days import activities
from portal.hours.schemas import (
    Activiteit,
    ActiviteitIn,
    ActiviteitUpdate,
    Werkdag,
    WerkdagMetActiviteiten,
    WerkdagQuery,
    WerkdagStart,
    WerkdagUpdate,
    serialize_activity,
    serialize_work_day,
)
from portal.types import period_bound, utcnow

READ_SCOPE, WRITE_SCOPE = "hours:read", "hours:write"
USER_TOKEN = {"user_token": {"description": "the driver's public id", "max_length": 64}}
WORK_DAY_ID = {"werkdag_id": {"description": "the work day's id", "uuid": True}}
ACTIVITY_ID = {"activiteit_id": {"description": "the activity's id", "uuid": True}}
WEEK = {"week": {"description": "an ISO week, e.g. 2026-W48", "max_length": 8}}
CARRIER_ID = {"transporteur_id": {"description": "the caller's own carrier", "uuid": True}}
WHO_NOTE = (
    " A driver acts on its own work days only (a colleague's answer 403); API keys on every "
    "driver of their carrier, with the scope hours:write to change and hours:read (or "
    "hours:write) to read."
)
RULES_NOTE = (
    " Times are UTC; days and weeks are the carrier's calendar (its time zone). A work day "
    "lasts at most 24 hours and may cross midnight; activities lie within their work day and "
    "no two work days or activities of a driver overlap (409 names the one in the way). A "
    "work day touching a week a planner approved cannot change (409) until the week is "
    "reopened."
)


def allow_scope(*, change: bool) -> None:
    """Drivers may (on their own: checked where the driver is known); an API key needs the
    scope (writing implies reading)."""
    who = principal()
    if who.kind != "api_key":
        return
    if change and WRITE_SCOPE not in who.scopes:
        raise Forbidden(f"The API key lacks the scope {WRITE_SCOPE!r}.")
    if not change and not {READ_SCOPE, WRITE_SCOPE} & who.scopes:
        raise Forbidden(f"The API key lacks the scope {READ_SCOPE!r}.")


def _own(chauffeur_id: uuid.UUID, what: str) -> None:
    who = principal()
    if who.kind == "driver" and chauffeur_id != who.id:
        raise Forbidden(f"A driver may only act on its own {what}.")


def _work_day_response(day, *, with_activities: bool, status: int = 200):
    who = principal()
    now = utcnow()
    zone = carrier_zone(who.carrier_id)
    touched = service.touched_weeks(day, zone, now)
    approved = service.approved_weeks(
        carrier_id=who.carrier_id, driver_ids={day.chauffeur_id}, weeks=touched
    )
    activities = None
    if with_activities:
        activities = service.activities_of(carrier_id=who.carrier_id, work_day_ids={day.id})[day.id]
    data = serialize_work_day(day, zone=zone, locked=bool(approved), activities=activities, now=now)
    return json_response(data, status=status, headers={"ETag": service.etag_of(day)})


def _activity_response(activity, status: int = 200):
    who = principal()
    day = service.get_work_day(carrier_id=who.carrier_id, work_day_id=activity.werkdag_id)
    return json_response(
        serialize_activity(activity, day.gestart_op, utcnow()),
        status=status,
        headers={"ETag": service.etag_of(activity)},
    )


@operation(
    "/users/<user_token:user_token>/werkdagen",
    "GET",
    scope="hours:read",
    summary="A driver's work days with their activities, newest first",
    tag="hours",
    description="Work days that overlap van..tot (dates in the carrier's time zone, or "
    "times); without them every work day, paged. Each says whether a week it touches is "
    "approved (`vergrendeld`)." + WHO_NOTE,
    query=WerkdagQuery,
    response=WerkdagMetActiviteiten,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=USER_TOKEN,
)
def driver_work_days(user_token: str):
    allow_scope(change=False)
    driver = driver_access(user_token)
    query = parse_query(WerkdagQuery)
    who = principal()
    zone = carrier_zone(who.carrier_id)
    van = period_bound(query.van, zone, end=False) if query.van is not None else None
    tot = period_bound(query.tot, zone, end=True) if query.tot is not None else None
    if van is not None and tot is not None and tot < van:
        raise ValidationFailed([{"field": "tot", "message": "before van"}])
    now = utcnow()
    page = service.list_work_days(
        carrier_id=who.carrier_id,
        driver_id=driver.id,
        start=van,
        end=tot,
        limit=query.limit,
        offset=query.offset,
        now=now,
    )
    return list_response(
        [
            serialize_work_day(
                day,
                zone=zone,
                locked=page.locked(day, zone, now),
                activities=page.activities[day.id],
                now=now,
            )
            for day in page.days
        ],
        page.total,
    )


@operation(
    "/users/<user_token:user_token>/werkdagen",
    "POST",
    scope="hours:write",
    summary="Start a work day (or record a whole one)",
    tag="hours",
    description="Starts the driver's work day now or at `gestart_op`; a driver has one "
    "running day at a time (409 names it). With `beeindigd_op` it records a day that has "
    "ended. Send an Idempotency-Key so a retry from a phone that lost the answer does not "
    "start a second day." + RULES_NOTE + WHO_NOTE,
    body=WerkdagStart,
    response=Werkdag,
    status=201,
    headers={"ETag": "the work day's version, for If-Match"},
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=USER_TOKEN,
)
@write
def start_work_day(user_token: str):
    allow_scope(change=True)
    driver = driver_access(user_token)
    body = parse_body(WerkdagStart)
    who = principal()
    day = service.start_work_day(
        carrier_id=who.carrier_id,
        driver_id=driver.id,
        actor=who.actor,
        gestart_op=body.gestart_op,
        beeindigd_op=body.beeindigd_op,
        opmerking=body.opmerking,
    )
    return _work_day_response(day, with_activities=False, status=201)


@operation(
    "/werkdagen/<uuid:werkdag_id>",
    "PATCH",
    scope="hours:write",
    summary="End a work day or correct it; If-Match with its ETag",
    tag="hours",
    description="Only the fields sent change. Ending the day (`beeindigd_op`) ends its "
    "running activity at the same moment; a day cannot end before one of its activities "
    "ends, nor begin after one began (422). A stale If-Match answers 412." + RULES_NOTE + WHO_NOTE,
    body=WerkdagUpdate,
    response=WerkdagMetActiviteiten,
    headers={"ETag": "the work day's new version"},
    conditional=("If-Match",),
    errors=(401, 403, 404, 409, 412, 413, 415, 422),
    path_params=WORK_DAY_ID,
)
@write
def update_work_day(werkdag_id: uuid.UUID):
    allow_scope(change=True)
    who = principal()
    day = service.get_work_day(carrier_id=who.carrier_id, work_day_id=werkdag_id)
    _own(day.chauffeur_id, "work days")
    body = parse_body(WerkdagUpdate)
    day = service.update_work_day(
        carrier_id=who.carrier_id,
        work_day_id=werkdag_id,
        data=body.model_dump(exclude_unset=True),
        actor=who.actor,
        expected_version=if_match_versions("work day"),
    )
    return _work_day_response(day, with_activities=True)


@operation(
    "/werkdagen/<uuid:werkdag_id>/activiteiten",
    "POST",
    scope="hours:write",
    summary="Record an activity in a work day",
    tag="hours",
    description="From `begin` (default now) to `einde` (leave it out while the activity "
    "runs; a driver has one running activity at a time: end it first with PATCH "
    "/activiteiten/{activiteit_id}). `taak_id` links one of the driver's tasks."
    + RULES_NOTE
    + WHO_NOTE,
    body=ActiviteitIn,
    response=Activiteit,
    status=201,
    headers={"ETag": "the activity's version, for If-Match"},
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=WORK_DAY_ID,
)
@write
def add_activity(werkdag_id: uuid.UUID):
    allow_scope(change=True)
    who = principal()
    day = service.get_work_day(carrier_id=who.carrier_id, work_day_id=werkdag_id)
    _own(day.chauffeur_id, "work days")
    body = parse_body(ActiviteitIn)
    activity = activities.add_activity(
        carrier_id=who.carrier_id,
        work_day_id=werkdag_id,
        data=body.model_dump(exclude_unset=True),
        actor=who.actor,
    )
    return _activity_response(activity, status=201)


@operation(
    "/activiteiten/<uuid:activiteit_id>",
    "PATCH",
    scope="hours:write",
    summary="Correct an activity or end it; If-Match with its ETag",
    tag="hours",
    description="Only the fields sent change; the same rules hold as for a new activity. A "
    "stale If-Match answers 412." + RULES_NOTE + WHO_NOTE,
    body=ActiviteitUpdate,
    response=Activiteit,
    headers={"ETag": "the activity's new version"},
    conditional=("If-Match",),
    errors=(401, 403, 404, 409, 412, 413, 415, 422),
    path_params=ACTIVITY_ID,
)
@write
def update_activity(activiteit_id: uuid.UUID):
    allow_scope(change=True)
    who = principal()
    activity = service.get_activity(carrier_id=who.carrier_id, activity_id=activiteit_id)
    _own(activity.chauffeur_id, "activities")
    body = parse_body(ActiviteitUpdate)
    activity = activities.update_activity(
        carrier_id=who.carrier_id,
        activity_id=activiteit_id,
        data=body.model_dump(exclude_unset=True),
        actor=who.actor,
        expected_version=if_match_versions("activity"),
    )
    return _activity_response(activity)
