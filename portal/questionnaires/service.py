"""Questionnaire revisions and answers: the only door to their tables."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import orjson
from sqlalchemy import Integer, String, Uuid, false, func, or_, select, update
from sqlalchemy import bindparam as param

from portal import reads
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import Conflict, DomainError, NotFound, ValidationFailed
from portal.extensions import db
from portal.questionnaires import editing, engine
from portal.questionnaires.models import (
    ActivityQuestionnaire,
    Answer,
    AnswerSession,
    QuestionnaireDraft,
)
from portal.questionnaires.schemas import serialize_revision_rows
from portal.types import utcnow


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


# --- drafts and revisions (the builder) ---

MAX_DRAFT_BYTES = 1_000_000  # the stored text of one draft (and the largest import)


class StaleDraft(DomainError):
    """The draft changed since the author loaded it (another tab or colleague saved)."""

    status = 409
    title = "Conflict"


@dataclass(frozen=True)
class QuestionnaireOverview:
    """One questionnaire of a carrier: its revisions in short, and its draft if any."""

    questionnaire_id: str
    title: str
    activity_type: str
    revision_count: int
    active: ActivityQuestionnaire | None
    latest: ActivityQuestionnaire | None
    draft: QuestionnaireDraft | None


def _loads(text: str) -> object:
    """A stored definition's JSON value (an empty object if the text is somehow broken)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}


def text_field(doc: object, key: str) -> str:
    """A string field of a definition ("" when absent or not a string)."""
    value = doc.get(key) if isinstance(doc, dict) else None
    return value if isinstance(value, str) else ""


def draft_document(draft: QuestionnaireDraft) -> dict:
    """The draft's definition as a JSON object (whatever its problems)."""
    doc = _loads(draft.definition)
    return doc if isinstance(doc, dict) else {}


def _dump_draft(questionnaire_id: str, doc: dict) -> str:
    """The text to store for a draft; its questionnaire_id is always the draft's own."""
    if not isinstance(doc, dict):
        raise ValidationFailed([{"field": "definition", "message": "must be a JSON object"}])
    doc = {**doc, "questionnaire_id": questionnaire_id}
    try:
        text = orjson.dumps(doc).decode()
    except (TypeError, orjson.JSONEncodeError) as exc:
        raise ValidationFailed([{"field": "definition", "message": str(exc)[:200]}]) from exc
    if len(text) > MAX_DRAFT_BYTES:
        message = f"a draft may hold at most {MAX_DRAFT_BYTES} bytes"
        raise ValidationFailed([{"field": "definition", "message": message}])
    return text


def overview(*, carrier_id: uuid.UUID) -> list[QuestionnaireOverview]:
    """Every questionnaire of the carrier (published or only a draft), by activity type: three
    queries whatever their number."""
    heads = db.session.execute(
        select(
            ActivityQuestionnaire.id,
            ActivityQuestionnaire.questionnaire_id,
            ActivityQuestionnaire.revisie,
            ActivityQuestionnaire.is_active,
        ).where(ActivityQuestionnaire.transporteur_id == carrier_id)
    ).all()
    counts: dict[str, int] = {}
    shown: dict[str, tuple] = {}
    for row in heads:
        counts[row.questionnaire_id] = counts.get(row.questionnaire_id, 0) + 1
        best = shown.get(row.questionnaire_id)
        if best is None or (row.is_active, row.revisie) > (best.is_active, best.revisie):
            shown[row.questionnaire_id] = row
    latest_numbers: dict[str, int] = {}
    for row in heads:
        latest_numbers[row.questionnaire_id] = max(
            latest_numbers.get(row.questionnaire_id, 0), row.revisie
        )
    wanted = {row.id for row in shown.values()}
    wanted |= {row.id for row in heads if row.revisie == latest_numbers[row.questionnaire_id]}
    rows = {
        r.id: r
        for r in db.session.scalars(
            select(ActivityQuestionnaire).where(
                ActivityQuestionnaire.transporteur_id == carrier_id,
                ActivityQuestionnaire.id.in_(wanted) if wanted else false(),
            )
        )
    }
    drafts = {
        d.questionnaire_id: d
        for d in db.session.scalars(
            select(QuestionnaireDraft).where(QuestionnaireDraft.transporteur_id == carrier_id)
        )
    }
    result = []
    for qid in set(counts) | set(drafts):
        head = shown.get(qid)
        revision = rows.get(head.id) if head else None
        latest = next(
            (
                rows[row.id]
                for row in heads
                if row.questionnaire_id == qid and row.revisie == latest_numbers[qid]
            ),
            None,
        )
        draft = drafts.get(qid)
        doc = _loads(revision.definition) if revision else draft_document(draft)
        title = text_field(doc, "title") or qid
        activity_type = revision.activity_type if revision else text_field(doc, "activity_type")
        result.append(
            QuestionnaireOverview(
                questionnaire_id=qid,
                title=title,
                activity_type=activity_type,
                revision_count=counts.get(qid, 0),
                active=revision if revision is not None and revision.is_active else None,
                latest=latest,
                draft=draft,
            )
        )
    result.sort(key=lambda item: (item.activity_type, item.title.lower(), item.questionnaire_id))
    return result


