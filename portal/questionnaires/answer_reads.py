"""Reading answer sessions: one session, a filtered page of them with their answers, and
what the tasks domain asks (was the task's questionnaire submitted, did the driver sign in
the answers). The saving side is `answering`, which re-exports these for its callers."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime

import orjson
from sqlalchemy import func, select

from portal.accounts.service import carrier_zone
from portal.errors import NotFound
from portal.extensions import db
from portal.questionnaires.answer_files import file_questions
from portal.questionnaires.models import ActivityQuestionnaire, Answer, AnswerSession
from portal.types import period_bound


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
    task_id: uuid.UUID | None = None
    driver_id: uuid.UUID | None = None
    activity_type: str | None = None
    status: str | None = None
    start: date | datetime | None = None  # the first day (or moment) of the period
    end: date | datetime | None = None  # its last day, included
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
    if filters.task_id is not None:
        where.append(AnswerSession.taak_id == filters.task_id)
    if filters.driver_id is not None:
        where.append(AnswerSession.chauffeur_id == filters.driver_id)
    if filters.activity_type is not None:
        where.append(AnswerSession.activity_type == filters.activity_type)
    if filters.status is not None:
        where.append(AnswerSession.status == filters.status)
    if filters.start is not None or filters.end is not None:
        zone = carrier_zone(carrier_id)
        if filters.start is not None:
            where.append(AnswerSession.created_at >= period_bound(filters.start, zone, end=False))
        if filters.end is not None:
            where.append(AnswerSession.created_at < period_bound(filters.end, zone, end=True))
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
        asked = file_questions(orjson.loads(definition).get("questions"))
        signatures = [qid for qid, kind in asked.items() if kind == "signature"]
        if not signatures:
            continue
        answers = answers_of(carrier_id, session_id)
        if any(orjson.loads(answers[qid]) for qid in signatures if qid in answers):
            return True
    return False


def answers_of(carrier_id: uuid.UUID, session_id: uuid.UUID) -> dict[str, str]:
    rows = db.session.execute(
        select(Answer.question_id, Answer.waarde).where(
            Answer.transporteur_id == carrier_id, Answer.answer_session_id == session_id
        )
    )
    return {row.question_id: row.waarde for row in rows}
