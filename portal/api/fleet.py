"""Vehicle and vehicle-session operations of the API."""

from __future__ import annotations

import uuid

from flask import request
from pydantic import BaseModel, ConfigDict, Field

from portal.api.core import (
    chauffeur_filter,
    if_match_versions,
    integration_of,
    json_body,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    write,
)
from portal.errors import Forbidden, ValidationFailed
from portal.fleet import service, sessions
from portal.fleet.schemas import (
    SessionStart,
    SessionValidate,
    VehicleOut,
    VehicleQuery,
    VehicleSessionOut,
    VehicleUpdate,
    serialize_session,
    serialize_vehicle,
)

READ_SCOPE, WRITE_SCOPE = "vehicles:read", "vehicles:write"
VEHICLE_ID = {"vehicle_id": {"description": "the vehicle's id", "uuid": True}}
SESSION_ID = {"session_id": {"description": "the vehicle session's id", "uuid": True}}
CARRIER_ID = {"transporteur_id": {"description": "the caller's own carrier", "uuid": True}}


def _key_may(*scopes: str) -> None:
    """Drivers may; an API key needs one of scopes (write implies read)."""
    who = principal()
    if who.kind == "api_key" and not set(scopes) & who.scopes:
        raise Forbidden(f"The API key lacks the scope {scopes[0]!r}.")


def _vehicle_response(vehicle, status: int = 200):
    who = principal()
    active = sessions.active_by_vehicle(carrier_id=who.carrier_id, vehicle_ids={vehicle.id})
    caps = service.capabilities_of(carrier_id=who.carrier_id, vehicle_ids={vehicle.id})
    return json_response(
        serialize_vehicle(vehicle, active.get(vehicle.id), caps[vehicle.id]),
        status=status,
        headers={"ETag": service.etag_of(vehicle)},
    )


# --- vehicles ----------------------------------------------------------------------------


@operation(
    "/voertuigen",
    "GET",
    scope="vehicles:read",
    summary="Vehicles of the caller's carrier, by licence plate, filtered and paged",
    tag="vehicles",
    description="Drivers and API keys (scope vehicles:read or vehicles:write). Each vehicle "
    "says who drives it right now (`actieve_sessie`), its capabilities (`kenmerken`) and its "
    "`versie` for If-Match. Vehicles without a plate (an agricultural trailer on its "
    "tractor's repeat plate) sort by their fleet number. The kinds `trekker` and `aanhanger` "
    "are now `opleggertrekker` and `aanhangwagen`: the old names answer 422.",
    query=VehicleQuery,
    response=VehicleOut,
    many=True,
    errors=(401, 403, 422),
)
def list_vehicles():
    _key_may(READ_SCOPE, WRITE_SCOPE)
    query = parse_query(VehicleQuery)
    who = principal()
    page = service.find_vehicles(
        carrier_id=who.carrier_id,
        filters=service.VehicleFilters(
            search=query.q,
            kenteken=query.kenteken,
            soort=query.soort,
            actief=query.actief,
            limit=query.limit,
            offset=query.offset,
        ),
    )
    ids = {v.id for v in page.vehicles}
    active = sessions.active_by_vehicle(carrier_id=who.carrier_id, vehicle_ids=ids)
    caps = service.capabilities_of(carrier_id=who.carrier_id, vehicle_ids=ids)
    return list_response(
        [serialize_vehicle(v, active.get(v.id), caps[v.id]) for v in page.vehicles], page.total
    )


@operation(
    "/transporteurs/<uuid:transporteur_id>/voertuigen",
    "GET",
    scope="vehicles:read",
    summary="All vehicles of a carrier (integrations; the caller's own carrier only)",
    tag="vehicles",
    query=VehicleQuery,
    response=VehicleOut,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=CARRIER_ID,
)
def carrier_vehicles(transporteur_id: uuid.UUID):
    integration_of(transporteur_id, drivers_read="GET /voertuigen")
    return list_vehicles()


@operation(
    "/voertuigen/<uuid:vehicle_id>",
    "GET",
    scope="vehicles:read",
    summary="One vehicle",
    tag="vehicles",
    response=VehicleOut,
    errors=(401, 403, 404),
    headers={"ETag": "the vehicle's version, for If-Match"},
    path_params=VEHICLE_ID,
)
def get_vehicle(vehicle_id: uuid.UUID):
    vehicle = service.get_vehicle(carrier_id=principal().carrier_id, vehicle_id=vehicle_id)
    _key_may(READ_SCOPE, WRITE_SCOPE)
    return _vehicle_response(vehicle)


