"""Couplings of the API for integrations: a towed vehicle coupled to a motorised one for a
day or for a task, listed, made, read and ended (scopes vehicles:read, vehicles:write)."""

from __future__ import annotations

import uuid
from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from portal.api.core import (
    integration_of,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    write,
)
from portal.errors import Forbidden
from portal.fleet import couplings, scan_couplings, sessions
from portal.fleet.coupling_models import BRONNEN
from portal.schemas import Timestamp
from portal.types import iso

READ_SCOPE, WRITE_SCOPE = "vehicles:read", "vehicles:write"
CARRIER_ID = {"transporteur_id": {"description": "the caller's own carrier", "uuid": True}}
COUPLING_ID = {
    **CARRIER_ID,
    "koppeling_id": {"description": "the coupling's id", "uuid": True},
}
SESSION_ID = {"session_id": {"description": "the vehicle session's id", "uuid": True}}
REFUSALS = (
    "A refused coupling answers 409 with `code` naming the rule: two_motorised, not_motorised, "
    "not_towed, semi_trailer_needs_tractor_unit, drawbar_trailer_needs_truck_or_tractor, "
    "agricultural_trailer_needs_agricultural_tractor, towed_in_use (the towed vehicle is "
    "coupled to another motorised vehicle that day or for an overlapping task), "
    "motor_pulls_other (the motorised vehicle already pulls another trailer then), "
    "vehicle_inactive, not_the_tasks_vehicle (a task's coupling names the task's vehicle)."
)


class CouplingOut(BaseModel):
    model_config = ConfigDict(title="Coupling")

    id: uuid.UUID
    trekkend_id: uuid.UUID = Field(description="the motorised vehicle")
    getrokken_id: uuid.UUID = Field(description="the towed vehicle")
    datum: date | None = Field(description="the day it holds (the carrier's calendar day)")
    taak_id: uuid.UUID | None = Field(description="the task it holds for")
    bron: str = Field(description=", ".join(BRONNEN))
    created_at: Timestamp
    gekoppeld_door: str
    ontkoppeld_op: Timestamp | None = Field(description="when it was ended; null: current")
    ontkoppeld_door: str | None


class CouplingIn(BaseModel):
    """A coupling for a day (`datum`) or for a task (`taak_id`), exactly one of the two."""

    model_config = ConfigDict(extra="forbid", title="CouplingCreate")

    trekkend_id: uuid.UUID
    getrokken_id: uuid.UUID
    datum: date | None = None
    taak_id: uuid.UUID | None = None


class CouplingQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    datum: date | None = Field(default=None, description="couplings of this day")
    voertuig_id: uuid.UUID | None = Field(default=None, description="of this vehicle, any side")
    taak_id: uuid.UUID | None = None
    alle: bool = Field(default=False, description="also the ended ones (history)")
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


def serialize_coupling(coupling) -> dict:
    return {
        "id": str(coupling.id),
        "trekkend_id": str(coupling.trekkend_id),
        "getrokken_id": str(coupling.getrokken_id),
        "datum": coupling.datum.isoformat() if coupling.datum else None,
        "taak_id": str(coupling.taak_id) if coupling.taak_id else None,
        "bron": coupling.bron,
        "created_at": iso(coupling.created_at),
        "gekoppeld_door": coupling.gekoppeld_door,
        "ontkoppeld_op": iso(coupling.ontkoppeld_op),
        "ontkoppeld_door": coupling.ontkoppeld_door,
    }


def _caller(transporteur_id: uuid.UUID, scope: str):
    who = integration_of(transporteur_id, drivers_read="the plates on its tasks")
    if scope not in who.scopes and WRITE_SCOPE not in who.scopes:
        raise Forbidden(f"The API key lacks the scope {scope!r}.")
    return who


@operation(
    "/transporteurs/<uuid:transporteur_id>/koppelingen",
    "GET",
    scope=READ_SCOPE,
    summary="Couplings of towed vehicles to motorised ones, newest first",
    tag="couplings",
    description="Current couplings (or all with `alle=true`), of a day, a vehicle on either "
    "side, or a task. Integrations only (scope vehicles:read or vehicles:write).",
    query=CouplingQuery,
    response=CouplingOut,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=CARRIER_ID,
)
def list_couplings(transporteur_id: uuid.UUID):
    who = _caller(transporteur_id, READ_SCOPE)
    query = parse_query(CouplingQuery)
    filters = {
        "day": query.datum,
        "vehicle_id": query.voertuig_id,
        "task_id": query.taak_id,
        "include_ended": query.alle,
    }
    rows = couplings.list_couplings(
        carrier_id=who.carrier_id, **filters, limit=query.limit, offset=query.offset
    )
    total = couplings.count_couplings(carrier_id=who.carrier_id, **filters)
    return list_response([serialize_coupling(c) for c in rows], total)


