"""JSON shapes of questionnaires: the seed's sections 2.2 to 2.6."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated, Any, Literal

import orjson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from portal.questionnaires.models import ActivityQuestionnaire
from portal.schemas import InModel, Timestamp, in_range
from portal.types import iso


class ValidationRule(BaseModel):
    min: float | None = None
    max: float | None = None
    minlength: int | None = None
    maxlength: int | None = None
    regex: str | None = None


class VisibilityCondition(BaseModel):
    question_id: str
    operator: str = Field(
        description="eq, neq, gt, gte, lt, lte, in, not_in, contains, empty, not_empty"
    )
    value: Any = None


class Question(BaseModel):
    id: str
    type: str = Field(
        description="text, textarea, number, integer, boolean, select, multiselect, date, time, "
        "datetime, photo, signature, document_scan, barcode, location, group, calculated, info"
    )
    label: str
    required: bool
    default_value: Any = None
    readonly: bool
    unit: str | None = None
    max_files: int | None = None
    options: list[str] | None = None
    validation: ValidationRule | None = None
    visible_if: VisibilityCondition | None = None
    questions: list[Question] | None = None
    formula: str | None = None


class QuestionnaireDefinition(BaseModel):
    model_config = ConfigDict(title="QuestionnaireDefinition")

    schema_version: int
    questionnaire_id: str
    title: str
    activity_type: str
    questions: list[Question]


class ActivityQuestionnaireOut(BaseModel):
    model_config = ConfigDict(title="ActivityQuestionnaire")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    activity_type: str
    questionnaire_id: str
    definition: QuestionnaireDefinition
    is_active: bool
    created_at: Timestamp
    updated_at: Timestamp


class ActivityQuestionnaireQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    activity_type: str | None = Field(default=None, max_length=64)
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


def serialize_revision(row: ActivityQuestionnaire) -> dict:
    """An ActivityQuestionnaire as JSON-ready data; the stored definition text is spliced in."""
    return {
        "id": str(row.id),
        "transporteur_id": str(row.transporteur_id),
        "activity_type": row.activity_type,
        "questionnaire_id": row.questionnaire_id,
        "definition": orjson.Fragment(row.definition),
        "is_active": row.is_active,
        "created_at": iso(row.created_at),
        "updated_at": iso(row.updated_at),
    }


_REVISION_FIELDS = (
    "id",
    "transporteur_id",
    "activity_type",
    "questionnaire_id",
    "definition",
    "is_active",
    "created_at",
    "updated_at",
)


def serialize_revision_rows(
    rows: list[tuple], definitions: dict[uuid.UUID, bytes], *, times_as_text: bool
) -> bytes:
    """A JSON array of revisions from plain rows (id, transporteur_id, activity_type,
    questionnaire_id, is_active, created_at, updated_at), byte for byte what
    serialize_revision gives: each definition spliced in as stored."""
    out = []
    for rid, carrier, activity_type, questionnaire_id, active, created, updated in rows:
        if not times_as_text:
            created, updated = iso(created), iso(updated)
        values = (
            rid,
            carrier,
            activity_type,
            questionnaire_id,
            orjson.Fragment(definitions[rid]),
            active,
            created,
            updated,
        )
        out.append(dict(zip(_REVISION_FIELDS, values, strict=True)))
    return orjson.dumps(out)


# --- answers ---------------------------------------------------------------------------

QuestionId = Annotated[str, StringConstraints(min_length=1, max_length=100)]


class QuestionnaireAnswerIn(InModel):
    """One save of an answer session. Without `answer_session_id` it starts a session (or,
    for a task, continues the task's session); `indienen` hands the answers in."""

    model_config = ConfigDict(title="QuestionnaireAnswer", extra="forbid")

    answer_session_id: uuid.UUID | None = Field(
        default=None, description="the session to continue; omit to start one"
    )
    activity_questionnaire_id: uuid.UUID | None = Field(
        default=None,
        description="the revision answered (its `id` in GET /activity_questionnaires or the "
        "task's `activity_questionnaire_id`); may be omitted for a task or a known session",
    )
    taak_id: uuid.UUID | None = Field(
        default=None, description="the task answered for; omit for an activity without a task"
    )
    answers: dict[QuestionId, Any] = Field(
        default_factory=dict,
        max_length=1000,
        description="answers by question id; null clears an answer; files as lists of ids "
        "from POST /bestanden; location as {lat, lng}",
    )
    indienen: bool = Field(
        default=False,
        description="true submits: every visible required question must be answered; the "
        "session is closed afterwards",
    )


class AnswerSessionOut(BaseModel):
    model_config = ConfigDict(title="AnswerSession")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    activity_questionnaire_id: uuid.UUID
    revisie: int | None = Field(description="the revision number of the questionnaire")
    activity_type: str
    taak_id: uuid.UUID | None
    chauffeur_id: uuid.UUID | None
    status: str = Field(description="open or ingediend")
    answers: dict[str, Any]
    created_at: Timestamp
    updated_at: Timestamp
    ingediend_op: Timestamp | None


class AnswerSessionQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    taak_id: uuid.UUID | None = None
    chauffeur: str | None = Field(default=None, max_length=64, description="a driver's user_token")
    activity_type: str | None = Field(default=None, max_length=64)
    status: Literal["open", "ingediend"] | None = None
    van: Annotated[date | datetime, AfterValidator(in_range)] | None = Field(
        default=None, description="started on or after (a date: that day in the carrier's zone)"
    )
    tot: Annotated[date | datetime, AfterValidator(in_range)] | None = Field(
        default=None, description="started before (a date: up to the end of that day)"
    )
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


def serialize_session(session, answers, revisie: int | None) -> dict:
    """An AnswerSession as JSON-ready data; stored answer texts are spliced in as they are."""
    return {
        "id": str(session.id),
        "transporteur_id": str(session.transporteur_id),
        "activity_questionnaire_id": str(session.activity_questionnaire_id),
        "revisie": revisie,
        "activity_type": session.activity_type,
        "taak_id": str(session.taak_id) if session.taak_id else None,
        "chauffeur_id": str(session.chauffeur_id) if session.chauffeur_id else None,
        "status": session.status,
        "answers": {qid: orjson.Fragment(text) for qid, text in answers.items()},
        "created_at": iso(session.created_at),
        "updated_at": iso(session.updated_at),
        "ingediend_op": iso(session.ingediend_op) if session.ingediend_op else None,
    }
