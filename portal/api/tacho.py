"""Tachograph operations of the API: upload a card or vehicle unit download, list a carrier's
files, and one file's details with a signed download URL. For integrations (API keys with
the scopes tacho:read / tacho:write) of the carrier in the path only."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

from flask import current_app, request

from portal.accounts.service import carrier_zone
from portal.api.core import (
    ProblemResponse,
    chauffeur_filter,
    driver_access,
    json_response,
    list_response,
    operation,
    parse_query,
    principal,
    problem,
    public_origin,
    write,
)
from portal.drivers import service as drivers
from portal.errors import Forbidden, NotFound, ValidationFailed
from portal.tacho import driving, service
from portal.tacho.schemas import (
    UPLOAD_FORM,
    Overtreding,
    OvertredingQuery,
    Rijtijden,
    TachoDag,
    TachoDetailsOut,
    TachoDetailsQuery,
    TachoFileOut,
    TachoQuery,
    TachoUploadOut,
    serialize_budget,
    serialize_day,
    serialize_details,
    serialize_finding,
    serialize_tacho_file,
)
from portal.types import period_bound, utcnow

READ_SCOPE, WRITE_SCOPE = "tacho:read", "tacho:write"
CARRIER_ID = {"transporteur_id": {"description": "the caller's own carrier", "uuid": True}}
TACHO_FILE_ID = {"tacho_file_id": {"description": "the tachograph file's id", "uuid": True}}
USER_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SCOPES_TEXT = (
    "For integrations: an API key with the scope tacho:read (tacho:write also reads); drivers "
    "get 403."
)


def _key_may(*scopes: str) -> None:
    """Only API keys, with one of scopes (write implies read)."""
    who = principal()
    if who.kind != "api_key":
        raise Forbidden("Tachograph files are for integrations (API keys) and the portal.")
    if not set(scopes) & who.scopes:
        raise Forbidden(f"The API key lacks the scope {scopes[0]!r}.")


def _own_carrier(transporteur_id: uuid.UUID) -> uuid.UUID:
    """The caller's carrier when the path names it; 404 for any other (no existence oracle)."""
    carrier_id = principal().carrier_id
    if transporteur_id != carrier_id:
        raise NotFound("carrier not found")
    return carrier_id


def _link_fields(carrier_id: uuid.UUID) -> tuple[uuid.UUID | None, uuid.UUID | None]:
    """The upload form's optional user_token and vehicle_id, checked; 422 at the field."""
    errors = []
    chauffeur_id = vehicle_id = None
    user_token = request.form.get("user_token", "").strip()
    if user_token:
        driver = (
            drivers.find_by_token(carrier_id=carrier_id, user_token=user_token)
            if USER_TOKEN.match(user_token)
            else None
        )
        if driver is None:
            errors.append({"field": "user_token", "message": "no driver with this user_token"})
        else:
            chauffeur_id = driver.id
    raw_vehicle = request.form.get("vehicle_id", "").strip()
    if raw_vehicle:
        try:
            vehicle_id = uuid.UUID(raw_vehicle)
        except ValueError:
            errors.append({"field": "vehicle_id", "message": "not a UUID"})
    if errors:
        raise ValidationFailed(errors)
    return chauffeur_id, vehicle_id