def questionnaire_exists(*, carrier_id: uuid.UUID, questionnaire_id: str) -> bool:
    """Whether the carrier has a revision or a draft of questionnaire_id."""
    revision = db.session.scalar(
        select(ActivityQuestionnaire.id)
        .where(
            ActivityQuestionnaire.transporteur_id == carrier_id,
            ActivityQuestionnaire.questionnaire_id == questionnaire_id,
        )
        .limit(1)
    )
    return (
        revision is not None
        or get_draft(carrier_id=carrier_id, questionnaire_id=questionnaire_id) is not None
    )


def get_draft(*, carrier_id: uuid.UUID, questionnaire_id: str) -> QuestionnaireDraft | None:
    """The draft of questionnaire_id, if there is one."""
    return db.session.scalar(
        select(QuestionnaireDraft).where(
            QuestionnaireDraft.transporteur_id == carrier_id,
            QuestionnaireDraft.questionnaire_id == questionnaire_id,
        )
    )


def _draft_or_404(carrier_id: uuid.UUID, questionnaire_id: str) -> QuestionnaireDraft:
    draft = get_draft(carrier_id=carrier_id, questionnaire_id=questionnaire_id)
    if draft is None:
        raise NotFound(f"no draft of questionnaire {questionnaire_id!r}")
    return draft


def known_activity_types(*, carrier_id: uuid.UUID) -> list[str]:
    """The activity types the carrier's questionnaires use, sorted."""
    types = db.session.scalars(
        select(ActivityQuestionnaire.activity_type)
        .where(ActivityQuestionnaire.transporteur_id == carrier_id)
        .distinct()
    )
    return sorted(set(types))


def create_draft(*, carrier_id: uuid.UUID, doc: dict, user_id: uuid.UUID | None, actor: Actor):
    """A draft for a new questionnaire; Conflict when its questionnaire_id is already used."""
    questionnaire_id = doc.get("questionnaire_id") if isinstance(doc, dict) else None
    if not isinstance(questionnaire_id, str) or not questionnaire_id:
        raise ValidationFailed([{"field": "questionnaire_id", "message": "is required"}])
    if questionnaire_exists(carrier_id=carrier_id, questionnaire_id=questionnaire_id):
        raise Conflict(f"questionnaire {questionnaire_id!r} exists already")
    draft = QuestionnaireDraft(
        transporteur_id=carrier_id,
        questionnaire_id=questionnaire_id,
        basis_revisie_id=None,
        definition=_dump_draft(questionnaire_id, doc),
        versie=1,
        gewijzigd_door=user_id,
    )
    db.session.add(draft)
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="questionnaire_draft",
        entity_id=draft.id,
        action="created",
        changes={"questionnaire_id": questionnaire_id},
    )
    return draft


def start_draft(
    *, carrier_id: uuid.UUID, questionnaire_id: str, user_id: uuid.UUID | None
) -> QuestionnaireDraft:
    """The draft of questionnaire_id, started from its active (else newest) revision if none."""
    draft = get_draft(carrier_id=carrier_id, questionnaire_id=questionnaire_id)
    if draft is not None:
        return draft
    basis = latest_revision(carrier_id=carrier_id, questionnaire_id=questionnaire_id)
    # Without the canonical form's nulls the draft reads (and exports) like an author wrote it.
    tidy = orjson.dumps(editing.tidy(_loads(basis.definition))).decode()
    draft = QuestionnaireDraft(
        transporteur_id=carrier_id,
        questionnaire_id=questionnaire_id,
        basis_revisie_id=basis.id,
        definition=tidy,
        versie=1,
        gewijzigd_door=user_id,
    )
    db.session.add(draft)
    db.session.flush()
    return draft