@operation(
    "/voertuigen/<uuid:vehicle_id>",
    "PATCH",
    scope="vehicles:write",
    summary="Change a vehicle's fields (integrations, scope vehicles:write); If-Match",
    tag="vehicles",
    description="Only the fields sent change; `kenteken` must be a Dutch licence plate and is "
    "stored as painted (BX-12-LP), unique within the carrier; only an agricultural trailer "
    "(`landbouwaanhanger`) may have none (null), and is then known by its `vlootnummer` "
    "(unique within the carrier). `capaciteit` and `capaciteit_eenheid` go together. "
    "`kenmerken` replaces the vehicle's capabilities, each with its parameters (422 "
    "`kenmerken.<code>.<parameter>` for a value out of range, an unknown or switched-off "
    "capability); `kooiaap` true or false adds or takes off the kooiaap capability alone. "
    "The kinds `trekker` and `aanhanger` are now `opleggertrekker` and `aanhangwagen`; sent, "
    "they answer 422 naming the new kind. `actief: false` deactivates the vehicle and ends "
    "its active session; its history stays. A stale If-Match answers 412.",
    body=VehicleUpdate,
    response=VehicleOut,
    errors=(401, 403, 404, 412, 422),
    conditional=("If-Match",),
    headers={"ETag": "the vehicle's new version"},
    path_params=VEHICLE_ID,
)
@write
def update_vehicle(vehicle_id: uuid.UUID):
    who = principal()
    service.get_vehicle(carrier_id=who.carrier_id, vehicle_id=vehicle_id)  # 404 first
    if who.kind != "api_key":
        raise Forbidden("Vehicles are changed by the office or an integration, not a driver.")
    _key_may(WRITE_SCOPE)
    body = parse_body(VehicleUpdate)
    data = body.model_dump(exclude_unset=True)
    for name in ("soort", "kooiaap", "actief", "kenmerken"):
        if name in data and data[name] is None:
            raise ValidationFailed([{"field": name, "message": "may not be null"}])
    vehicle = service.update_vehicle(
        carrier_id=who.carrier_id,
        vehicle_id=vehicle_id,
        data=data,
        actor=who.actor,
        expected_version=if_match_versions("vehicle"),
    )
    return _vehicle_response(vehicle)


# --- vehicle sessions --------------------------------------------------------------------


class SessionQuery(BaseModel):
    """Query of GET /vehicle_sessions: newest first."""

    model_config = ConfigDict(extra="forbid")

    status: str | None = Field(
        default=None,
        description="comma-separated statuses, e.g. pending,active",
        pattern=r"^(pending|active|ended)(,(pending|active|ended))*$",
    )
    chauffeur: str | None = Field(default=None, max_length=64, description="a driver's user_token")
    vehicle_id: uuid.UUID | None = None
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


def _session_for_caller(session_id: uuid.UUID):
    """The session, when the caller may see it: a driver its own, a key all of its carrier."""
    who = principal()
    session = sessions.get_session(carrier_id=who.carrier_id, session_id=session_id)
    if who.kind == "driver" and session.chauffeur_id != who.id:
        raise Forbidden("A driver may only act on its own vehicle sessions.")
    return session


def _session_response(session, status: int = 200, headers: dict | None = None):
    who = principal()
    plates = service.plates_by_id(carrier_id=who.carrier_id, vehicle_ids={session.vehicle_id})
    return json_response(
        serialize_session(session, plates.get(session.vehicle_id)), status=status, headers=headers
    )


def _driver_only(what: str) -> None:
    if principal().kind != "driver":
        raise Forbidden(f"{what} is done by the driver's app: sign in as the driver.")


@operation(
    "/vehicle_sessions",
    "POST",
    scope=None,
    unscoped="the driver app only; API keys get 403",
    summary="Start a vehicle session (drivers): pending until the cab's QR sticker is scanned",
    tag="vehicle session",
    description="The body may be empty or name the vehicle the driver chose (`vehicle_id`); "
    "then only that vehicle's sticker validates the session. A driver who still drives a "
    "vehicle gets 409 (`reden` driver_busy, `sessie_id`): end that session first. An earlier "
    "pending session of the driver is ended as replaced. A pending session takes its scan "
    "until `verloopt_op` (15 minutes). Send an Idempotency-Key so a retry after a lost "
    "response answers the same session.",
    body=SessionStart,
    body_required=False,
    response=VehicleSessionOut,
    status=201,
    headers={"Location": "the session's address"},
    errors=(401, 403, 409, 413, 415, 422),
)
@write
def start_session():
    _driver_only("Starting a vehicle session")
    doc = json_body() if request.get_data(cache=True).strip() else {}
    body = parse_body(SessionStart, doc)
    who = principal()
    session = sessions.start_session(
        carrier_id=who.carrier_id,
        driver_id=who.id,
        vehicle_id=body.vehicle_id,
        actor=who.actor,
    )
    return _session_response(
        session, status=201, headers={"Location": f"/api/v1/vehicle_sessions/{session.id}"}
    )


