"""JSON shapes of questionnaires: the seed's sections 2.2 to 2.6."""

from __future__ import annotations

import uuid
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from portal.questionnaires.models import ActivityQuestionnaire
from portal.schemas import Timestamp
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