def save_draft(
    *,
    carrier_id: uuid.UUID,
    questionnaire_id: str,
    doc: dict,
    expected_versie: int | None,
    user_id: uuid.UUID | None,
) -> QuestionnaireDraft:
    """Store the whole draft definition if nobody saved it since expected_versie (StaleDraft
    otherwise); one conditional UPDATE, so two tabs cannot both win."""
    _draft_or_404(carrier_id, questionnaire_id)
    text = _dump_draft(questionnaire_id, doc)
    result = db.session.execute(
        update(QuestionnaireDraft)
        .where(
            QuestionnaireDraft.transporteur_id == carrier_id,
            QuestionnaireDraft.questionnaire_id == questionnaire_id,
            QuestionnaireDraft.versie == expected_versie,
        )
        .values(
            definition=text,
            versie=QuestionnaireDraft.versie + 1,
            gewijzigd_door=user_id,
            updated_at=utcnow(),
        )
        .execution_options(synchronize_session=False)
    )
    draft = db.session.scalar(
        select(QuestionnaireDraft)
        .where(
            QuestionnaireDraft.transporteur_id == carrier_id,
            QuestionnaireDraft.questionnaire_id == questionnaire_id,
        )
        .execution_options(populate_existing=True)
    )
    if result.rowcount != 1 or draft is None:
        raise StaleDraft(
            "the draft was changed meanwhile",
            versie=draft.versie if draft else None,
            gewijzigd_door=draft.gewijzigd_door if draft else None,
            updated_at=draft.updated_at if draft else None,
        )
    return draft


def replace_draft(
    *,
    carrier_id: uuid.UUID,
    questionnaire_id: str,
    doc: dict,
    user_id: uuid.UUID | None,
    actor: Actor,
    action: str,
    basis: ActivityQuestionnaire | None = None,
) -> QuestionnaireDraft:
    """Make doc the draft (an import or a restored revision), creating the draft if needed."""
    text = _dump_draft(questionnaire_id, doc)
    draft = get_draft(carrier_id=carrier_id, questionnaire_id=questionnaire_id)
    if draft is None:
        draft = QuestionnaireDraft(
            transporteur_id=carrier_id, questionnaire_id=questionnaire_id, versie=0
        )
        db.session.add(draft)
    draft.definition = text
    draft.versie = (draft.versie or 0) + 1
    draft.gewijzigd_door = user_id
    if basis is not None:
        draft.basis_revisie_id = basis.id
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="questionnaire_draft",
        entity_id=draft.id,
        action=action,
        changes={"questionnaire_id": questionnaire_id, "revisie": basis.revisie if basis else None},
    )
    return draft


def discard_draft(*, carrier_id: uuid.UUID, questionnaire_id: str, actor: Actor) -> None:
    """Throw the draft away; a questionnaire without revisions is then gone."""
    draft = _draft_or_404(carrier_id, questionnaire_id)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="questionnaire_draft",
        entity_id=draft.id,
        action="discarded",
        changes={"questionnaire_id": questionnaire_id},
    )
    db.session.delete(draft)
    db.session.flush()


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


def publish_draft(
    *, carrier_id: uuid.UUID, questionnaire_id: str, expected_versie: int | None, actor: Actor
) -> ActivityQuestionnaire:
    """Publish the draft as the new active revision and remove it: ValidationFailed while it
    has problems, StaleDraft when it changed since the author looked at it."""
    draft = _draft_or_404(carrier_id, questionnaire_id)
    if draft.versie != expected_versie:
        raise StaleDraft(
            "the draft was changed meanwhile",
            versie=draft.versie,
            gewijzigd_door=draft.gewijzigd_door,
            updated_at=draft.updated_at,
        )
    doc = {**draft_document(draft), "questionnaire_id": questionnaire_id}
    replaced = revisions_replaced(
        carrier_id=carrier_id,
        questionnaire_id=questionnaire_id,
        activity_type=text_field(doc, "activity_type") or None,
    )
    revision = publish(carrier_id=carrier_id, doc=doc, activate=True)
    db.session.delete(draft)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="questionnaire",
        entity_id=revision.id,
        action="published",
        changes={
            "questionnaire_id": questionnaire_id,
            "activity_type": revision.activity_type,
            "revisie": revision.revisie,
            "deactivated": [str(r.id) for r in replaced],
        },
    )
    db.session.flush()
    return revision


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