@operation(
    "/transporteurs/<uuid:transporteur_id>/tacho_files",
    "POST",
    scope="tacho:write",
    summary="Upload a tachograph download: a driver card or a vehicle unit",
    tag="tachograph",
    description="A multipart/form-data body with the part `file` and, optionally, `user_token` "
    "and `vehicle_id` to link it. What the file is comes from its content (driver card or "
    "vehicle unit, generation 1, 2 or 2.2), never from its name; anything else is 422 at the "
    "field `file`. The card number and holder, or VIN and registration, and the days covered "
    "are read from it. Without a link given, a card follows the driver of an earlier download "
    "of the same card and a vehicle unit the carrier's vehicle with the recorded registration. "
    "A new file answers 201; the same bytes again answer 200 with the existing record (stored "
    "once; links unchanged). API keys need the scope tacho:write. Idempotency-Key honoured.",
    multipart=UPLOAD_FORM,
    response=TachoUploadOut,
    status=201,
    also={200: "The same file was uploaded before: the existing record, unchanged"},
    headers={"Location": "the file's details address"},
    errors=(401, 403, 404, 409, 413, 415, 422, 503),
    path_params=CARRIER_ID,
)
@write
def upload_tacho_file(transporteur_id: uuid.UUID):
    carrier_id = _own_carrier(transporteur_id)
    _key_may(WRITE_SCOPE)
    if request.mimetype != "multipart/form-data":
        raise ProblemResponse(
            problem(
                415,
                "Unsupported media type",
                "Send the file as multipart/form-data with the part 'file'.",
                type_="unsupported-media-type",
            )
        )
    upload = request.files.get("file")
    if upload is None:
        raise ValidationFailed([{"field": "file", "message": "is required: a part named 'file'"}])
    chauffeur_id, vehicle_id = _link_fields(carrier_id)
    result = service.upload(
        carrier_id=carrier_id,
        stream=upload.stream,
        filename=upload.filename,
        actor=principal().actor,
        driver_id=chauffeur_id,
        vehicle_id=vehicle_id,
    )
    row = result.file
    body = {
        **serialize_tacho_file(row),
        "nieuw": result.nieuw,
        "melding": "stored" if result.nieuw else "already uploaded: the existing file",
    }
    return json_response(
        body,
        status=201 if result.nieuw else 200,
        headers={"Location": f"/api/v1/tacho_files/{row.id}"},
    )


@operation(
    "/transporteurs/<uuid:transporteur_id>/tacho_files",
    "GET",
    scope="tacho:read",
    summary="The tachograph files of a carrier (integrations; the caller's own carrier only)",
    tag="tachograph",
    description="Newest upload first. Filters: chauffeur (a user_token), vehicle_id, soort, "
    "and van/tot on the days the file covers (a file whose period is unknown counts by its "
    "upload time). " + SCOPES_TEXT,
    query=TachoQuery,
    response=TachoFileOut,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=CARRIER_ID,
)
def list_tacho_files(transporteur_id: uuid.UUID):
    carrier_id = _own_carrier(transporteur_id)
    _key_may(READ_SCOPE, WRITE_SCOPE)
    query = parse_query(TachoQuery)
    chauffeur_id = chauffeur_filter(query.chauffeur, "tachograph data")
    zone = carrier_zone(carrier_id)
    page = service.list_files(
        carrier_id=carrier_id,
        filters=service.TachoFilters(
            chauffeur_id=chauffeur_id,
            vehicle_id=query.vehicle_id,
            soort=query.soort,
            van=period_bound(query.van, zone, end=False) if query.van is not None else None,
            tot=period_bound(query.tot, zone, end=True) if query.tot is not None else None,
            limit=query.limit,
            offset=query.offset,
        ),
    )
    return list_response([serialize_tacho_file(row) for row in page.files], page.total)


@operation(
    "/tacho_files/<uuid:tacho_file_id>",
    "GET",
    scope="tacho:read",
    summary="One tachograph file with a signed download URL",
    tag="tachograph",
    description="The URL works without an Authorization header until url_expires_at: 5 "
    "minutes by default (FILE_URL_TTL), or `geldig` seconds (60 to 3600). An altered or "
    "expired URL is refused (403); ask again for a fresh one. " + SCOPES_TEXT,
    query=TachoDetailsQuery,
    response=TachoDetailsOut,
    errors=(401, 403, 404, 422),
    path_params=TACHO_FILE_ID,
)
def get_tacho_file(tacho_file_id: uuid.UUID):
    who = principal()
    _key_may(READ_SCOPE, WRITE_SCOPE)
    query = parse_query(TachoDetailsQuery)
    row = service.get_file(carrier_id=who.carrier_id, tacho_file_id=tacho_file_id)
    default = int(current_app.config["FILE_URL_TTL"])
    seconds = query.geldig or min(max(default, service.API_LINK_MIN), service.API_LINK_MAX)
    link = service.signed_link(carrier_id=who.carrier_id, tacho_file=row, seconds=seconds)
    return json_response(serialize_details(row, link, origin=public_origin()))


# --- driving and rest times ----------------------------------------------------------------

