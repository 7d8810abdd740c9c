"""Answer sessions: a driver saving answers as they go and submitting them, checked by the
same engine that drives the builder's preview.

Split from service.py (which holds revisions and drafts) the way tasks split their lifecycle:
saving answers is one rule set the API and the pages share. It is still the questionnaires
domain's door to answer_sessions and answers.

A save names the revision it answers. Answers are merged into what the session holds (a
value of null clears an answer), then checked as a whole: a partial save checks the values
present, the final submit also demands every visible required answer. What is stored is the
engine's cleaned set: hidden questions dropped, formulas recomputed, read-only values reset to
their default. A refused save changes nothing.

Reading sessions is `answer_reads`' (re-exported here, so callers keep one door).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

import orjson
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from portal import events as webhooks
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import Conflict, Forbidden, ValidationFailed
from portal.extensions import db
from portal.questionnaires import engine
from portal.questionnaires.answer_files import file_problems
from portal.questionnaires.answer_reads import (
    SessionFilters,
    SessionPage,
    answers_of,
    get_session,
    list_sessions,
    session_with_answers,
    signed_in_answers,
    submitted_for_task,
)
from portal.questionnaires.models import ActivityQuestionnaire, Answer, AnswerSession
from portal.questionnaires.schemas import serialize_session
from portal.types import utcnow

__all__ = [
    "AnswersRefused",
    "Saved",
    "SessionClosed",
    "SessionFilters",
    "SessionPage",
    "TaskRef",
    "get_session",
    "list_sessions",
    "save",
    "session_with_answers",
    "signed_in_answers",
    "submitted_for_task",
]


class AnswersRefused(ValidationFailed):
    """The answers do not pass the questionnaire's rules; nothing was stored."""

    title = "Answers refused"


class SessionClosed(Conflict):
    title = "Answer session already submitted"


@dataclass(frozen=True)
class TaskRef:
    """What answering needs to know of a task (the tasks domain looks it up)."""

    id: uuid.UUID
    activity_questionnaire_id: uuid.UUID | None


@dataclass
class Saved:
    session: AnswerSession
    answers: dict[str, str]  # question id → stored JSON text
    created: bool
    revisie: int


def save(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    revision_id: uuid.UUID | None,
    answers: dict,
    submit: bool,
    session_id: uuid.UUID | None = None,
    task: TaskRef | None = None,
    actor: Actor | None = None,
    at: datetime | None = None,
) -> Saved:
    """Save (and with submit, hand in) answers of one session of this driver.

    The session is the one named by session_id; else the task's session for the revision
    (continued when it exists); else a new session for the revision's activity type alone.
    `at` is the moment of the save (now unless given, e.g. by demo data)."""
    at = at or utcnow()
    session = None
    if session_id is not None:
        session = _named_session(carrier_id, session_id, driver_id, revision_id, task)
        revision_id = session.activity_questionnaire_id
    if revision_id is None:
        revision_id = task.activity_questionnaire_id if task else None
    if revision_id is None:
        raise _refused(
            "activity_questionnaire_id",
            "name the questionnaire revision answered"
            + (" (the task has none pinned)" if task else ""),
        )
    revision = _revision(carrier_id, revision_id)
    if task is not None:
        session = _task_revision_session(carrier_id, task, revision, session, driver_id)
    if session is not None and session.status == "ingediend":
        raise SessionClosed(
            "This answer session was submitted; its answers can no longer change.",
            answer_session_id=str(session.id),
        )

    held = answers_of(carrier_id, session.id) if session is not None else {}
    definition = orjson.loads(revision.definition)
    cleaned = _checked(carrier_id, driver_id, definition, held, answers, submit=submit)

    created = session is None
    if created:
        session = _new_session(carrier_id, driver_id, revision, task, at)
    stored = _store(carrier_id, session, held, cleaned)
    if submit:
        _hand_in(carrier_id, session, revision, actor, at)
    session.updated_at = at
    db.session.flush()
    if submit:
        told = serialize_session(session, stored, revision.revisie)
        kind = "antwoorden.ingediend"
        webhooks.emit(
            db.session, carrier_id=carrier_id, type=kind, data=told, order_key=session.taak_id
        )
    return Saved(session=session, answers=stored, created=created, revisie=revision.revisie)


def _refused(field: str, message: str) -> ValidationFailed:
    return ValidationFailed([{"field": field, "message": message}])


def _named_session(
    carrier_id: uuid.UUID,
    session_id: uuid.UUID,
    driver_id: uuid.UUID,
    revision_id: uuid.UUID | None,
    task: TaskRef | None,
) -> AnswerSession:
    """The session a save names: the driver's own, of the revision and task named with it."""
    session = _session_of_driver(carrier_id, session_id, driver_id)
    if revision_id is not None and revision_id != session.activity_questionnaire_id:
        raise _refused("activity_questionnaire_id", "the session answers another revision")
    if task is not None and session.taak_id != task.id:
        raise _refused("taak_id", "the session belongs to another task")
    return session


