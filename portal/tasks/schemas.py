"""JSON shapes of tasks: the seed's Task (section 2.1) plus chauffeur_id."""

from __future__ import annotations

import math
import uuid
from datetime import date, datetime
from typing import Annotated

import orjson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from portal.questionnaires.schemas import QuestionnaireDefinition
from portal.schemas import InModel, Timestamp, in_range
from portal.tasks.models import STATUSES, Task
from portal.types import iso


def _finite(value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


Finite = Annotated[float, AfterValidator(_finite)]
ActivityType = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_-]+$")]


class TaskOut(BaseModel):
    """A task as the API answers it; `vragenpad` is its pinned questionnaire, or null."""

    model_config = ConfigDict(title="Task")

    id: uuid.UUID
    vehicle_id: uuid.UUID | None
    chauffeur_id: uuid.UUID | None
    transporteur_id: uuid.UUID
    type: str
    status: str = Field(description=", ".join(STATUSES))
    naam: str
    omschrijving: str | None
    artikel: str | None
    hoeveelheid: float | None
    eenheid: str | None
    adres: str | None
    postcode: str | None
    stad: str | None
    land: str | None = Field(description="ISO 3166-1 alpha-2 country code")
    contactpersoon: str | None
    telefoon: str | None
    telefoon_mobiel: str | None
    gepland_op: Timestamp | None
    ontvangen_op: Timestamp | None
    gestart_op: Timestamp | None
    afgerond_op: Timestamp | None
    require_photos: bool
    min_fotos: int | None
    max_fotos: int | None
    require_signature: bool
    require_document_scan: bool
    require_location: bool
    photo_label: str | None
    opmerkingen: str | None
    vdm_nummer: str | None
    agr_verplicht: bool
    required_desinfectie: bool
    required_temperatuur: float | None
    kooiaap: bool
    locatie_lat: float | None
    locatie_lng: float | None
    vragenpad: QuestionnaireDefinition | None
    created_at: Timestamp


_ID_FIELDS = {"id", "vehicle_id", "chauffeur_id", "transporteur_id"}
_TIME_FIELDS = {"gepland_op", "ontvangen_op", "gestart_op", "afgerond_op", "created_at"}
_FIELDS = list(TaskOut.model_fields)


def serialize_task(task: Task, definitions: dict[uuid.UUID, str]) -> dict:
    """A task as JSON-ready data, fields in the seed's order. The vragenpad is the revision's
    stored JSON text, spliced in unparsed: a list of 50 tasks serialises each distinct
    questionnaire once."""
    data = {}
    for name in _FIELDS:
        if name == "vragenpad":
            text = definitions.get(task.activity_questionnaire_id)
            data[name] = orjson.Fragment(text) if text else None
            continue
        value = getattr(task, name)
        if name in _ID_FIELDS:
            value = str(value) if value is not None else None
        elif name in _TIME_FIELDS:
            value = iso(value)
        data[name] = value
    return data


class TaskCreate(InModel):
    """A new task for a driver. Omitted demands default to false / none."""

    model_config = ConfigDict(title="CreateTaskBody")

    type: ActivityType = Field(description="activity type, e.g. mest_laden; pins its questionnaire")
    naam: str = Field(min_length=1, max_length=200)
    vehicle_id: uuid.UUID | None = None
    omschrijving: str | None = Field(default=None, max_length=5000)
    artikel: str | None = Field(default=None, max_length=200)
    hoeveelheid: Finite | None = Field(default=None, ge=0, le=1e9)
    eenheid: str | None = Field(default=None, max_length=20)
    adres: str | None = Field(default=None, max_length=200)
    postcode: str | None = Field(default=None, max_length=16)
    stad: str | None = Field(default=None, max_length=100)
    land: str | None = Field(default=None, pattern=r"^[A-Z]{2}$")
    contactpersoon: str | None = Field(default=None, max_length=200)
    telefoon: str | None = Field(default=None, max_length=40)
    telefoon_mobiel: str | None = Field(default=None, max_length=40)
    gepland_op: Timestamp | None = None
    require_photos: bool = False
    min_fotos: int | None = Field(default=None, ge=0, le=100)
    max_fotos: int | None = Field(default=None, ge=0, le=100)
    require_signature: bool = False
    require_document_scan: bool = False
    require_location: bool = False
    photo_label: str | None = Field(default=None, max_length=200)
    opmerkingen: str | None = Field(default=None, max_length=5000)
    vdm_nummer: str | None = Field(default=None, max_length=40)
    agr_verplicht: bool = False
    required_desinfectie: bool = False
    required_temperatuur: Finite | None = Field(default=None, ge=-60, le=100)
    kooiaap: bool = False
    locatie_lat: Finite | None = Field(default=None, ge=-90, le=90)
    locatie_lng: Finite | None = Field(default=None, ge=-180, le=180)

    @model_validator(mode="after")
    def _photo_bounds(self):
        if (
            self.min_fotos is not None
            and self.max_fotos is not None
            and self.min_fotos > self.max_fotos
        ):
            raise ValueError("min_fotos is greater than max_fotos")
        if (self.locatie_lat is None) != (self.locatie_lng is None):
            raise ValueError("locatie_lat and locatie_lng go together")
        return self


class DriverTaskQuery(BaseModel):
    """Query of GET /users/{user_token}/taken. Without status, van or tot: the open tasks
    plus those completed today (in the carrier's time zone)."""

    model_config = ConfigDict(extra="forbid")

    status: str | None = Field(
        default=None,
        description="comma-separated statuses, e.g. gepland,ontvangen",
        pattern=r"^(gepland|ontvangen|gestart|afgerond|geannuleerd)"
        r"(,(gepland|ontvangen|gestart|afgerond|geannuleerd))*$",
    )
    van: Annotated[date | datetime, AfterValidator(in_range)] | None = Field(
        default=None, description="gepland_op from (a date in the carrier's time zone, or a time)"
    )
    tot: Annotated[date | datetime, AfterValidator(in_range)] | None = Field(
        default=None, description="gepland_op before (a date: up to and including that day)"
    )
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)