USER_TOKEN_PARAM = {"user_token": {"description": "the driver's public id", "max_length": 64}}
MAX_PERIOD_DAYS = 366


@operation(
    "/tacho_files/<uuid:tacho_file_id>/activiteiten",
    "GET",
    scope="tacho:read",
    summary="The daily activities a tachograph file holds",
    tag="tachograph",
    description="The file read in full: a JSON array of its days in date order (for a vehicle "
    "unit: per card that was inserted, the days it recorded while it was), each with minutes "
    "per activity and every activity change in the order the card recorded it. Each change "
    "lasts until the next one, max(0, next minute - its minute) (`minuten`), and the minutes "
    "per activity add those up. Where the card went to a vehicle unit whose clock was behind, "
    "the next change has an earlier minute and the day a note in `notities` (code "
    "`klok_achter`, with the minutes); such a day adds up to 1440 plus those minutes. The "
    "minutes of a day add up to 1440 otherwise, except on the download day, which ends at the "
    "download. " + SCOPES_TEXT,
    response=TachoDag,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=TACHO_FILE_ID,
)
def tacho_file_activities(tacho_file_id: uuid.UUID):
    who = principal()
    _key_may(READ_SCOPE, WRITE_SCOPE)
    days = service.file_days(carrier_id=who.carrier_id, tacho_file_id=tacho_file_id)
    return json_response([serialize_day(d.kaartnummer, d.day, d.until) for d in days])


@operation(
    "/users/<user_token:user_token>/rijtijden",
    "GET",
    scope="tacho:read",
    summary="A driver's remaining driving time under EU 561/2006",
    tag="tachograph",
    description="Until the next required break, in this daily driving period, this week and "
    "these two weeks, and when the next daily and weekly rest must begin: from the driver's "
    "card downloads plus the hours recorded in the app since the last one (`bron`). A figure "
    "is null where unknown time (card out, nothing entered) makes it impossible to tell. A "
    "driver reads its own; an integration (tacho:read) any driver of its carrier.",
    response=Rijtijden,
    errors=(401, 403, 404),
    path_params=USER_TOKEN_PARAM,
)
def driver_times(user_token: str):
    driver = driver_access(user_token)
    found = driving.budget_of(carrier_id=driver.transporteur_id, driver_id=driver.id)
    return json_response(serialize_budget(found), headers={"Cache-Control": "private, no-cache"})


@operation(
    "/transporteurs/<uuid:transporteur_id>/overtredingen",
    "GET",
    scope="tacho:read",
    summary="Infringements of EU 561/2006 over a period",
    tag="tachograph",
    description="Every infringement of driving and rest times of the carrier's drivers (or "
    "one: `chauffeur`) in the days van through tot (the carrier's time zone; default the last "
    "28 days; at most a year), in time order, from card downloads and the app's hours. "
    "`soort` onvolledig: unknown time made a check impossible (it neither passed nor "
    "failed); `soort` vrijgesteld: the time is out of the regulation's scope (a vehicle of at "
    "most 40 km/h, Art. 3(b)), never an infringement, its article in `vrijstelling`. Findings "
    "are complete only up to each driver's last card download. " + SCOPES_TEXT,
    query=OvertredingQuery,
    response=Overtreding,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=CARRIER_ID,
)
def infringements(transporteur_id: uuid.UUID):
    carrier_id = _own_carrier(transporteur_id)
    _key_may(READ_SCOPE, WRITE_SCOPE)
    query = parse_query(OvertredingQuery)
    zone = carrier_zone(carrier_id)
    today = utcnow().astimezone(zone).date()
    tot = query.tot or today
    van = query.van or tot - timedelta(days=27)
    if tot < van:
        raise ValidationFailed([{"field": "tot", "message": "must not precede van"}])
    if (tot - van).days >= MAX_PERIOD_DAYS:
        raise ValidationFailed([{"field": "tot", "message": "at most a year after van"}])
    chauffeur_id = chauffeur_filter(query.chauffeur, "tachograph data")
    found = driving.findings(
        carrier_id=carrier_id,
        van=period_bound(van, zone, end=False),
        tot=period_bound(tot, zone, end=True),
        driver_id=chauffeur_id,
    )
    return json_response([serialize_finding(item) for item in found])
