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
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime

import orjson
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from portal import events as webhooks
from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import Conflict, Forbidden, NotFound, ValidationFailed
from portal.extensions import db
from portal.files import service as files
from portal.questionnaires import engine
from portal.questionnaires.models import ActivityQuestionnaire, Answer, AnswerSession
from portal.questionnaires.schemas import serialize_session
from portal.types import period_bound, utcnow

FILE_TYPES = ("photo", "signature", "document_scan")


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
        session = _session_of_driver(carrier_id, session_id, driver_id)
        if revision_id is not None and revision_id != session.activity_questionnaire_id:
            raise ValidationFailed(
                [
                    {
                        "field": "activity_questionnaire_id",
                        "message": "the session answers another revision",
                    }
                ]
            )
        revision_id = session.activity_questionnaire_id
        if task is not None and session.taak_id != task.id:
            raise ValidationFailed(
                [{"field": "taak_id", "message": "the session belongs to another task"}]
            )
    if revision_id is None:
        revision_id = task.activity_questionnaire_id if task else None
    if revision_id is None:
        raise ValidationFailed(
            [
                {
                    "field": "activity_questionnaire_id",
                    "message": "name the questionnaire revision answered"
                    + (" (the task has none pinned)" if task else ""),
                }
            ]
        )
    revision = _revision(carrier_id, revision_id)
    if task is not None:
        if task.activity_questionnaire_id is None:
            raise ValidationFailed(
                [{"field": "taak_id", "message": "this task has no questionnaire to answer"}]
            )
        if revision.id != task.activity_questionnaire_id:
            raise ValidationFailed(
                [
                    {
                        "field": "activity_questionnaire_id",
                        "message": "the task asks revision "
                        f"{task.activity_questionnaire_id} of its questionnaire",
                    }
                ]
            )
        if session is None:
            session = _task_session(carrier_id, task.id, revision.id)
            if session is not None and session.chauffeur_id != driver_id:
                raise Forbidden("A colleague is answering this task's questionnaire.")
    if session is not None and session.status == "ingediend":
        raise SessionClosed(
            "This answer session was submitted; its answers can no longer change.",
            answer_session_id=str(session.id),
        )

    held = _answers_of(carrier_id, session.id) if session is not None else {}
    merged = {qid: orjson.loads(text) for qid, text in held.items()}
    for qid, value in answers.items():
        if value is None:
            merged.pop(qid, None)
        else:
            merged[qid] = value
    definition = orjson.loads(revision.definition)
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
    errors += _file_problems(carrier_id, definition, cleaned, driver_id, held)
    if errors:
        raise AnswersRefused(
            errors,
            detail=f"{len(errors)} answer(s) do not pass the questionnaire's rules; "
            "nothing was saved.",
        )

    created = session is None
    if created:
        session = _new_session(carrier_id, driver_id, revision, task, at)
    stored = _store(carrier_id, session, held, cleaned)
    if submit:
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
    session.updated_at = at
    db.session.flush()
    if submit:
        told = serialize_session(session, stored, revision.revisie)
        kind = "antwoorden.ingediend"
        webhooks.emit(
            db.session, carrier_id=carrier_id, type=kind, data=told, order_key=session.taak_id
        )
    return Saved(session=session, answers=stored, created=created, revisie=revision.revisie)


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
    carrier_id: uuid.UUID, session_id: uuid.UUID, chauffeur_id: uuid.UUID
) -> AnswerSession:
    session = get_session(carrier_id=carrier_id, session_id=session_id, lock=True)
    if session.chauffeur_id != chauffeur_id:
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
    chauffeur_id: uuid.UUID,
    revision: ActivityQuestionnaire,
    task: TaskRef | None,
    at: datetime,
) -> AnswerSession:
    session = AnswerSession(
        transporteur_id=carrier_id,
        activity_questionnaire_id=revision.id,
        activity_type=revision.activity_type,
        taak_id=task.id if task else None,
        chauffeur_id=chauffeur_id,
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


def _answers_of(carrier_id: uuid.UUID, session_id: uuid.UUID) -> dict[str, str]:
    rows = db.session.execute(
        select(Answer.question_id, Answer.waarde).where(
            Answer.transporteur_id == carrier_id, Answer.answer_session_id == session_id
        )
    )
    return {row.question_id: row.waarde for row in rows}


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


def _file_questions(questions) -> dict[str, str]:
    found = {}
    for question in questions or []:
        if question.get("type") in FILE_TYPES:
            found[question["id"]] = question["type"]
        if question.get("type") == "group":
            found.update(_file_questions(question.get("questions")))
    return found


def _file_problems(
    carrier_id: uuid.UUID,
    definition: dict,
    cleaned: dict,
    chauffeur_id: uuid.UUID,
    held: dict[str, str],
) -> list[dict]:
    """Files answered must be the carrier's own, uploaded as the kind the question asks, by
    this driver (or be in the session's answers already): a colleague's photo is, to a
    driver, no such file."""
    kinds = _file_questions(definition.get("questions"))
    wanted = {
        uuid.UUID(file_id): qid for qid, kind in kinds.items() for file_id in cleaned.get(qid) or ()
    }
    if not wanted:
        return []
    kept = {
        str(file_id)
        for qid in kinds
        if qid in held
        for file_id in (orjson.loads(held[qid]) if held[qid] else None) or ()
        if isinstance(file_id, str)
    }
    driver = Actor("driver", chauffeur_id, "")
    found = {
        file_id: row
        for file_id, row in files.files_by_id(carrier_id=carrier_id, file_ids=set(wanted)).items()
        if str(file_id) in kept or files.uploaded_by(row, driver)
    }
    problems = []
    for file_id, qid in wanted.items():
        row = found.get(file_id)
        if row is None:
            message = f"no such file {file_id}; upload it with POST /api/v1/bestanden first"
        elif row.soort != kinds[qid]:
            message = f"file {file_id} was uploaded as a {row.soort}, not a {kinds[qid]}"
        else:
            continue
        problems.append(
            {"field": f"answers.{qid}", "message": message, "question_id": qid, "code": "file"}
        )
    return problems


# --- reading ---------------------------------------------------------------------------


def get_session(
    *, carrier_id: uuid.UUID, session_id: uuid.UUID, lock: bool = False
) -> AnswerSession:
    query = select(AnswerSession).where(
        AnswerSession.transporteur_id == carrier_id, AnswerSession.id == session_id
    )
    if lock:
        query = query.with_for_update().execution_options(populate_existing=True)
    session = db.session.scalar(query)
    if session is None:
        raise NotFound("answer session not found")
    return session


@dataclass
class SessionFilters:
    taak_id: uuid.UUID | None = None
    chauffeur_id: uuid.UUID | None = None
    activity_type: str | None = None
    status: str | None = None
    van: date | datetime | None = None
    tot: date | datetime | None = None
    limit: int = 100
    offset: int = 0


@dataclass
class SessionPage:
    sessions: list[tuple[AnswerSession, list[Answer]]]
    total: int
    revisions: dict[uuid.UUID, int]  # revision id → revisie number


def list_sessions(*, carrier_id: uuid.UUID, filters: SessionFilters) -> SessionPage:
    """Answer sessions, newest first, with their answers: four queries whatever the page."""
    where = [AnswerSession.transporteur_id == carrier_id]
    if filters.taak_id is not None:
        where.append(AnswerSession.taak_id == filters.taak_id)
    if filters.chauffeur_id is not None:
        where.append(AnswerSession.chauffeur_id == filters.chauffeur_id)
    if filters.activity_type is not None:
        where.append(AnswerSession.activity_type == filters.activity_type)
    if filters.status is not None:
        where.append(AnswerSession.status == filters.status)
    if filters.van is not None or filters.tot is not None:
        zone = carrier_zone(carrier_id)
        if filters.van is not None:
            where.append(AnswerSession.created_at >= period_bound(filters.van, zone, end=False))
        if filters.tot is not None:
            where.append(AnswerSession.created_at < period_bound(filters.tot, zone, end=True))
    total = db.session.scalar(select(func.count()).select_from(AnswerSession).where(*where)) or 0
    sessions = list(
        db.session.scalars(
            select(AnswerSession)
            .where(*where)
            .order_by(AnswerSession.created_at.desc(), AnswerSession.id)
            .limit(filters.limit)
            .offset(filters.offset)
        )
    )
    if not sessions:
        return SessionPage([], total, {})
    answers: dict[uuid.UUID, list[Answer]] = {s.id: [] for s in sessions}
    for answer in db.session.scalars(
        select(Answer)
        .where(Answer.transporteur_id == carrier_id, Answer.answer_session_id.in_(list(answers)))
        .order_by(Answer.question_id)
    ):
        answers[answer.answer_session_id].append(answer)
    revisions = dict(
        db.session.execute(
            select(ActivityQuestionnaire.id, ActivityQuestionnaire.revisie).where(
                ActivityQuestionnaire.transporteur_id == carrier_id,
                ActivityQuestionnaire.id.in_({s.activity_questionnaire_id for s in sessions}),
            )
        ).all()
    )
    return SessionPage([(s, answers[s.id]) for s in sessions], total, revisions)


def session_with_answers(
    *, carrier_id: uuid.UUID, session_id: uuid.UUID
) -> tuple[AnswerSession, list[Answer]]:
    session = get_session(carrier_id=carrier_id, session_id=session_id)
    answers = list(
        db.session.scalars(
            select(Answer)
            .where(Answer.transporteur_id == carrier_id, Answer.answer_session_id == session.id)
            .order_by(Answer.question_id)
        )
    )
    return session, answers


def submitted_for_task(
    *, carrier_id: uuid.UUID, task_id: uuid.UUID, revision_id: uuid.UUID
) -> bool:
    """Whether the task's questionnaire (this revision) was submitted."""
    return bool(
        db.session.scalar(
            select(AnswerSession.id)
            .where(
                AnswerSession.transporteur_id == carrier_id,
                AnswerSession.taak_id == task_id,
                AnswerSession.activity_questionnaire_id == revision_id,
                AnswerSession.status == "ingediend",
            )
            .limit(1)
        )
    )


def signed_in_answers(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> bool:
    """Whether a signature question of the task's questionnaire holds a signature: what the
    driver signed in the answers counts as the task's signature."""
    sessions = db.session.execute(
        select(AnswerSession.id, ActivityQuestionnaire.definition)
        .join(
            ActivityQuestionnaire,
            (ActivityQuestionnaire.transporteur_id == AnswerSession.transporteur_id)
            & (ActivityQuestionnaire.id == AnswerSession.activity_questionnaire_id),
        )
        .where(AnswerSession.transporteur_id == carrier_id, AnswerSession.taak_id == task_id)
    ).all()
    for session_id, definition in sessions:
        asked = _file_questions(orjson.loads(definition).get("questions"))
        signatures = [qid for qid, kind in asked.items() if kind == "signature"]
        if not signatures:
            continue
        answers = _answers_of(carrier_id, session_id)
        if any(orjson.loads(answers[qid]) for qid in signatures if qid in answers):
            return True
    return False
