"""Task operations for integrations: deleting a task or every task of a driver (those that
hold work are archived), and a task with its questionnaire, answers, evidence and blockers."""

from __future__ import annotations

import uuid

import orjson

from portal.api.core import (
    driver_access,
    json_response,
    operation,
    principal,
    require_scope,
    write,
)
from portal.api.tasks import (
    TASK_ID,
    USER_TOKEN,
    task_for_caller,
)
from portal.questionnaires import service as questionnaires
from portal.questionnaires.schemas import serialize_revision
from portal.tasks import lifecycle, service
from portal.tasks.schemas import (
    DeleteOut,
    TaskDetailsOut,
    serialize_task,
)
from portal.types import iso


@operation(
    "/taken/<uuid:task_id>",
    "DELETE",
    scope="tasks:write",
    summary="Delete a task (integrations); one that holds work is archived instead",
    tag="tasks",
    response=DeleteOut,
    errors=(401, 403, 404),
    path_params=TASK_ID,
)
@write
def delete_task(task_id: uuid.UUID):
    require_scope("tasks:write")
    who = principal()
    outcome = service.delete_task(carrier_id=who.carrier_id, task_id=task_id, actor=who.actor)
    return json_response(
        {"verwijderd": int(outcome == "deleted"), "gearchiveerd": int(outcome == "archived")}
    )


@operation(
    "/users/<user_token:user_token>/taken",
    "DELETE",
    scope="tasks:write",
    summary="Delete every task of a driver (integrations); those that hold work are archived",
    tag="tasks",
    response=DeleteOut,
    errors=(401, 403, 404),
    path_params=USER_TOKEN,
)
@write
def delete_driver_tasks(user_token: str):
    require_scope("tasks:write")
    driver = driver_access(user_token)
    who = principal()
    counts = service.delete_driver_tasks(
        carrier_id=who.carrier_id, driver_id=driver.id, actor=who.actor
    )
    return json_response({"verwijderd": counts["deleted"], "gearchiveerd": counts["archived"]})


@operation(
    "/taken/<uuid:task_id>/details",
    "GET",
    scope="tasks:read",
    summary="A task with its questionnaire revision, answer sessions, evidence and blockers",
    tag="task integration",
    response=TaskDetailsOut,
    errors=(401, 403, 404),
    path_params=TASK_ID,
)
def task_details(task_id: uuid.UUID):
    who = principal()
    task = task_for_caller(task_id)
    revision = (
        questionnaires.get_revision(
            carrier_id=who.carrier_id, revision_id=task.activity_questionnaire_id
        )
        if task.activity_questionnaire_id
        else None
    )
    sessions = questionnaires.sessions_for_task(carrier_id=who.carrier_id, task_id=task.id)
    evidence = lifecycle.evidence_of(carrier_id=who.carrier_id, task_id=task.id)
    data = {
        "taak": serialize_task(task, {revision.id: revision.definition} if revision else {}),
        "vragenlijst": serialize_revision(revision) if revision else None,
        "answer_sessions": [
            {
                "id": str(s.id),
                "activity_questionnaire_id": str(s.activity_questionnaire_id),
                "activity_type": s.activity_type,
                "status": s.status,
                "created_at": iso(s.created_at),
                "ingediend_op": iso(s.ingediend_op),
                "answers": {a.question_id: orjson.Fragment(a.waarde) for a in answers},
            }
            for s, answers in sessions
        ],
        "bewijzen": [
            {"bestand_id": str(e.bestand_id), "soort": e.soort, "created_at": iso(e.created_at)}
            for e in evidence
        ],
        "gemeten_temperatuur": task.gemeten_temperatuur,
        "desinfectie_bevestigd": task.desinfectie_bevestigd,
        "afgerond_lat": task.afgerond_lat,
        "afgerond_lng": task.afgerond_lng,
        "blokkades": lifecycle.completion_blockers(carrier_id=who.carrier_id, task=task)
        if task.status not in ("afgerond", "geannuleerd")
        else [],
        "toegestane_statussen": lifecycle.allowed_moves(task, office=who.kind == "api_key"),
    }
    return json_response(data)