def _task_revision_session(
    carrier_id: uuid.UUID,
    task: TaskRef,
    revision: ActivityQuestionnaire,
    session: AnswerSession | None,
    driver_id: uuid.UUID,
) -> AnswerSession | None:
    """A save for a task answers the revision the task pins; without a session named, it
    continues the task's session (the driver's own), if there is one."""
    if task.activity_questionnaire_id is None:
        raise _refused("taak_id", "this task has no questionnaire to answer")
    if revision.id != task.activity_questionnaire_id:
        raise _refused(
            "activity_questionnaire_id",
            f"the task asks revision {task.activity_questionnaire_id} of its questionnaire",
        )
    if session is None:
        session = _task_session(carrier_id, task.id, revision.id)
        if session is not None and session.chauffeur_id != driver_id:
            raise Forbidden("A colleague is answering this task's questionnaire.")
    return session


def _checked(
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    definition: dict,
    held: dict[str, str],
    answers: dict,
    *,
    submit: bool,
) -> dict:
    """The answers held merged with those sent (null clears one), checked as a whole: the
    engine's cleaned set, or AnswersRefused."""
    merged = {qid: orjson.loads(text) for qid, text in held.items()}
    for qid, value in answers.items():
        if value is None:
            merged.pop(qid, None)
        else:
            merged[qid] = value
    cleaned, problems = engine.validate_answers(definition, merged, final=submit)
    errors = [
        {
            "field": p.path,
            "message": p.message,
            "question_id": p.question_id,
            "code": p.code,
            "reason": p.reason,
            "params": p.params,
        }
        for p in problems
    ]
    errors += file_problems(carrier_id, definition, cleaned, driver_id, held)
    if errors:
        raise AnswersRefused(
            errors,
            detail=f"{len(errors)} answer(s) do not pass the questionnaire's rules; "
            "nothing was saved.",
        )
    return cleaned


def _hand_in(
    carrier_id: uuid.UUID,
    session: AnswerSession,
    revision: ActivityQuestionnaire,
    actor: Actor | None,
    at: datetime,
) -> None:
    """Close the session; a task's hand-in is on the task's audit trail."""
    session.status = "ingediend"
    session.ingediend_op = at
    if session.taak_id is not None and actor is not None:
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="task",
            entity_id=session.taak_id,
            action="questionnaire_submitted",
            changes={"vragenlijst": [None, f"{revision.questionnaire_id} r{revision.revisie}"]},
        )


def _revision(carrier_id: uuid.UUID, revision_id: uuid.UUID) -> ActivityQuestionnaire:
    revision = db.session.scalar(
        select(ActivityQuestionnaire).where(
            ActivityQuestionnaire.transporteur_id == carrier_id,
            ActivityQuestionnaire.id == revision_id,
        )
    )
    if revision is None:
        raise ValidationFailed(
            [{"field": "activity_questionnaire_id", "message": "no such questionnaire revision"}]
        )
    return revision


def _session_of_driver(
    carrier_id: uuid.UUID, session_id: uuid.UUID, driver_id: uuid.UUID
) -> AnswerSession:
    session = get_session(carrier_id=carrier_id, session_id=session_id, lock=True)
    if session.chauffeur_id != driver_id:
        raise Forbidden("A driver may only answer in its own sessions.")
    return session


def _task_session(
    carrier_id: uuid.UUID, task_id: uuid.UUID, revision_id: uuid.UUID
) -> AnswerSession | None:
    return db.session.scalar(
        select(AnswerSession)
        .where(
            AnswerSession.transporteur_id == carrier_id,
            AnswerSession.taak_id == task_id,
            AnswerSession.activity_questionnaire_id == revision_id,
        )
        .with_for_update()
        .execution_options(populate_existing=True)
    )


def _new_session(
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    revision: ActivityQuestionnaire,
    task: TaskRef | None,
    at: datetime,
) -> AnswerSession:
    session = AnswerSession(
        transporteur_id=carrier_id,
        activity_questionnaire_id=revision.id,
        activity_type=revision.activity_type,
        taak_id=task.id if task else None,
        chauffeur_id=driver_id,
        status="open",
        created_at=at,
    )
    try:
        with db.session.begin_nested():
            db.session.add(session)
    except IntegrityError:
        # Two phones (or two retries) started the task's session at the same moment: the
        # database kept one. Merging into it needs its answers: the caller sends again.
        raise Conflict(
            "Another request started this task's answer session at the same moment; "
            "send the answers again to add them to it."
        ) from None
    return session


def _store(
    carrier_id: uuid.UUID, session: AnswerSession, held: dict[str, str], cleaned: dict
) -> dict[str, str]:
    """Write the cleaned answers: changed ones updated, new ones added, the rest removed."""
    wanted = {qid: orjson.dumps(value).decode() for qid, value in cleaned.items()}
    gone = [qid for qid in held if qid not in wanted]
    if gone:
        db.session.execute(
            delete(Answer).where(
                Answer.transporteur_id == carrier_id,
                Answer.answer_session_id == session.id,
                Answer.question_id.in_(gone),
            )
        )
    changed = {qid: text for qid, text in wanted.items() if held.get(qid) != text}
    if changed:
        existing = {
            row.question_id: row
            for row in db.session.scalars(
                select(Answer).where(
                    Answer.transporteur_id == carrier_id,
                    Answer.answer_session_id == session.id,
                    Answer.question_id.in_(list(changed)),
                )
            )
        }
        for qid, text in changed.items():
            if qid in existing:
                existing[qid].waarde = text
            else:
                db.session.add(
                    Answer(
                        transporteur_id=carrier_id,
                        answer_session_id=session.id,
                        question_id=qid,
                        waarde=text,
                    )
                )
    return wanted
