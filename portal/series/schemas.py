"""The API's shapes of templates and series: what an integration sends and gets."""

from __future__ import annotations

import uuid
from datetime import date, time
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.schemas import InModel
from portal.series.service import KEPT
from portal.types import iso

Code = Annotated[str, Field(pattern=r"^[a-z0-9_]{1,40}$")]
Weekday = Annotated[int, Field(ge=0, le=6)]
PATTERN_TEXT = (
    "wekelijks: every `om_weken` weeks on `weekdagen` (0 Monday to 6 Sunday); "
    "eerste_werkdag: monthly on the first working day (a holiday is no working day)"
)
HOLIDAY_TEXT = (
    "what a Dutch public holiday (the pay rules' list) does: overslaan skips it, "
    "volgende_werkdag moves it to the next working day"
)


class TemplateIn(InModel):
    """A new template: from a task (`taak_id`) or from its fields."""

    model_config = ConfigDict(title="CreateTemplateBody")

    taak_id: uuid.UUID | None = Field(
        default=None,
        description="save this task as the template: its type, customer, duration and kept "
        "fields; fields sent here win",
    )
    naam: str | None = Field(default=None, min_length=1, max_length=200)
    type: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[a-z0-9_-]+$")
    klant_id: uuid.UUID | None = None
    duur_min: int | None = Field(default=None, gt=0, le=1440)
    capaciteiten: list[Code] | None = Field(
        default=None, max_length=40, description="the fleet's capability codes the work needs"
    )
    velden: dict | None = Field(
        default=None,
        description="the task's fields a repeated run keeps (route, address, demands): "
        + ", ".join(KEPT),
    )


class TemplateUpdate(InModel):
    model_config = ConfigDict(title="UpdateTemplateBody")

    naam: str | None = Field(default=None, min_length=1, max_length=200)
    type: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[a-z0-9_-]+$")
    klant_id: uuid.UUID | None = None
    duur_min: int | None = Field(default=None, gt=0, le=1440)
    capaciteiten: list[Code] | None = Field(default=None, max_length=40)
    velden: dict | None = None


class TemplateOut(BaseModel):
    model_config = ConfigDict(title="Template")

    id: uuid.UUID
    naam: str
    type: str
    klant_id: uuid.UUID | None
    duur_min: int | None
    capaciteiten: list[str]
    velden: dict
    created_at: str
    updated_at: str


class SeriesIn(InModel):
    model_config = ConfigDict(title="CreateSeriesBody")

    sjabloon_id: uuid.UUID
    naam: str = Field(min_length=1, max_length=200)
    patroon: Literal["wekelijks", "eerste_werkdag"] = Field(
        default="wekelijks", description=PATTERN_TEXT
    )
    weekdagen: list[Weekday] = Field(default_factory=list, max_length=7)
    om_weken: int = Field(default=1, ge=1, le=52)
    startdatum: date
    einddatum: date | None = None
    tijd: time = Field(description="time of day in the carrier's time zone, HH:MM")
    feestdagen: Literal["overslaan", "volgende_werkdag"] = Field(
        default="overslaan", description=HOLIDAY_TEXT
    )
    chauffeur_id: uuid.UUID | None = None
    vehicle_id: uuid.UUID | None = None


class SeriesUpdate(InModel):
    model_config = ConfigDict(title="UpdateSeriesBody")

    sjabloon_id: uuid.UUID | None = None
    naam: str | None = Field(default=None, min_length=1, max_length=200)
    patroon: Literal["wekelijks", "eerste_werkdag"] | None = None
    weekdagen: list[Weekday] | None = Field(default=None, max_length=7)
    om_weken: int | None = Field(default=None, ge=1, le=52)
    startdatum: date | None = None
    einddatum: date | None = None
    tijd: time | None = None
    feestdagen: Literal["overslaan", "volgende_werkdag"] | None = None
    chauffeur_id: uuid.UUID | None = None
    vehicle_id: uuid.UUID | None = None


class OccurrenceOut(BaseModel):
    model_config = ConfigDict(title="SeriesOccurrence")

    datum: date = Field(description="the rule's date")
    gepland_datum: date | None = Field(description="the day its task is on; null: skipped")
    feestdag: str | None = Field(description="the holiday that moved or skipped it (Dutch)")
    taak_id: uuid.UUID | None
    stand: Literal["volgt", "gewijzigd", "overgeslagen", "verwijderd"] = Field(
        description="volgt: follows the series; gewijzigd: changed by hand, left it; "
        "overgeslagen: a holiday skipped; verwijderd: its task was deleted"
    )


class SeriesOut(BaseModel):
    model_config = ConfigDict(title="Series")

    id: uuid.UUID
    sjabloon_id: uuid.UUID
    naam: str
    patroon: str
    weekdagen: list[int]
    om_weken: int
    startdatum: date
    einddatum: date | None
    tijd: str
    feestdagen: str
    chauffeur_id: uuid.UUID | None
    vehicle_id: uuid.UUID | None
    beeindigd_op: str | None
    versie: int
    voorkomens: list[OccurrenceOut] | None = Field(
        default=None, description="its occurrences by date (one series only)"
    )
    ingepland: int | None = Field(default=None, description="tasks made now (on create)")
    gewijzigd: int | None = Field(
        default=None,
        description="future, unchanged, unstarted occurrences that changed with it (on change)",
    )
    verwijderd: int | None = Field(
        default=None, description="future unstarted occurrences removed (on end)"
    )
    te_verwijderen: int | None = Field(
        default=None,
        description="what ending it would remove now: its future, unstarted occurrences that "
        "still follow it (one series only)",
    )


def serialize_template(template) -> dict:
    return {
        "id": str(template.id),
        "naam": template.naam,
        "type": template.type,
        "klant_id": str(template.klant_id) if template.klant_id else None,
        "duur_min": template.duur_min,
        "capaciteiten": list(template.capaciteiten or ()),
        "velden": dict(template.velden or {}),
        "created_at": iso(template.created_at),
        "updated_at": iso(template.updated_at),
    }


def _id(value) -> str | None:
    return str(value) if value else None


def serialize_series(series, occurrences=None, **counts) -> dict:
    out = {
        "id": str(series.id),
        "sjabloon_id": str(series.sjabloon_id),
        "naam": series.naam,
        "patroon": series.patroon,
        "weekdagen": [int(d) for d in series.weekdagen.split(",") if d],
        "om_weken": series.om_weken,
        "startdatum": series.startdatum.isoformat(),
        "einddatum": series.einddatum.isoformat() if series.einddatum else None,
        "tijd": series.tijd.strftime("%H:%M"),
        "feestdagen": series.feestdagen,
        "chauffeur_id": _id(series.chauffeur_id),
        "vehicle_id": _id(series.vehicle_id),
        "beeindigd_op": iso(series.beeindigd_op) if series.beeindigd_op else None,
        "versie": series.versie,
        **counts,
    }
    if occurrences is not None:
        out["voorkomens"] = [
            {
                "datum": o.datum.isoformat(),
                "gepland_datum": o.gepland_datum.isoformat() if o.gepland_datum else None,
                "feestdag": o.feestdag,
                "taak_id": _id(o.taak_id),
                "stand": o.stand,
            }
            for o in occurrences
        ]
    return out
