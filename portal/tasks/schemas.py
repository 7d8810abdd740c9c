"""JSON shapes of tasks: the seed's Task (section 2.1) plus chauffeur_id."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated, Any

import orjson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from portal.questionnaires.schemas import ActivityQuestionnaireOut, QuestionnaireDefinition
from portal.schemas import Timestamp, in_range
from portal.tasks.combinations import plates_of_tasks
from portal.tasks.models import STATUSES, Task

# The request bodies and queries (request_schemas.py); callers import them from here.
from portal.tasks.request_schemas import ActivityType as ActivityType
from portal.tasks.request_schemas import AfrondingIn as AfrondingIn
from portal.tasks.request_schemas import DriverTaskQuery as DriverTaskQuery
from portal.tasks.request_schemas import EvidenceIn as EvidenceIn
from portal.tasks.request_schemas import Finite as Finite
from portal.tasks.request_schemas import PaperCompletionIn as PaperCompletionIn
from portal.tasks.request_schemas import StatusChange as StatusChange
from portal.tasks.request_schemas import TaskCreate as TaskCreate
from portal.tasks.request_schemas import TaskUpdate as TaskUpdate
from portal.types import iso


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
    # The vehicle combination (tasks/combinations.py): the vehicle's plate and the towed
    # vehicle behind it (the task's own coupling, else its vehicle's coupling of the day).
    kenteken: str | None = Field(
        default=None, description="the plate of the vehicle (vehicle_id), or its fleet number"
    )
    getrokken_id: uuid.UUID | None = Field(
        default=None, description="the towed vehicle (trailer) coupled to the vehicle for it"
    )
    getrokken_kenteken: str | None = Field(
        default=None,
        description="the towed vehicle's own plate; null when it has none (an agricultural "
        "trailer on the tractor's repeat plate) or there is no towed vehicle",
    )
    getrokken_vlootnummer: str | None = Field(
        default=None, description="the towed vehicle's fleet number, if it has one"
    )


_ID_FIELDS = {
    "id", "vehicle_id", "chauffeur_id", "transporteur_id", "klant_id", "laadlocatie_id",
    "loslocatie_id",
}  # fmt: skip
COMBINATION_FIELDS = ("kenteken", "getrokken_id", "getrokken_kenteken", "getrokken_vlootnummer")
"""The fields of a task's combination: not columns of the task, filled in from
tasks.combinations.plates_of_tasks (None for each when it has no vehicle)."""
_TIME_FIELDS = {"gepland_op", "ontvangen_op", "gestart_op", "afgerond_op", "created_at"}
_FIELDS = list(TaskOut.model_fields)

TASK_FIELDS: tuple[str, ...] = tuple(_FIELDS)
_COMBINATION_INDEX = {name: i for i, name in enumerate(COMBINATION_FIELDS)}
_NO_COMBINATION = (None, None, None, None)
"""A task's fields in the seed's order; a row of the fast path has one value per field, the
pinned revision's id in the place of `vragenpad`."""
TASK_TIME_FIELDS = frozenset(_TIME_FIELDS)
VRAGENPAD_INDEX = TASK_FIELDS.index("vragenpad")
_TIME_INDEXES = tuple(i for i, name in enumerate(TASK_FIELDS) if name in _TIME_FIELDS)


def serialize_task(
    task: Task, definitions: dict[uuid.UUID, str], plates: dict[uuid.UUID, tuple] | None = None
) -> dict:
    """A task as JSON-ready data, fields in the seed's order. The vragenpad is the revision's
    stored JSON text, spliced in unparsed: a list of 50 tasks serialises each distinct
    questionnaire once. plates: the combinations of a list's tasks
    (tasks.combinations.plates_of_tasks); without it, the task's own is read."""
    if plates is None:
        plates = plates_of_tasks(carrier_id=task.transporteur_id, tasks=[task])
    combination = plates.get(task.id) or _NO_COMBINATION
    data = {}
    for name in _FIELDS:
        if name in _COMBINATION_INDEX:
            value = combination[_COMBINATION_INDEX[name]]
            data[name] = str(value) if name == "getrokken_id" and value else value
            continue
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
    rows: list[tuple],
    definitions: dict[uuid.UUID, bytes],
    *,
    times_as_text: bool,
    plates: dict[uuid.UUID, tuple] | None = None,
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
        combination = (plates or {}).get(row[0])
        if combination is not None:
            item.update(zip(COMBINATION_FIELDS, combination, strict=True))
        out.append(item)
    return orjson.dumps(out)


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
