"""File operations of the API: upload (multipart) and metadata with a signed download URL."""

from __future__ import annotations

import uuid

from flask import request

from portal.api.core import (
    ProblemResponse,
    json_response,
    operation,
    principal,
    problem,
    public_origin,
    write,
)
from portal.errors import Forbidden, NotFound, ValidationFailed
from portal.files import service
from portal.files.schemas import UPLOAD_FORM, FileOut, serialize_file
from portal.tasks import lifecycle

FILE_ID = {"file_id": {"description": "the file's id", "uuid": True}}


def _allow(scope: str) -> None:
    """Drivers may; an API key needs scope (files are evidence of tasks)."""
    who = principal()
    if who.kind == "api_key" and scope not in who.scopes:
        raise Forbidden(f"The API key lacks the scope {scope!r}.")


@operation(
    "/bestanden",
    "POST",
    scope="tasks:write",
    summary="Upload a photo, signature or document scan",
    tag="files",
    description="A multipart/form-data body with the parts `file` and `soort`. The file's type "
    "is read from its bytes (JPEG, PNG, HEIC/HEIF, PDF), never from its name or the part's "
    "Content-Type, and must suit the soort. Answers the stored file's metadata with a signed "
    "download URL. API keys need the scope tasks:write. Send an Idempotency-Key so a retry "
    "after a lost response answers the first upload instead of storing the file twice.",
    multipart=UPLOAD_FORM,
    response=FileOut,
    status=201,
    headers={"Location": "the file's metadata address"},
    errors=(401, 403, 409, 413, 415, 422, 503),
)
@write
def upload_file():
    _allow("tasks:write")
    if request.mimetype != "multipart/form-data":
        raise ProblemResponse(
            problem(
                415,
                "Unsupported media type",
                "Send the file as multipart/form-data with the parts 'file' and 'soort'.",
                type_="unsupported-media-type",
            )
        )
    upload = request.files.get("file")
    soort = request.form.get("soort", "").strip()
    errors = []
    if soort not in service.SOORTEN:
        message = "is required" if not soort else "must be one of: " + ", ".join(service.SOORTEN)
        errors.append({"field": "soort", "message": message})
    if upload is None:
        errors.append({"field": "file", "message": "is required: a part named 'file'"})
    if errors:
        raise ValidationFailed(errors)
    who = principal()
    stored = service.store_file(
        carrier_id=who.carrier_id,
        stream=upload.stream,
        filename=upload.filename,
        soort=soort,
        actor=who.actor,
    )
    # @write commits once; with an Idempotency-Key a retried upload answers the first response.
    return json_response(
        serialize_file(stored, origin=public_origin()),
        status=201,
        headers={"Location": f"/api/v1/bestanden/{stored.id}"},
    )


@operation(
    "/bestanden/<uuid:file_id>",
    "GET",
    scope="tasks:read",
    summary="A stored file's metadata with a fresh signed download URL",
    tag="files",
    description="The URL works without an Authorization header until url_expires_at "
    "(FILE_URL_TTL, 5 minutes by default); ask again for a fresh one. API keys need the "
    "scope tasks:read. A driver reads the files they uploaded and those on their own tasks; "
    "another driver's file answers 404.",
    response=FileOut,
    errors=(401, 403, 404),
    path_params=FILE_ID,
)
def get_file(file_id: uuid.UUID):
    _allow("tasks:read")
    who = principal()
    stored = service.get_file(carrier_id=who.carrier_id, file_id=file_id)
    if stored.soort in service.CHECKED_ELSEWHERE:
        # Tachograph files are read through GET /tacho_files/{id} (scope tacho:read) only.
        raise NotFound("file not found")
    if who.kind == "driver" and not (
        service.uploaded_by(stored, who.actor)
        or lifecycle.drivers_evidence(carrier_id=who.carrier_id, driver_id=who.id, file_id=file_id)
    ):
        # A colleague's photo is, to a driver, no such file (the office reads them all).
        raise NotFound("file not found")
    return json_response(serialize_file(stored, origin=public_origin()))
