"""Questionnaire revisions and answers: the only door to their tables."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

import orjson
from sqlalchemy import func, or_, select, update

from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.questionnaires import engine
from portal.questionnaires.models import ActivityQuestionnaire, Answer, AnswerSession


def check(doc: object) -> dict:
    """The canonical form of a QuestionnaireDefinition; ValidationFailed listing every problem."""
    canonical, problems = engine.check_definition(doc)
    if problems:
        raise ValidationFailed(
            [
                {"field": p.path, "message": p.message, "question_id": p.question_id}
                for p in problems
            ],
            detail=f"The questionnaire definition has {len(problems)} problem(s).",
        )
    return canonical


def publish(*, carrier_id: uuid.UUID, doc: object, activate: bool) -> ActivityQuestionnaire:
    """Store a checked definition as a new immutable revision; activating it deactivates the
    carrier's active revision for the same activity type and the same questionnaire_id."""
    canonical = check(doc)
    questionnaire_id = canonical["questionnaire_id"]
    activity_type = canonical["activity_type"]
    latest = db.session.scalar(
        select(func.max(ActivityQuestionnaire.revisie)).where(
            ActivityQuestionnaire.transporteur_id == carrier_id,
            ActivityQuestionnaire.questionnaire_id == questionnaire_id,
        )
    )
    if activate:
        db.session.execute(
            update(ActivityQuestionnaire)
            .where(
                ActivityQuestionnaire.transporteur_id == carrier_id,
                ActivityQuestionnaire.is_active,
                or_(
                    ActivityQuestionnaire.activity_type == activity_type,
                    ActivityQuestionnaire.questionnaire_id == questionnaire_id,
                ),
            )
            .values(is_active=False)
        )
    revision = ActivityQuestionnaire(
        transporteur_id=carrier_id,
        activity_type=activity_type,
        questionnaire_id=questionnaire_id,
        revisie=(latest or 0) + 1,
        definition=orjson.dumps(canonical).decode(),
        is_active=activate,
    )
    db.session.add(revision)
    db.session.flush()
    return revision


def list_active(
    *, carrier_id: uuid.UUID, activity_type: str | None = None, limit: int = 100, offset: int = 0
) -> tuple[list[ActivityQuestionnaire], int]:
    """The carrier's active revisions, by activity type, with the total count."""
    where = [ActivityQuestionnaire.transporteur_id == carrier_id, ActivityQuestionnaire.is_active]
    if activity_type is not None:
        where.append(ActivityQuestionnaire.activity_type == activity_type)
    total = db.session.scalar(select(func.count()).select_from(ActivityQuestionnaire).where(*where))
    rows = db.session.scalars(
        select(ActivityQuestionnaire)
        .where(*where)
        .order_by(ActivityQuestionnaire.activity_type, ActivityQuestionnaire.id)
        .limit(limit)
        .offset(offset)
    )
    return list(rows), total or 0


def active_for_type(*, carrier_id: uuid.UUID, activity_type: str) -> ActivityQuestionnaire | None:
    """The active revision a new task of this type pins, if any."""
    return db.session.scalar(
        select(ActivityQuestionnaire).where(
            ActivityQuestionnaire.transporteur_id == carrier_id,
            ActivityQuestionnaire.activity_type == activity_type,
            ActivityQuestionnaire.is_active,
        )
    )


def definitions(
    *, carrier_id: uuid.UUID, revision_ids: Iterable[uuid.UUID]
) -> dict[uuid.UUID, str]:
    """The stored definition text of each revision id, in one query."""
    ids = {rid for rid in revision_ids if rid is not None}
    if not ids:
        return {}
    rows = db.session.execute(
        select(ActivityQuestionnaire.id, ActivityQuestionnaire.definition).where(
            ActivityQuestionnaire.transporteur_id == carrier_id,
            ActivityQuestionnaire.id.in_(ids),
        )
    )
    return {row.id: row.definition for row in rows}


def latest_revision(*, carrier_id: uuid.UUID, questionnaire_id: str) -> ActivityQuestionnaire:
    """The active revision of questionnaire_id, else its newest."""
    revision = db.session.scalar(
        select(ActivityQuestionnaire)
        .where(
            ActivityQuestionnaire.transporteur_id == carrier_id,
            ActivityQuestionnaire.questionnaire_id == questionnaire_id,
        )
        .order_by(ActivityQuestionnaire.is_active.desc(), ActivityQuestionnaire.revisie.desc())
        .limit(1)
    )
    if revision is None:
        raise NotFound(f"no questionnaire {questionnaire_id!r}")
    return revision


def get_revision(*, carrier_id: uuid.UUID, revision_id: uuid.UUID) -> ActivityQuestionnaire:
    """One stored revision of the carrier; NotFound otherwise."""
    revision = db.session.scalar(
        select(ActivityQuestionnaire).where(
            ActivityQuestionnaire.transporteur_id == carrier_id,
            ActivityQuestionnaire.id == revision_id,
        )
    )
    if revision is None:
        raise NotFound("questionnaire revision not found")
    return revision


def sessions_for_task(
    *, carrier_id: uuid.UUID, task_id: uuid.UUID
) -> list[tuple[AnswerSession, list[Answer]]]:
    """The answer sessions of a task with their answers, oldest first: two queries."""
    sessions = list(
        db.session.scalars(
            select(AnswerSession)
            .where(AnswerSession.transporteur_id == carrier_id, AnswerSession.taak_id == task_id)
            .order_by(AnswerSession.created_at, AnswerSession.id)
        )
    )
    if not sessions:
        return []
    answers: dict[uuid.UUID, list[Answer]] = {s.id: [] for s in sessions}
    for answer in db.session.scalars(
        select(Answer)
        .where(Answer.transporteur_id == carrier_id, Answer.answer_session_id.in_(list(answers)))
        .order_by(Answer.question_id)
    ):
        answers[answer.answer_session_id].append(answer)
    return [(s, answers[s.id]) for s in sessions]


def task_has_sessions(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> bool:
    """Whether a driver has answered (or begun answering) for the task."""
    return bool(
        db.session.scalar(
            select(AnswerSession.id)
            .where(AnswerSession.transporteur_id == carrier_id, AnswerSession.taak_id == task_id)
            .limit(1)
        )
    )
