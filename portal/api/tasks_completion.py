"""Completing a task through the API: for billing (the actual work on its billing line)
and on a paper delivery note (integrations)."""

from __future__ import annotations

import uuid

from portal.api.core import (
    if_match_versions,
    json_response,
    operation,
    parse_body,
    principal,
    refused_but_kept,
    require_scope,
    write,
)
from portal.api.tasks import (
    TASK_ID,
    move_as_caller,
    task_for_caller,
    task_response,
)
from portal.billing import service as billing
from portal.tasks import lifecycle, paper, service
from portal.tasks.schemas import (
    AfrondingIn,
    AfrondingOut,
    PaperCompletionIn,
    TaskOut,
    serialize_line,
    serialize_task,
)


@operation(
    "/taken/<uuid:task_id>/afronding",
    "POST",
    scope="tasks:write",
    summary="Register a task's completion for billing",
    tag="tasks",
    description="Completes the task if it is not completed yet (with the same checks as the "
    "status move) and records the actual work on its billing line: quantity and unit, "
    "kilometres, waiting minutes and remarks. Every completion (this one, the status move, "
    "the planner's board) makes the line, with the planned quantity until this reports the "
    "actual one. Sent again, it updates the line; once the line is exported it answers 409 "
    "`already-billed` (a completion this request made still stands). Requests sent at once "
    "answer as if sent one after the other.",
    body=AfrondingIn,
    response=AfrondingOut,
    errors=(401, 403, 404, 409, 422),
    path_params=TASK_ID,
)
@write
def complete_for_billing(task_id: uuid.UUID):
    task_for_caller(task_id)  # another carrier's id is 404 before the body is read
    body = parse_body(AfrondingIn)
    who = principal()
    # Lock before looking: completions sent at once (a phone retrying) queue here, and each
    # later one finds the task completed, as a retry would, and updates the line.
    task = service.get_task(carrier_id=who.carrier_id, task_id=task_id, lock=True)
    completed_now = task.status != "afgerond"
    if completed_now:
        try:
            task = move_as_caller(task_id, "afgerond", body)
        except lifecycle.CompletionRefused as refused:
            return refused_but_kept(refused)
    try:
        line = billing.record_line(
            carrier_id=who.carrier_id,
            task=task,
            hoeveelheid=body.hoeveelheid,
            eenheid=body.eenheid,
            kilometers=body.kilometers,
            wachttijd_minuten=body.wachttijd_minuten,
            opmerkingen=body.opmerkingen,
        )
    except billing.AlreadyBilled as billed:
        if completed_now:
            return refused_but_kept(billed)  # a reopened task: its completion stands
        raise
    data = {
        "taak": serialize_task(
            task, service.definitions_for(carrier_id=who.carrier_id, tasks=[task])
        ),
        "facturatieregel": serialize_line(line),
    }
    return json_response(data)


@operation(
    "/taken/<uuid:task_id>/papieren-afronding",
    "POST",
    scope="tasks:write",
    summary="Complete a task on its paper delivery note (integrations)",
    tag="tasks",
    description="For a planned, received or started task whose driver could not fill in the "
    "app: the reason and the note's scan (a `document_scan` from POST /bestanden, PDF, JPEG or "
    "PNG) stand for the questionnaire, signature, scan, photos and location; a required "
    "temperature or disinfection is given as the note says it. The task moves through "
    "`gestart` to `afgerond`; its history and proof of delivery say it was completed on paper. "
    "A task that is not open answers 409; with If-Match, a stale version 412.",
    body=PaperCompletionIn,
    response=TaskOut,
    errors=(401, 403, 404, 409, 412, 422),
    conditional=("If-Match",),
    headers={"ETag": "the task's new version"},
    path_params=TASK_ID,
)
@write
def complete_on_paper(task_id: uuid.UUID):
    require_scope("tasks:write")
    task_for_caller(task_id)  # another carrier's id is 404 before the body is read
    who = principal()
    body = parse_body(PaperCompletionIn)
    task = paper.complete_on_paper(
        carrier_id=who.carrier_id,
        task_id=task_id,
        actor=who.actor,
        reden=body.reden,
        scan_id=body.scan,
        temperatuur=body.temperatuur,
        desinfectie_bevestigd=body.desinfectie_bevestigd,
        expected_version=if_match_versions("task"),
    )
    return task_response(task)
