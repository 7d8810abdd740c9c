"""Task operations of the API: a driver's list and a new task, the list of the carrier's
tasks, one task, its change and its status move. Completing a task for billing or on paper
is `tasks_completion`'s; deleting tasks and a task's details for integrations
`tasks_integration`'s (both use this module's helpers)."""

from __future__ import annotations

import uuid

from flask import Response, g

from portal.api.core import (
    chauffeur_filter,
    driver_access,
    fast_list,
    if_match_versions,
    integration_of,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    refused_but_kept,
    require_scope,
    write,
)
from portal.errors import Forbidden
from portal.tasks import lifecycle, service
from portal.tasks.lifecycle import Evidence
from portal.tasks.schemas import (
    DriverTaskQuery,
    EvidenceIn,
    StatusChange,
    TaskCreate,
    TaskOut,
    TaskQuery,
    TaskUpdate,
    serialize_task,
)

USER_TOKEN = {"user_token": {"description": "the driver's public id", "max_length": 64}}


def driver_listing(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, query: DriverTaskQuery
) -> service.TaskListing:
    """The selection a driver's list reads (also portal.api.unchanged's, which must give
    the same ETag)."""
    filters = service.TaskFilters(
        chauffeur_id=driver_id,
        statuses=service.parse_statuses(query.status),
        van=query.van,
        tot=query.tot,
        default_window=not (query.status or query.van or query.tot),
        limit=query.limit,
        offset=query.offset,
    )
    return service.TaskListing.of(carrier_id=carrier_id, filters=filters)


@operation(
    "/users/<user_token:user_token>/taken",
    "GET",
    scope="tasks:read",
    summary="The tasks of one driver, each with its questionnaire (vragenpad)",
    tag="tasks",
    description="Without filters: the driver's open tasks plus those completed today (in the "
    "carrier's time zone), ordered by gepland_op. Sends an ETag; a poll with If-None-Match "
    "that finds nothing changed answers 304 without building the list.",
    query=DriverTaskQuery,
    response=TaskOut,
    headers={"ETag": "the list's version, for If-None-Match", "Cache-Control": "private, no-cache"},
    many=True,
    errors=(401, 403, 404, 422),
    path_params=USER_TOKEN,
    fast_read=True,
)
def driver_tasks(user_token: str):
    query = parse_query(DriverTaskQuery)
    who = g.principal  # a driver's token is checked with the list's fingerprint (fast_read)
    driver_id = who.id if who.kind == "driver" else driver_access(user_token).id
    listing = driver_listing(carrier_id=who.carrier_id, driver_id=driver_id, query=query)
    own = (lambda: driver_access(user_token)) if who.kind == "driver" else None
    return fast_list(listing, check=own)


@operation(
    "/users/<user_token:user_token>/taken",
    "POST",
    scope="tasks:write",
    summary="Create a task for a driver (integrations)",
    tag="tasks",
    description="Creates the task in status gepland. It pins the carrier's active questionnaire "
    "for its `type`; its `vragenpad` is that questionnaire, or null when none applies.",
    body=TaskCreate,
    response=TaskOut,
    headers={"Location": "the task's address", "ETag": "the task's version"},
    status=201,
    errors=(401, 403, 404, 413, 415, 422),
    path_params=USER_TOKEN,
)
@write
def create_driver_task(user_token: str):
    require_scope("tasks:write")
    driver = driver_access(user_token)
    body = parse_body(TaskCreate)
    who = principal()
    task = service.create_task(
        carrier_id=who.carrier_id,
        driver_id=driver.id,
        data=body.model_dump(exclude_unset=False),
        actor=who.actor,
    )
    return json_response(
        serialize_task(task, service.definitions_for(carrier_id=who.carrier_id, tasks=[task])),
        status=201,
        headers={"Location": f"/api/v1/taken/{task.id}", "ETag": f'"{task.versie}"'},
    )


# --- the task lifecycle (issue: task management) ----------------------------------------

TASK_ID = {"task_id": {"description": "the task's id", "uuid": True}}
CARRIER_ID = {"transporteur_id": {"description": "the caller's own carrier", "uuid": True}}


def task_for_caller(task_id: uuid.UUID, *, archived: bool = False):
    """The task, when the caller may see it: a driver its own tasks, a key all of its carrier."""
    who = principal()
    task = service.get_task(carrier_id=who.carrier_id, task_id=task_id, archived=archived)
    if who.kind == "driver" and task.chauffeur_id != who.id:
        raise Forbidden("A driver may only act on its own tasks.")
    return task


def task_response(task, status: int = 200, headers: dict | None = None) -> Response:
    who = principal()
    data = serialize_task(task, service.definitions_for(carrier_id=who.carrier_id, tasks=[task]))
    return json_response(
        data, status=status, headers={"ETag": service.etag_of(task), **(headers or {})}
    )


