"""Questionnaire revisions: checking and publishing a definition, the active revisions per
activity type (and their cached bytes), the revisions' list, and the answer sessions of a task."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import orjson
from sqlalchemy import Integer, String, Uuid, func, or_, select, update
from sqlalchemy import bindparam as param

from portal import reads
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.questionnaires import engine
from portal.questionnaires.models import ActivityQuestionnaire, Answer, AnswerSession
from portal.questionnaires.schemas import serialize_revision_rows


def check(doc: object) -> dict:
    """The canonical form of a QuestionnaireDefinition; ValidationFailed listing every problem."""
    canonical, problems = engine.check_definition(doc)
    if problems:
        raise ValidationFailed(
            [
                {
                    "field": p.path,
                    "message": p.message,
                    "question_id": p.question_id,
                    "code": p.code,
                    "reason": p.reason,
                    "params": p.params,
                }
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


@lru_cache(maxsize=8)
def _active_statements(by_type: bool, dialect: str):
    where = [
        ActivityQuestionnaire.transporteur_id == param("tid", type_=Uuid, required=False),
        ActivityQuestionnaire.is_active,
    ]
    if by_type:
        where.append(
            ActivityQuestionnaire.activity_type
            == param("activity_type", type_=String, required=False)
        )
    fingerprint = select(func.count(), func.max(ActivityQuestionnaire.updated_at)).where(*where)

    def moment(column):
        if dialect == "postgresql":
            return func.to_char(func.timezone("UTC", column), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        return column

    rows = (
        select(
            ActivityQuestionnaire.id,
            ActivityQuestionnaire.transporteur_id,
            ActivityQuestionnaire.activity_type,
            ActivityQuestionnaire.questionnaire_id,
            ActivityQuestionnaire.is_active,
            moment(ActivityQuestionnaire.created_at),
            moment(ActivityQuestionnaire.updated_at),
        )
        .where(*where)
        .order_by(ActivityQuestionnaire.activity_type, ActivityQuestionnaire.id)
        .limit(param("limit", type_=Integer, required=False))
        .offset(param("offset", type_=Integer, required=False))
    )
    return fingerprint, rows


@dataclass(frozen=True)
class ActiveListing:
    """The carrier's active revisions read the fast way (as tasks.service.TaskListing):
    `fingerprint` decides the ETag, `rows` are plain tuples, `body` splices each revision's
    definition from the per-process cache."""

    carrier_id: uuid.UUID
    key: str
    fingerprint: reads.Query
    rows: reads.Query

    @classmethod
    def of(
        cls,
        *,
        carrier_id: uuid.UUID,
        activity_type: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> ActiveListing:
        fingerprint, rows = _active_statements(activity_type is not None, db.engine.dialect.name)
        values = {"tid": carrier_id, "activity_type": activity_type}
        return cls(
            carrier_id,
            f"active|{activity_type}|{limit}|{offset}",
            reads.Query(fingerprint, values),
            reads.Query(rows, {**values, "limit": limit, "offset": offset}),
        )

    def etag(self, fingerprint_rows: list[tuple]) -> tuple[str, int]:
        count, latest = fingerprint_rows[0]
        basis = f"{self.key}|{count}|{latest}"
        return hashlib.sha256(basis.encode()).hexdigest()[:32], count

    def body(self, rows: list[tuple]) -> bytes:
        definitions = definition_bytes(
            carrier_id=self.carrier_id, revision_ids=[r[0] for r in rows]
        )
        return serialize_revision_rows(
            rows, definitions, times_as_text=db.engine.dialect.name == "postgresql"
        )


# A revision's definition never changes once published: its text is kept per process,
# by carrier and revision id, bounded in size.
DEFINITIONS = reads.ByteCache(max_bytes=32 * 1024 * 1024)


def definition_bytes(
    *, carrier_id: uuid.UUID, revision_ids: Iterable[uuid.UUID | None]
) -> dict[uuid.UUID, bytes]:
    """The stored definition text of each revision id, from the cache; those missing are
    read in one round trip."""
    found: dict[uuid.UUID, bytes] = {}
    missing = []
    for rid in set(revision_ids):
        if rid is None:
            continue
        text = DEFINITIONS.get((carrier_id, rid))
        if text is None:
            missing.append(rid)
        else:
            found[rid] = text
    if missing:
        statement = select(ActivityQuestionnaire.id, ActivityQuestionnaire.definition).where(
            ActivityQuestionnaire.transporteur_id == param("tid", type_=Uuid, required=False),
            ActivityQuestionnaire.id.in_(missing),
        )
        (rows,) = reads.read(carrier_id, reads.Query(statement, {"tid": carrier_id}))
        for rid, text in rows:
            data = text.encode()
            DEFINITIONS.put((carrier_id, rid), data)
            found[rid] = data
    return found


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


def revisions_by_id(
    *, carrier_id: uuid.UUID, revision_ids: Iterable[uuid.UUID]
) -> dict[uuid.UUID, ActivityQuestionnaire]:
    """The carrier's revisions of these ids, in one query."""
    ids = {rid for rid in revision_ids if rid is not None}
    if not ids:
        return {}
    rows = db.session.scalars(
        select(ActivityQuestionnaire).where(
            ActivityQuestionnaire.transporteur_id == carrier_id,
            ActivityQuestionnaire.id.in_(ids),
        )
    )
    return {row.id: row for row in rows}