@operation(
    "/vehicle_sessions/<uuid:session_id>/validate",
    "POST",
    scope=None,
    unscoped="the driver app only; API keys get 403",
    summary="Validate a pending session with the scanned QR sticker: it becomes active",
    tag="vehicle session",
    description="`qr` is the sticker's text as scanned. A forged or damaged sticker, one "
    "replaced by a newer sticker (rotated in the portal), another carrier's, or another "
    "vehicle's than the session named answers 422 (`type` …/qr-refused, `reden` invalid, "
    "rotated, unknown_vehicle: none of the carrier's vehicles, another carrier's included, "
    "other_vehicle). A vehicle someone else drives "
    "(`reden` vehicle_in_use), a driver who already drives one (driver_busy), a deactivated "
    "vehicle, or a session that is no longer pending or waited too long answers 409. Two "
    "phones scanning one vehicle at once: one becomes active, the other gets the 409.",
    body=SessionValidate,
    response=VehicleSessionOut,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=SESSION_ID,
)
@write
def validate_session(session_id: uuid.UUID):
    _session_for_caller(session_id)  # another carrier's id is 404 before anything else
    _driver_only("Scanning a vehicle's QR sticker")
    body = parse_body(SessionValidate)
    who = principal()
    session = sessions.validate_session(
        carrier_id=who.carrier_id, session_id=session_id, payload=body.qr, driver_id=who.id
    )
    return _session_response(session)


@operation(
    "/vehicle_sessions/<uuid:session_id>/end",
    "POST",
    scope="vehicles:write",
    summary="End a vehicle session: the vehicle and the driver are free again",
    tag="vehicle session",
    description="The driver ends its own session; an integration (scope vehicles:write) any "
    "of its carrier. A pending session is called off. An ended session answers 409. No body.",
    response=VehicleSessionOut,
    errors=(401, 403, 404, 409),
    path_params=SESSION_ID,
)
@write
def end_session(session_id: uuid.UUID):
    _session_for_caller(session_id)
    who = principal()
    if who.kind == "api_key":
        _key_may(WRITE_SCOPE)
    session = sessions.end_session(
        carrier_id=who.carrier_id,
        session_id=session_id,
        actor=who.actor,
        driver_id=who.id if who.kind == "driver" else None,
    )
    return _session_response(session)


@operation(
    "/vehicle_sessions",
    "GET",
    scope="vehicles:read",
    summary="Vehicle sessions, newest first (a driver: its own), filtered and paged",
    tag="vehicle session",
    description="`status=active` lists who drives what right now. The driver app finds its "
    "current session here after a restart.",
    query=SessionQuery,
    response=VehicleSessionOut,
    many=True,
    errors=(401, 403, 422),
)
def list_sessions():
    _key_may(READ_SCOPE, WRITE_SCOPE)
    query = parse_query(SessionQuery)
    who = principal()
    chauffeur_id = chauffeur_filter(query.chauffeur, "vehicle sessions")
    page = sessions.list_sessions(
        carrier_id=who.carrier_id,
        filters=sessions.SessionFilters(
            chauffeur_id=chauffeur_id,
            vehicle_id=query.vehicle_id,
            statuses=tuple(query.status.split(",")) if query.status else (),
            limit=query.limit,
            offset=query.offset,
        ),
    )
    plates = service.plates_by_id(
        carrier_id=who.carrier_id, vehicle_ids={s.vehicle_id for s in page.sessions}
    )
    return list_response(
        [serialize_session(s, plates.get(s.vehicle_id)) for s in page.sessions], page.total
    )


@operation(
    "/vehicle_sessions/<uuid:session_id>",
    "GET",
    scope="vehicles:read",
    summary="One vehicle session (a driver: its own)",
    tag="vehicle session",
    response=VehicleSessionOut,
    errors=(401, 403, 404),
    path_params=SESSION_ID,
)
def get_session(session_id: uuid.UUID):
    session = _session_for_caller(session_id)
    _key_may(READ_SCOPE, WRITE_SCOPE)
    return _session_response(session)
