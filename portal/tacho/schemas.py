"""JSON shapes of tachograph files: the list item, the details with a signed download URL,
the upload's answer, the list's query and the multipart upload form. The driving-time shapes
are in portal.tacho.driving.schemas; this module offers them too (the API imports them here)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from portal.schemas import Timestamp, in_range
from portal.tacho.driving.schemas import (
    Activiteit,
    Bron,
    Day,
    Overtreding,
    OvertredingQuery,
    Rijtijden,
    TachoDag,
    TachoNotitie,
    TachoWijziging,
    note_message,
    serialize_budget,
    serialize_day,
    serialize_finding,
)
from portal.tacho.models import TachoFile
from portal.tacho.service import API_LINK_MAX, API_LINK_MIN, SignedLink
from portal.types import iso

Soort = Literal["bestuurderskaart", "voertuigeenheid"]

# The multipart/form-data body of POST /transporteurs/{transporteur_id}/tacho_files.
UPLOAD_FORM = {
    "type": "object",
    "title": "TachoUploadForm",
    "required": ["file"],
    "properties": {
        "file": {
            "type": "string",
            "format": "binary",
            "description": "a tachograph download (.DDD, .TGD, .C1B, .V1B, .ESM, ...): a "
            "driver card or a vehicle unit, told apart by its content, never by its name. "
            "Anything else is refused (422). At most 10 MiB.",
        },
        "user_token": {
            "type": "string",
            "maxLength": 64,
            "description": "link the file to this driver of the carrier",
        },
        "vehicle_id": {
            "type": "string",
            "format": "uuid",
            "description": "link the file to this vehicle of the carrier",
        },
    },
}


class TachoFileOut(BaseModel):
    """A tachograph file: what it is, whom and which days it covers, who uploaded it."""

    model_config = ConfigDict(title="TachoFile")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    soort: Soort = Field(description="read from the content: a driver card or a vehicle unit")
    generatie: Literal["1", "2", "2.2"] = Field(
        description="tachograph generation: 1 (digital), 2 (smart), 2.2 (smart, version 2)"
    )
    bestandsnaam: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="hex SHA-256 of the bytes")
    grootte: int = Field(ge=1, description="size in bytes")
    chauffeur_id: uuid.UUID | None = Field(description="the linked driver")
    vehicle_id: uuid.UUID | None = Field(description="the linked vehicle")
    periode_van: Timestamp | None = Field(description="start of the first day with data")
    periode_tot: Timestamp | None = Field(
        description="end of the last day with data (exclusive); null when unknown"
    )
    periode_uit_bestand: bool = Field(description="whether the period was read from the file")
    kaartnummer: str | None = Field(description="driver card: the card number")
    houder: str | None = Field(description="driver card: the holder's name as on the card")
    vin: str | None = Field(description="vehicle unit: the vehicle identification number")
    kenteken: str | None = Field(description="vehicle unit: the registration recorded")
    geupload_op: Timestamp
    geupload_door: str = Field(description="who uploaded it: a planner or an API key")


class TachoDetailsOut(TachoFileOut):
    """A tachograph file with a signed download URL."""

    model_config = ConfigDict(title="TachoDetails")

    url: str = Field(
        description="absolute signed download URL (on the site, not below /api/v1); works "
        "without an Authorization header until url_expires_at",
        examples=["https://rijplan.example.nl/bestanden/9f1c.../3b2a...?exp=1795250000&sig=..."],
        json_schema_extra={"format": "uri"},
    )
    url_expires_at: Timestamp


class TachoUploadOut(TachoFileOut):
    """The upload's answer: the file's record, new (201) or already there (200)."""

    model_config = ConfigDict(title="TachoUpload")

    nieuw: bool = Field(description="false: the same bytes were uploaded before; nothing new")
    melding: str


class TachoQuery(BaseModel):
    """Query of GET /transporteurs/{transporteur_id}/tacho_files: every filter narrows;
    newest upload first."""

    model_config = ConfigDict(extra="forbid")

    chauffeur: str | None = Field(
        default=None, max_length=64, description="a driver's user_token: files linked to them"
    )
    vehicle_id: uuid.UUID | None = Field(default=None, description="files linked to a vehicle")
    soort: Soort | None = None
    van: Annotated[date | datetime, AfterValidator(in_range)] | None = Field(
        default=None,
        description="files whose period (or, when unknown, upload time) reaches into or "
        "after this moment; a date means that day in the carrier's time zone",
    )
    tot: Annotated[date | datetime, AfterValidator(in_range)] | None = Field(
        default=None,
        description="files whose period (or upload time) starts before this moment; a date "
        "means up to the end of that day",
    )
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


class TachoDetailsQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    geldig: int | None = Field(
        default=None,
        ge=API_LINK_MIN,
        le=API_LINK_MAX,
        description="seconds the download URL works; default FILE_URL_TTL (5 minutes)",
    )


def serialize_tacho_file(row: TachoFile) -> dict:
    """A tachograph file as JSON-ready data."""
    return {
        "id": str(row.id),
        "transporteur_id": str(row.transporteur_id),
        "soort": row.soort,
        "generatie": row.generatie,
        "bestandsnaam": row.bestandsnaam,
        "sha256": row.sha256,
        "grootte": row.grootte,
        "chauffeur_id": str(row.chauffeur_id) if row.chauffeur_id else None,
        "vehicle_id": str(row.vehicle_id) if row.vehicle_id else None,
        "periode_van": iso(row.periode_van),
        "periode_tot": iso(row.periode_tot),
        "periode_uit_bestand": row.periode_uit_bestand,
        "kaartnummer": row.kaartnummer,
        "houder": row.houder,
        "vin": row.vin,
        "kenteken": row.kenteken,
        "geupload_op": iso(row.geupload_op),
        "geupload_door": row.geupload_door,
    }


def serialize_details(row: TachoFile, link: SignedLink, *, origin: str = "") -> dict:
    """A tachograph file with its signed link on origin (the site's scheme and host)."""
    return {
        **serialize_tacho_file(row),
        "url": origin + link.url,
        "url_expires_at": iso(link.expires_at),
    }


__all__ = [
    "UPLOAD_FORM",
    "Activiteit",
    "Bron",
    "Day",
    "Overtreding",
    "OvertredingQuery",
    "Rijtijden",
    "Soort",
    "TachoDag",
    "TachoDetailsOut",
    "TachoDetailsQuery",
    "TachoFileOut",
    "TachoNotitie",
    "TachoQuery",
    "TachoUploadOut",
    "TachoWijziging",
    "note_message",
    "serialize_budget",
    "serialize_day",
    "serialize_details",
    "serialize_finding",
    "serialize_tacho_file",
]