def activity_types(*, carrier_id: uuid.UUID) -> list[str]:
    """Every activity type the carrier has a questionnaire for (any revision), sorted."""
    return list(
        db.session.scalars(
            select(ActivityQuestionnaire.activity_type)
            .where(ActivityQuestionnaire.transporteur_id == carrier_id)
            .distinct()
            .order_by(ActivityQuestionnaire.activity_type)
        )
    )


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


def revisions_replaced(
    *, carrier_id: uuid.UUID, questionnaire_id: str, activity_type: str | None
) -> list[ActivityQuestionnaire]:
    """The active revisions that publishing a new revision would deactivate."""
    which = ActivityQuestionnaire.questionnaire_id == questionnaire_id
    if activity_type:
        which = or_(which, ActivityQuestionnaire.activity_type == activity_type)
    return list(
        db.session.scalars(
            select(ActivityQuestionnaire)
            .where(
                ActivityQuestionnaire.transporteur_id == carrier_id,
                ActivityQuestionnaire.is_active,
                which,
            )
            .order_by(ActivityQuestionnaire.activity_type)
        )
    )


def list_revisions(
    *, carrier_id: uuid.UUID, questionnaire_id: str, limit: int = 100, offset: int = 0
) -> tuple[list[ActivityQuestionnaire], int]:
    """The revisions of questionnaire_id, newest first, with their total."""
    where = (
        ActivityQuestionnaire.transporteur_id == carrier_id,
        ActivityQuestionnaire.questionnaire_id == questionnaire_id,
    )
    total = db.session.scalar(select(func.count()).select_from(ActivityQuestionnaire).where(*where))
    rows = db.session.scalars(
        select(ActivityQuestionnaire)
        .where(*where)
        .order_by(ActivityQuestionnaire.revisie.desc())
        .limit(limit)
        .offset(offset)
    )
    return list(rows), total or 0


def revision_numbers(*, carrier_id: uuid.UUID, questionnaire_id: str) -> list[int]:
    """Every revision number of questionnaire_id, newest first."""
    return list(
        db.session.scalars(
            select(ActivityQuestionnaire.revisie)
            .where(
                ActivityQuestionnaire.transporteur_id == carrier_id,
                ActivityQuestionnaire.questionnaire_id == questionnaire_id,
            )
            .order_by(ActivityQuestionnaire.revisie.desc())
        )
    )


def revision_by_number(
    *, carrier_id: uuid.UUID, questionnaire_id: str, revisie: int
) -> ActivityQuestionnaire:
    """Revision number `revisie` of questionnaire_id; NotFound otherwise."""
    revision = db.session.scalar(
        select(ActivityQuestionnaire).where(
            ActivityQuestionnaire.transporteur_id == carrier_id,
            ActivityQuestionnaire.questionnaire_id == questionnaire_id,
            ActivityQuestionnaire.revisie == revisie,
        )
    )
    if revision is None:
        raise NotFound(f"questionnaire {questionnaire_id!r} has no revision {revisie}")
    return revision
