"""JSON shapes of tasks: the seed's Task (section 2.1) plus chauffeur_id."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated, Any, Literal

import orjson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from portal.questionnaires.schemas import ActivityQuestionnaireOut, QuestionnaireDefinition
from portal.schemas import CountryCode, InModel, Timestamp, in_range, not_null
from portal.tasks.models import MAX_DURATION_MIN, STATUSES, Task
from portal.types import iso

# pydantic's own finiteness check, not an AfterValidator: bounds given with Field(ge=...) on
# a field whose type ends in a validator leak into the JSON schema as `ge`/`le` instead of
# minimum/maximum.
Finite = Annotated[float, Field(allow_inf_nan=False)]
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
    duur_min: int | None = Field(
        default=None,
        description="expected duration in minutes; null: the default of the activity type",
    )
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
    # Additive to the seed: the customer and the route (null when not given).
    klant_id: uuid.UUID | None = Field(default=None, description="the customer (klanten)")
    laadlocatie_id: uuid.UUID | None = Field(
        default=None, description="the customer's place it loads at, if chosen"
    )
    laad_naam: str | None = None
    laad_adres: str | None = None
    laad_postcode: str | None = None
    laad_stad: str | None = None
    laad_land: str | None = None
    laad_lat: float | None = None
    laad_lng: float | None = None
    loslocatie_id: uuid.UUID | None = Field(
        default=None, description="the customer's place it unloads at, if chosen"
    )
    los_naam: str | None = None
    los_adres: str | None = None
    los_postcode: str | None = None
    los_stad: str | None = None
    los_land: str | None = None
    los_lat: float | None = None
    los_lng: float | None = None


_ID_FIELDS = {
    "id", "vehicle_id", "chauffeur_id", "transporteur_id", "klant_id", "laadlocatie_id",
    "loslocatie_id",
}  # fmt: skip
_TIME_FIELDS = {"gepland_op", "ontvangen_op", "gestart_op", "afgerond_op", "created_at"}
_FIELDS = list(TaskOut.model_fields)

TASK_FIELDS: tuple[str, ...] = tuple(_FIELDS)
"""A task's fields in the seed's order; a row of the fast path has one value per field, the
pinned revision's id in the place of `vragenpad`."""
TASK_TIME_FIELDS = frozenset(_TIME_FIELDS)
VRAGENPAD_INDEX = TASK_FIELDS.index("vragenpad")
_TIME_INDEXES = tuple(i for i, name in enumerate(TASK_FIELDS) if name in _TIME_FIELDS)


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


def serialize_task_rows(
    rows: list[tuple], definitions: dict[uuid.UUID, bytes], *, times_as_text: bool
) -> bytes:
    """A JSON array of tasks from plain rows (TASK_FIELDS order, the revision id in place of
    the vragenpad), byte for byte what serialize_task gives for the same tasks: each
    questionnaire's stored text spliced in unparsed. times_as_text: the timestamps come
    formatted already (PostgreSQL's to_char); otherwise they are datetimes. Ids are UUIDs,
    which orjson writes as str() does."""
    fragments = {key: orjson.Fragment(text) for key, text in definitions.items()}
    out = []
    for row in rows:
        if not times_as_text:
            row = list(row)
            for index in _TIME_INDEXES:
                row[index] = iso(row[index])
        item = dict(zip(TASK_FIELDS, row, strict=True))
        item["vragenpad"] = fragments.get(row[VRAGENPAD_INDEX])
        out.append(item)
    return orjson.dumps(out)


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


class BillingLineOut(BaseModel):
    model_config = ConfigDict(title="BillingLine")

    id: uuid.UUID
    taak_id: uuid.UUID
    chauffeur_id: uuid.UUID | None
    afgerond_op: Timestamp
    hoeveelheid: float | None
    eenheid: str | None
    kilometers: float | None
    wachttijd_minuten: int | None
    opmerkingen: str | None
    geexporteerd: bool
    bedrag: str | None = Field(
        description="the net amount in euros under the tariff that held, as a decimal string "
        '("123.98"); null when there is no price (prijs_reden says why)',
        examples=["123.98"],
    )
    btw_procent: str | None = Field(examples=["21.00"])
    btw_bedrag: str | None = Field(examples=["26.04"])
    prijs_reden: str | None = Field(
        description="why there is no price: no_tariff, no_quantity, other_unit, no_duration, "
        "no_kilometres, not_priced (a line made before lines were priced); null when priced"
    )


def _money(value) -> str | None:
    return None if value is None else format(value, "f")


def serialize_line(line) -> dict:
    """A billing line as BillingLine (the API's afronding answer and the taak.afgerond event)."""
    return {
        "id": str(line.id),
        "taak_id": str(line.taak_id),
        "chauffeur_id": str(line.chauffeur_id) if line.chauffeur_id else None,
        "afgerond_op": iso(line.afgerond_op),
        "hoeveelheid": line.hoeveelheid,
        "eenheid": line.eenheid,
        "kilometers": line.kilometers,
        "wachttijd_minuten": line.wachttijd_minuten,
        "opmerkingen": line.opmerkingen,
        "geexporteerd": line.export_id is not None,
        "bedrag": _money(line.bedrag),
        "btw_procent": _money(line.btw_procent),
        "btw_bedrag": _money(line.btw_bedrag),
        "prijs_reden": (line.prijs_reden or "not_priced") if line.bedrag is None else None,
    }


class AfrondingOut(BaseModel):
    model_config = ConfigDict(title="AfrondingResult")

    taak: TaskOut
    facturatieregel: BillingLineOut


class TaskQuery(BaseModel):
    """Query of GET /taken: every filter narrows; ordered by gepland_op."""

    model_config = ConfigDict(extra="forbid")

    status: str | None = DriverTaskQuery.model_fields["status"]
    chauffeur: str | None = Field(default=None, max_length=64, description="a driver's user_token")
    vehicle_id: uuid.UUID | None = None
    type: str | None = Field(default=None, max_length=64)
    van: Annotated[date | datetime, AfterValidator(in_range)] | None = None
    tot: Annotated[date | datetime, AfterValidator(in_range)] | None = None
    q: str | None = Field(
        default=None, max_length=100, description="text in naam, adres, stad, VDM"
    )
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


class EvidenceOut(BaseModel):
    bestand_id: uuid.UUID
    soort: str
    created_at: Timestamp


class Blocker(BaseModel):
    """A demand not met yet: a stable code and its params, with an English message."""

    field: str
    code: str
    params: dict[str, Any] = {}
    message: str


class AnswerSessionSummary(BaseModel):
    id: uuid.UUID
    activity_questionnaire_id: uuid.UUID
    activity_type: str
    status: str
    created_at: Timestamp
    ingediend_op: Timestamp | None
    answers: dict[str, Any]


class TaskDetailsOut(BaseModel):
    model_config = ConfigDict(title="TaskWithQuestionnaires")

    taak: TaskOut
    vragenlijst: ActivityQuestionnaireOut | None
    answer_sessions: list[AnswerSessionSummary]
    bewijzen: list[EvidenceOut]
    gemeten_temperatuur: float | None
    desinfectie_bevestigd: bool
    afgerond_lat: float | None
    afgerond_lng: float | None
    blokkades: list[Blocker]
    toegestane_statussen: list[str]


class DeleteOut(BaseModel):
    model_config = ConfigDict(title="DeleteResult")

    verwijderd: int = Field(description="tasks deleted")
    gearchiveerd: int = Field(description="tasks archived because they hold work")
