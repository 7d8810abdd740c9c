"""Questionnaire operations of the API."""

from __future__ import annotations

import uuid

from flask import g

from portal.api.core import (
    chauffeur_filter,
    fast_list,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    write,
)
from portal.english_names import TASK_STATUS, english
from portal.errors import Conflict, Forbidden, NotFound, ValidationFailed
from portal.questionnaires import answering, service
from portal.questionnaires.schemas import (
    ActivityQuestionnaireOut,
    ActivityQuestionnaireQuery,
    AnswerSessionOut,
    AnswerSessionQuery,
    QuestionnaireAnswerIn,
    serialize_session,
)
from portal.tasks import service as tasks


@operation(
    "/activity_questionnaires",
    "GET",
    scope="questionnaires:read",
    summary="The active questionnaire per activity type of the caller's carrier",
    tag="questionnaires",
    description="Sends an ETag; a poll with If-None-Match that finds nothing changed answers "
    "304 without building the list.",
    query=ActivityQuestionnaireQuery,
    response=ActivityQuestionnaireOut,
    headers={"ETag": "the list's version, for If-None-Match", "Cache-Control": "private, no-cache"},
    many=True,
    errors=(401, 422),
    fast_read=True,
)
def activity_questionnaires():
    query = parse_query(ActivityQuestionnaireQuery)
    return fast_list(active_listing(carrier_id=g.principal.carrier_id, query=query), keep=True)


def active_listing(
    *, carrier_id: uuid.UUID, query: ActivityQuestionnaireQuery
) -> service.ActiveListing:
    """The selection GET /activity_questionnaires reads (also portal.api.unchanged's)."""
    return service.ActiveListing.of(
        carrier_id=carrier_id,
        activity_type=query.activity_type,
        limit=query.limit,
        offset=query.offset,
    )


# --- answers ---------------------------------------------------------------------------

ANSWER_SESSION_ID = {"answer_session_id": {"description": "the answer session's id", "uuid": True}}


@operation(
    "/questionnaire_answers",
    "POST",
    scope=None,
    unscoped="the driver app only; API keys get 403",
    summary="Save answers of an answer session (drivers); `indienen` submits them",
    tag="questionnaires",
    description="Answers are merged into the session (null clears one) and checked by the "
    "questionnaire's rules as a whole: a partial save checks the values sent, a submit also "
    "demands every visible required answer. Answers to hidden questions are not stored, "
    "calculated questions are recomputed by the server and read-only questions keep their "
    "default. A refused save stores nothing and answers 422 with an error per question "
    "(`field` `answers.<question id>`, `question_id`). A submitted session answers 409. "
    "Starting a session answers 201; continuing it 200. For a task, the task's session is "
    "continued when it exists, so a retried start does not split the answers.",
    body=QuestionnaireAnswerIn,
    response=AnswerSessionOut,
    status=201,
    also={200: "An existing session continued (its answers merged)"},
    headers={"Location": "the session's address"},
    errors=(401, 403, 404, 409, 413, 415, 422),
)
@write
def save_answers():
    who = principal()
    if who.kind != "driver":
        raise Forbidden("Answers come from the driver app: sign in as the driver.")
    body = parse_body(QuestionnaireAnswerIn)
    task_ref = None
    if body.taak_id is not None:
        task_ref = _answerable_task(body.taak_id)
    saved = answering.save(
        carrier_id=who.carrier_id,
        driver_id=who.id,
        revision_id=body.activity_questionnaire_id,
        answers=body.answers,
        submit=body.indienen,
        session_id=body.answer_session_id,
        task=task_ref,
        actor=who.actor,
    )
    return json_response(
        serialize_session(saved.session, saved.answers, saved.revisie),
        status=201 if saved.created else 200,
        headers={"Location": f"/api/v1/answer_sessions/{saved.session.id}"},
    )


def _answerable_task(task_id: uuid.UUID) -> answering.TaskRef:
    who = principal()
    try:
        task = tasks.get_task(carrier_id=who.carrier_id, task_id=task_id)
    except NotFound:
        raise ValidationFailed([{"field": "taak_id", "message": "no such task"}]) from None
    if task.chauffeur_id != who.id:
        raise Forbidden("A driver may only answer for its own tasks.")
    if task.status in ("afgerond", "geannuleerd"):
        raise Conflict(
            f"The task is {english(TASK_STATUS, task.status)}; its questionnaire can no longer "
            "change.",
            current=task.status,
        )
    return answering.TaskRef(id=task.id, activity_questionnaire_id=task.activity_questionnaire_id)


@operation(
    "/answer_sessions",
    "GET",
    scope="questionnaires:read",
    summary="Answer sessions with their answers, newest first (a driver: its own)",
    tag="questionnaires",
    query=AnswerSessionQuery,
    response=AnswerSessionOut,
    many=True,
    errors=(401, 403, 422),
)
def list_answer_sessions():
    query = parse_query(AnswerSessionQuery)
    who = principal()
    driver_id = chauffeur_filter(query.chauffeur, "answer sessions")
    page = answering.list_sessions(
        carrier_id=who.carrier_id,
        filters=answering.SessionFilters(
            task_id=query.taak_id,
            driver_id=driver_id,
            activity_type=query.activity_type,
            status=query.status,
            start=query.van,
            end=query.tot,
            limit=query.limit,
            offset=query.offset,
        ),
    )
    return list_response(
        [
            serialize_session(
                session,
                {a.question_id: a.waarde for a in answers},
                page.revisions.get(session.activity_questionnaire_id),
            )
            for session, answers in page.sessions
        ],
        page.total,
    )


@operation(
    "/answer_sessions/<uuid:answer_session_id>",
    "GET",
    scope="questionnaires:read",
    summary="One answer session with its answers (a driver: its own)",
    tag="questionnaires",
    response=AnswerSessionOut,
    errors=(401, 403, 404),
    path_params=ANSWER_SESSION_ID,
)
def get_answer_session(answer_session_id: uuid.UUID):
    who = principal()
    session, answers = answering.session_with_answers(
        carrier_id=who.carrier_id, session_id=answer_session_id
    )
    if who.kind == "driver" and session.chauffeur_id != who.id:
        raise Forbidden("A driver may only read its own answer sessions.")
    revision = service.get_revision(
        carrier_id=who.carrier_id, revision_id=session.activity_questionnaire_id
    )
    return json_response(
        serialize_session(session, {a.question_id: a.waarde for a in answers}, revision.revisie)
    )
