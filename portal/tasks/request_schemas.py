"""JSON shapes a task request sends: a new task, a change, a driver's query, a status move
with its evidence, a completion (afronding) and a completion on paper. Re-exported by
schemas.py, where callers find them."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from portal.schemas import CountryCode, InModel, Timestamp, in_range, not_null
from portal.tasks.models import MAX_DURATION_MIN

# pydantic's own finiteness check, not an AfterValidator: bounds given with Field(ge=...) on
# a field whose type ends in a validator leak into the JSON schema as `ge`/`le` instead of
# minimum/maximum.
Finite = Annotated[float, Field(allow_inf_nan=False)]
ActivityType = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_-]+$")]


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
    land: CountryCode | None = None
    contactpersoon: str | None = Field(default=None, max_length=200)
    telefoon: str | None = Field(default=None, max_length=40)
    telefoon_mobiel: str | None = Field(default=None, max_length=40)
    gepland_op: Timestamp | None = None
    duur_min: int | None = Field(
        default=None,
        gt=0,
        le=MAX_DURATION_MIN,
        description="expected duration in minutes (1 to 1440), for the planning checks; "
        "omitted: the default of the activity type",
    )
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
    klant_id: uuid.UUID | None = Field(default=None, description="the customer (klanten)")
    laadlocatie_id: uuid.UUID | None = Field(
        default=None,
        description="a place of the customer where it loads: its address is copied into the "
        "laad_* fields left out",
    )
    laad_naam: str | None = Field(default=None, max_length=200)
    laad_adres: str | None = Field(default=None, max_length=200)
    laad_postcode: str | None = Field(default=None, max_length=16)
    laad_stad: str | None = Field(default=None, max_length=100)
    laad_land: CountryCode | None = None
    laad_lat: Finite | None = Field(default=None, ge=-90, le=90)
    laad_lng: Finite | None = Field(default=None, ge=-180, le=180)
    loslocatie_id: uuid.UUID | None = Field(
        default=None,
        description="a place of the customer where it unloads: its address is copied into "
        "the los_* fields left out",
    )
    los_naam: str | None = Field(default=None, max_length=200)
    los_adres: str | None = Field(default=None, max_length=200)
    los_postcode: str | None = Field(default=None, max_length=16)
    los_stad: str | None = Field(default=None, max_length=100)
    los_land: CountryCode | None = None
    los_lat: Finite | None = Field(default=None, ge=-90, le=90)
    los_lng: Finite | None = Field(default=None, ge=-180, le=180)

    @model_validator(mode="after")
    def _photo_bounds(self):
        if (
            self.min_fotos is not None
            and self.max_fotos is not None
            and self.min_fotos > self.max_fotos
        ):
            raise ValueError("min_fotos is greater than max_fotos")
        for prefix in ("locatie", "laad", "los"):
            if (getattr(self, f"{prefix}_lat") is None) != (getattr(self, f"{prefix}_lng") is None):
                raise ValueError(f"{prefix}_lat and {prefix}_lng go together")
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


def _never_null(model: type[BaseModel]) -> set[str]:
    """The fields a task always has (naam, type, the demand switches): a change may leave
    them out but not set them to null."""
    return {
        name
        for name, info in model.model_fields.items()
        if info.is_required() or info.default is False
    }


def _optional(model: type[BaseModel], name: str, exclude: set[str]) -> type[BaseModel]:
    """A copy of model with every field optional and without defaults: for partial updates.
    The document shows the fields that may not be null without null."""
    from pydantic import create_model

    fields = {}
    never_null = _never_null(model)
    for field_name, info in model.model_fields.items():
        if field_name in exclude:
            continue
        # Keep every constraint and validator of the field (they live in its metadata).
        annotated = (
            Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        )
        spec = Field(
            default=None,
            description=info.description,
            json_schema_extra=not_null if field_name in never_null else None,
        )
        fields[field_name] = (annotated | None, spec)
    return create_model(name, __base__=InModel, **fields)


class TaskUpdate(_optional(TaskCreate, "TaskUpdateFields", exclude=set())):
    """Fields to change; only those sent change. `chauffeur_id` reassigns the task."""

    model_config = ConfigDict(title="UpdateTaskBody")

    chauffeur_id: uuid.UUID | None = None
    activity_questionnaire_id: uuid.UUID | None = Field(
        default=None, description="pin another questionnaire revision"
    )

    @field_validator(*sorted(_never_null(TaskCreate)))
    @classmethod
    def _not_null(cls, value):
        if value is None:  # sent as null: left out, the field would stay
            raise ValueError("cannot be null")
        return value


class EvidenceIn(InModel):
    """What the driver sends to meet the task's demands: files (from POST /bestanden) and
    recorded values."""

    fotos: list[uuid.UUID] = Field(default_factory=list, max_length=50)
    handtekeningen: list[uuid.UUID] = Field(default_factory=list, max_length=5)
    scans: list[uuid.UUID] = Field(default_factory=list, max_length=20)
    locatie_lat: Finite | None = Field(default=None, ge=-90, le=90)
    locatie_lng: Finite | None = Field(default=None, ge=-180, le=180)
    temperatuur: Finite | None = Field(default=None, ge=-60, le=100)
    desinfectie_bevestigd: bool | None = None


class StatusChange(EvidenceIn):
    model_config = ConfigDict(title="StatusChange")

    status: Literal["gepland", "ontvangen", "gestart", "afgerond", "geannuleerd"]


class AfrondingIn(EvidenceIn):
    """Completion for billing: the actual work, and (if not completed yet) the evidence."""

    model_config = ConfigDict(title="Afronding")

    hoeveelheid: Finite | None = Field(default=None, ge=0, le=1e9)
    eenheid: str | None = Field(default=None, max_length=20)
    kilometers: Finite | None = Field(default=None, ge=0, le=100_000)
    wachttijd_minuten: int | None = Field(default=None, ge=0, le=10_000)
    opmerkingen: str | None = Field(default=None, max_length=5000)


class PaperCompletionIn(InModel):
    """A task completed by the office on a paper delivery note (tasks/paper.py)."""

    model_config = ConfigDict(title="PapierenAfronding")

    reden: str = Field(min_length=1, max_length=1000, description="why the driver could not")
    scan: uuid.UUID = Field(description="the note's scan, a document_scan from POST /bestanden")
    temperatuur: Finite | None = Field(default=None, ge=-60, le=100)
    desinfectie_bevestigd: bool | None = None
