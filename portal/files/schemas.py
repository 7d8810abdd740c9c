"""JSON shapes of stored files: the upload form and the metadata with its signed URL."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.files.models import StoredFile
from portal.files.service import SOORTEN, signed_url
from portal.schemas import Timestamp
from portal.types import iso

Soort = Literal["photo", "signature", "document_scan"]

CONTENT_TYPES = (
    "image/jpeg",
    "image/png",
    "image/heic",
    "image/heic-sequence",
    "image/heif",
    "image/heif-sequence",
    "application/pdf",
)

# The multipart/form-data body of POST /bestanden, as a JSON schema for the OpenAPI document.
UPLOAD_FORM = {
    "type": "object",
    "title": "FileUploadForm",
    "required": ["file", "soort"],
    "properties": {
        "file": {
            "type": "string",
            "format": "binary",
            "description": "the file's bytes. Its type is read from the bytes, not from the "
            "name or the part's Content-Type: photo takes JPEG, PNG or HEIC/HEIF; signature "
            "PNG or JPEG; document_scan PDF, JPEG, PNG or HEIC/HEIF. At most FILE_MAX_BYTES "
            "(15 MiB by default); empty files are refused.",
        },
        "soort": {
            "type": "string",
            "enum": list(SOORTEN),
            "description": "what the file is: photo, signature or document_scan",
        },
    },
}


class FileOut(BaseModel):
    """A stored file's metadata and a fresh signed download URL."""

    model_config = ConfigDict(title="StoredFile")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    soort: Soort
    content_type: str = Field(
        description="detected from the bytes: " + ", ".join(CONTENT_TYPES),
        examples=["image/jpeg"],
    )
    grootte: int = Field(ge=1, description="size in bytes")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="hex SHA-256 of the bytes")
    bestandsnaam: str | None = Field(description="the uploaded file's name, cleaned")
    created_at: Timestamp
    url: str = Field(
        description="absolute signed download URL (on the site, not below /api/v1); needs "
        "no Authorization header, so it fits <img src>; valid until url_expires_at",
        examples=["https://rijplan.example.nl/bestanden/9f1c.../3b2a...?exp=1795250000&sig=..."],
        json_schema_extra={"format": "uri"},
    )
    url_expires_at: Timestamp


def serialize_file(file: StoredFile, *, expires_in: int | None = None, origin: str = "") -> dict:
    """A stored file as JSON-ready data, with a freshly signed URL on origin (the site's
    scheme and host; empty: a path)."""
    url, expires_at = signed_url(file, expires_in=expires_in)
    return {
        "id": str(file.id),
        "transporteur_id": str(file.transporteur_id),
        "soort": file.soort,
        "content_type": file.content_type,
        "grootte": file.grootte,
        "sha256": file.sha256,
        "bestandsnaam": file.bestandsnaam,
        "created_at": iso(file.created_at),
        "url": origin + url,
        "url_expires_at": iso(expires_at),
    }