def evidence_of_body(body: EvidenceIn) -> Evidence:
    return Evidence(
        fotos=body.fotos,
        handtekeningen=body.handtekeningen,
        scans=body.scans,
        locatie_lat=body.locatie_lat,
        locatie_lng=body.locatie_lng,
        temperatuur=body.temperatuur,
        desinfectie_bevestigd=body.desinfectie_bevestigd,
    )


@operation(
    "/taken",
    "GET",
    scope="tasks:read",
    summary="Tasks of the caller's carrier (a driver: its own), filtered and paged",
    tag="tasks",
    query=TaskQuery,
    response=TaskOut,
    many=True,
    errors=(401, 422),
)
def list_tasks():
    query = parse_query(TaskQuery)
    who = principal()
    chauffeur_id = chauffeur_filter(query.chauffeur, "tasks")
    filters = service.TaskFilters(
        chauffeur_id=chauffeur_id,
        vehicle_id=query.vehicle_id,
        types=(query.type,) if query.type else (),
        statuses=service.parse_statuses(query.status),
        van=query.van,
        tot=query.tot,
        search=query.q,
        limit=query.limit,
        offset=query.offset,
    )
    page = service.list_tasks(carrier_id=who.carrier_id, filters=filters)
    return list_response(
        [serialize_task(t, page.definitions, page.plates) for t in page.tasks], page.total
    )


@operation(
    "/transporteurs/<uuid:transporteur_id>/taken",
    "GET",
    scope="tasks:read",
    summary="All tasks of a carrier (integrations; the caller's own carrier only)",
    tag="tasks",
    query=TaskQuery,
    response=TaskOut,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=CARRIER_ID,
)
def carrier_tasks(transporteur_id: uuid.UUID):
    integration_of(transporteur_id, drivers_read="GET /taken")
    return list_tasks()


@operation(
    "/taken/<uuid:task_id>",
    "GET",
    scope="tasks:read",
    summary="One task",
    tag="tasks",
    response=TaskOut,
    errors=(401, 403, 404),
    headers={"ETag": "the task's version, for If-Match"},
    path_params=TASK_ID,
)
def get_task(task_id: uuid.UUID):
    return task_response(task_for_caller(task_id))


@operation(
    "/taken/<uuid:task_id>",
    "PATCH",
    scope="tasks:write",
    summary="Change a task's fields (integrations); If-Match with its ETag",
    tag="tasks",
    description="Only the fields sent change. A stale If-Match answers 412; a completed or "
    "cancelled task answers 409.",
    body=TaskUpdate,
    response=TaskOut,
    errors=(401, 403, 404, 409, 412, 422),
    conditional=("If-Match",),
    headers={"ETag": "the task's new version"},
    path_params=TASK_ID,
)
@write
def update_task(task_id: uuid.UUID):
    require_scope("tasks:write")
    task_for_caller(task_id)  # another carrier's id is 404 before the body is read
    body = parse_body(TaskUpdate)
    who = principal()
    task = service.update_task(
        carrier_id=who.carrier_id,
        task_id=task_id,
        data=body.model_dump(exclude_unset=True),
        actor=who.actor,
        expected_version=if_match_versions("task"),
    )
    return task_response(task)


@operation(
    "/taken/<uuid:task_id>/status",
    "PATCH",
    scope="tasks:write",
    summary="Move a task to another status, with the evidence the move needs",
    tag="tasks",
    description="Moves: gepland → ontvangen, gestart, geannuleerd; ontvangen → gestart, "
    "geannuleerd; gestart → afgerond, geannuleerd; afgerond → gestart (office only). An illegal "
    "move answers 409 with `allowed`. Completing checks the task's demands (photos, signature, "
    "scan, location, temperature, disinfection) and answers 422 listing all that is missing. "
    "With If-Match, a task changed since that version answers 412 and does not move.",
    body=StatusChange,
    response=TaskOut,
    errors=(401, 403, 404, 409, 412, 422),
    conditional=("If-Match",),
    headers={"ETag": "the task's new version"},
    path_params=TASK_ID,
)
@write
def change_status(task_id: uuid.UUID):
    task_for_caller(task_id)  # another carrier's id is 404 before the body is read
    body = parse_body(StatusChange)
    try:
        task = move_as_caller(
            task_id, body.status, body, expected_version=if_match_versions("task")
        )
    except lifecycle.CompletionRefused as refused:
        return refused_but_kept(refused)
    return task_response(task)


def move_as_caller(task_id: uuid.UUID, to: str, evidence: EvidenceIn, expected_version=None):
    """Move the task as the caller: integrations act for the office, drivers for themselves."""
    who = principal()
    return lifecycle.move_task(
        carrier_id=who.carrier_id,
        task_id=task_id,
        to=to,
        actor=who.actor,
        office=who.kind == "api_key",
        evidence=evidence_of_body(evidence),
        expected_version=expected_version,
    )
