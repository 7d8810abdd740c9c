"""Task operations of the API."""

from __future__ import annotations

from flask import Response

from portal.api.core import (
    driver_access,
    etag_matches,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    require_scope,
)
from portal.extensions import db
from portal.tasks import service
from portal.tasks.schemas import DriverTaskQuery, TaskCreate, TaskOut, serialize_task

USER_TOKEN = {"user_token": {"description": "the driver's public id", "max_length": 64}}


@operation(
    "/users/<user_token:user_token>/taken",
    "GET",
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
)
def driver_tasks(user_token: str):
    driver = driver_access(user_token)
    query = parse_query(DriverTaskQuery)
    filters = service.TaskFilters(
        chauffeur_id=driver.id,
        statuses=service.parse_statuses(query.status),
        van=query.van,
        tot=query.tot,
        default_window=not (query.status or query.van or query.tot),
        limit=query.limit,
        offset=query.offset,
    )
    carrier_id = principal().carrier_id
    etag, total = service.list_fingerprint(carrier_id=carrier_id, filters=filters)
    headers = {"ETag": f'"{etag}"', "Cache-Control": "private, no-cache"}
    if etag_matches(etag):
        return Response(status=304, headers=headers)
    page = service.list_tasks(carrier_id=carrier_id, filters=filters, total=total)
    return list_response(
        [serialize_task(t, page.definitions) for t in page.tasks], page.total, headers
    )


@operation(
    "/users/<user_token:user_token>/taken",
    "POST",
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
def create_driver_task(user_token: str):
    require_scope("tasks:write")
    driver = driver_access(user_token)
    body = parse_body(TaskCreate)
    who = principal()
    task = service.create_task(
        carrier_id=who.carrier_id,
        chauffeur_id=driver.id,
        data=body.model_dump(exclude_unset=False),
        actor=who.actor,
    )
    db.session.commit()
    return json_response(
        serialize_task(task, service.definitions_for(carrier_id=who.carrier_id, tasks=[task])),
        status=201,
        headers={"Location": f"/api/v1/taken/{task.id}", "ETag": f'"{task.versie}"'},
    )
