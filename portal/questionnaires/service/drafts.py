"""Questionnaire drafts (the builder): the overview, creating, saving, replacing, discarding
and publishing a draft."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import orjson
from sqlalchemy import false, select, update

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import Conflict, DomainError, NotFound, ValidationFailed
from portal.extensions import db
from portal.questionnaires import editing
from portal.questionnaires.models import ActivityQuestionnaire, QuestionnaireDraft
from portal.questionnaires.service.revisions import latest_revision, publish, revisions_replaced
from portal.types import utcnow

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
    counts, shown, latest = _revisions_in_short(heads)
    rows = _revisions_by_id(carrier_id, {*shown.values(), *latest.values()})
    drafts = {
        d.questionnaire_id: d
        for d in db.session.scalars(
            select(QuestionnaireDraft).where(QuestionnaireDraft.transporteur_id == carrier_id)
        )
    }
    result = []
    for qid in set(counts) | set(drafts):
        revision = rows.get(shown[qid]) if qid in shown else None
        draft = drafts.get(qid)
        doc = _loads(revision.definition) if revision else draft_document(draft)
        result.append(
            QuestionnaireOverview(
                questionnaire_id=qid,
                title=text_field(doc, "title") or qid,
                activity_type=revision.activity_type
                if revision
                else text_field(doc, "activity_type"),
                revision_count=counts.get(qid, 0),
                active=revision if revision is not None and revision.is_active else None,
                latest=rows[latest[qid]] if qid in latest else None,
                draft=draft,
            )
        )
    result.sort(key=lambda item: (item.activity_type, item.title.lower(), item.questionnaire_id))
    return result


def _revisions_in_short(heads) -> tuple[dict[str, int], dict[str, uuid.UUID], dict]:
    """Per questionnaire: how many revisions, the one shown (the active one, else the
    latest) and the latest, by their ids."""
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
    latest: dict[str, uuid.UUID] = {}
    for row in heads:
        if row.revisie == latest_numbers[row.questionnaire_id]:
            latest.setdefault(row.questionnaire_id, row.id)
    return counts, {qid: row.id for qid, row in shown.items()}, latest


def _revisions_by_id(
    carrier_id: uuid.UUID, wanted: set[uuid.UUID]
) -> dict[uuid.UUID, ActivityQuestionnaire]:
    return {
        r.id: r
        for r in db.session.scalars(
            select(ActivityQuestionnaire).where(
                ActivityQuestionnaire.transporteur_id == carrier_id,
                ActivityQuestionnaire.id.in_(wanted) if wanted else false(),
            )
        )
    }


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