@operation(
    "/transporteurs/<uuid:transporteur_id>/koppelingen",
    "POST",
    scope=WRITE_SCOPE,
    summary="Couple a towed vehicle to a motorised one for a day or for a task",
    tag="couplings",
    description="Exactly one of `datum` and `taak_id`. The same coupling again answers the "
    "current one; a task's earlier coupling is replaced. " + REFUSALS,
    body=CouplingIn,
    response=CouplingOut,
    status=201,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=CARRIER_ID,
)
@write
def create_coupling(transporteur_id: uuid.UUID):
    who = _caller(transporteur_id, WRITE_SCOPE)
    body = parse_body(CouplingIn)
    coupling = couplings.couple(
        carrier_id=who.carrier_id,
        motor_id=body.trekkend_id,
        towed_id=body.getrokken_id,
        day=body.datum,
        task_id=body.taak_id,
        actor=who.actor,
        source="api",
    )
    return json_response(serialize_coupling(coupling), status=201)


@operation(
    "/transporteurs/<uuid:transporteur_id>/koppelingen/<uuid:koppeling_id>",
    "GET",
    scope=READ_SCOPE,
    summary="One coupling",
    tag="couplings",
    response=CouplingOut,
    errors=(401, 403, 404),
    path_params=COUPLING_ID,
)
def get_coupling(transporteur_id: uuid.UUID, koppeling_id: uuid.UUID):
    who = _caller(transporteur_id, READ_SCOPE)
    coupling = couplings.get_coupling(carrier_id=who.carrier_id, coupling_id=koppeling_id)
    return json_response(serialize_coupling(coupling))


@operation(
    "/transporteurs/<uuid:transporteur_id>/koppelingen/<uuid:koppeling_id>",
    "DELETE",
    scope=WRITE_SCOPE,
    summary="Uncouple: the coupling ends and stays in the history",
    tag="couplings",
    description="Answers the ended coupling; one ended already answers 409 "
    "(`code` already_uncoupled).",
    response=CouplingOut,
    errors=(401, 403, 404, 409),
    path_params=COUPLING_ID,
)
@write
def delete_coupling(transporteur_id: uuid.UUID, koppeling_id: uuid.UUID):
    who = _caller(transporteur_id, WRITE_SCOPE)
    coupling = couplings.uncouple(
        carrier_id=who.carrier_id, coupling_id=koppeling_id, actor=who.actor
    )
    return json_response(serialize_coupling(coupling))


class ScanIn(BaseModel):
    model_config = ConfigDict(extra="forbid", title="CouplingScan")

    qr: str = Field(min_length=1, max_length=2000, description="the trailer's sticker as scanned")


@operation(
    "/vehicle_sessions/<uuid:session_id>/koppelen",
    "POST",
    scope=None,
    unscoped="the driver app only; API keys get 403",
    summary="Couple a trailer by scanning its QR sticker in an active session (drivers)",
    tag="couplings",
    description="The trailer whose sticker is scanned is coupled to the session's vehicle for "
    "today (the carrier's day), `bron` qr_scan; the driver's tasks then list both plates. "
    "A sticker that is not valid, or not a trailer's, answers 422 (`reden` invalid, rotated, "
    "unknown_vehicle, not_towed); a session that is not active 409 (`reden` not_active). "
    "Starting a session by scanning a trailer's sticker starts it on the vehicle the trailer "
    "is coupled to today (POST /vehicle_sessions/{session_id}/validate). " + REFUSALS,
    body=ScanIn,
    response=CouplingOut,
    status=201,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=SESSION_ID,
)
@write
def couple_by_scan(session_id: uuid.UUID):
    who = principal()
    sessions.get_session(carrier_id=who.carrier_id, session_id=session_id)  # 404 first
    if who.kind != "driver":
        raise Forbidden("Coupling by scan is done by the driver's app: sign in as the driver.")
    body = parse_body(ScanIn)
    coupling = scan_couplings.couple_by_scan(
        carrier_id=who.carrier_id,
        session_id=session_id,
        payload=body.qr,
        actor=who.actor,
        driver_id=who.id,
    )
    return json_response(serialize_coupling(coupling), status=201)
