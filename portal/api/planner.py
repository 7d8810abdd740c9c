"""Planning proposals of the API for integrations: start one for a period (solved by the
worker, outside the request), poll it, and accept it entirely or per task (scopes
tasks:read, tasks:write)."""

from __future__ import annotations

import uuid
from datetime import date, datetime, time, timedelta

from pydantic import BaseModel, ConfigDict, Field

from portal.accounts.service import carrier_zone
from portal.api.core import integration_of, json_response, operation, parse_body, write
from portal.planner import accepting
from portal.planner import service as planner
from portal.planner.models import FINISHED
from portal.schemas import Timestamp
from portal.types import iso

READ_SCOPE, WRITE_SCOPE = "tasks:read", "tasks:write"
CARRIER_ID = {"transporteur_id": {"description": "the caller's own carrier", "uuid": True}}
PROPOSAL_ID = {
    **CARRIER_ID,
    "voorstel_id": {"description": "the proposal's id", "uuid": True},
}
POLL_SECONDS = 2


class ProposalLineOut(BaseModel):
    model_config = ConfigDict(title="PlanningProposalLine")

    taak_id: uuid.UUID
    taak_versie: int = Field(description="the task's version when the proposal was solved")
    chauffeur_id_was: uuid.UUID | None
    voertuig_id_was: uuid.UUID | None
    chauffeur_id: uuid.UUID | None = Field(description="the driver proposed; null: not placed")
    voertuig_id: uuid.UUID | None = Field(description="the motorised vehicle proposed")
    getrokken_id: uuid.UUID | None = Field(description="what it tows that day, if anything")
    regel: str | None = Field(
        description="why the task was not placed: overlap, voertuig_bezet, rijtijd_dag, "
        "rijtijd_week, rijtijd_twee_weken, dagrust, weekrust, capaciteiten, rijbewijs, "
        "openingstijden, geen_combinatie"
    )
    waarschuwingen: list[str] = Field(
        description="rules that could not be decided for lack of data: geen_rijtijdgegevens, "
        "weekrust_onbekend, rijbewijzen_onbekend, rijbewijs_combinatie_onbekend, "
        "openingstijden_onbekend"
    )
    lege_km: float | None = Field(description="straight-line km times the road factor")
    geaccepteerd_op: Timestamp | None


class ProposalOut(BaseModel):
    model_config = ConfigDict(title="PlanningProposal")

    id: uuid.UUID
    status: str = Field(description="queued, running, done, timed_out (the best found when "
                        "the time limit was reached), failed")  # fmt: skip
    van: Timestamp
    tot: Timestamp
    seconden: int = Field(description="the solver's time limit")
    aangemaakt_door: str
    created_at: Timestamp
    gestart_op: Timestamp | None
    klaar_op: Timestamp | None
    geplaatst: int | None
    niet_geplaatst: int | None
    lege_km: float | None
    spreiding_min: int | None = Field(description="the busiest driver's minutes less the least")
    regels: list[ProposalLineOut] = Field(description="empty until the proposal is solved")


class ProposalIn(BaseModel):
    """The days whose unassigned tasks to place: `van` to `tot` inclusive, in the carrier's
    time zone, at most 14 days."""

    model_config = ConfigDict(extra="forbid", title="PlanningProposalCreate")

    van: date = Field(ge=date(2000, 1, 1), le=date(2099, 12, 31))
    tot: date = Field(ge=date(2000, 1, 1), le=date(2099, 12, 31))
    seconden: int = Field(default=planner.DEFAULT_SECONDS, ge=1, le=60)


class AcceptIn(BaseModel):
    model_config = ConfigDict(extra="forbid", title="PlanningProposalAccept")

    taken: list[uuid.UUID] | None = Field(
        default=None, max_length=2000, description="the tasks to accept; absent: all placed"
    )


def _line(line) -> dict:
    return {
        "taak_id": str(line.taak_id),
        "taak_versie": line.taak_versie,
        "chauffeur_id_was": str(line.chauffeur_id_was) if line.chauffeur_id_was else None,
        "voertuig_id_was": str(line.voertuig_id_was) if line.voertuig_id_was else None,
        "chauffeur_id": str(line.chauffeur_id) if line.chauffeur_id else None,
        "voertuig_id": str(line.voertuig_id) if line.voertuig_id else None,
        "getrokken_id": str(line.getrokken_id) if line.getrokken_id else None,
        "regel": line.regel,
        "waarschuwingen": line.waarschuwingen.split(",") if line.waarschuwingen else [],
        "lege_km": line.lege_km,
        "geaccepteerd_op": iso(line.geaccepteerd_op),
    }


def serialize_proposal(proposal, lines: list) -> dict:
    return {
        "id": str(proposal.id),
        "status": proposal.status,
        "van": iso(proposal.van),
        "tot": iso(proposal.tot),
        "seconden": proposal.seconden,
        "aangemaakt_door": proposal.aangemaakt_door,
        "created_at": iso(proposal.created_at),
        "gestart_op": iso(proposal.gestart_op),
        "klaar_op": iso(proposal.klaar_op),
        "geplaatst": proposal.geplaatst,
        "niet_geplaatst": proposal.niet_geplaatst,
        "lege_km": proposal.lege_km,
        "spreiding_min": proposal.spreiding_min,
        "regels": [_line(line) for line in lines],
    }


def _address(proposal) -> str:
    return f"/api/v1/transporteurs/{proposal.transporteur_id}/planning/voorstel/{proposal.id}"


def _answer(who, proposal, status: int = 200, headers: dict | None = None):
    lines = planner.lines_of(carrier_id=who.carrier_id, proposal_id=proposal.id)
    if proposal.status not in FINISHED:
        headers = {**(headers or {}), "Retry-After": str(POLL_SECONDS)}
    return json_response(serialize_proposal(proposal, lines), status=status, headers=headers)


@operation(
    "/transporteurs/<uuid:transporteur_id>/planning/voorstel",
    "POST",
    scope=WRITE_SCOPE,
    summary="Start a proposal that places the unassigned tasks of a period",
    tag="tasks",
    description="Answers 202 with the queued proposal and its address (Location); the worker "
    "solves it outside the request within `seconden`. Poll the address until `status` is "
    "done, timed_out (the best found when the limit was reached) or failed. A period longer "
    "than 14 days answers 422 `periode_te_lang`, one ending before it starts `periode_leeg`.",
    body=ProposalIn,
    response=ProposalOut,
    status=202,
    headers={"Location": "the proposal's address", "Retry-After": "seconds until a poll"},
    errors=(401, 403, 404, 413, 415, 422),
    path_params=CARRIER_ID,
)
@write
def start_planning_proposal(transporteur_id: uuid.UUID):
    who = integration_of(transporteur_id, drivers_read="its own tasks")
    body = parse_body(ProposalIn)
    zone = carrier_zone(who.carrier_id)
    van = datetime.combine(body.van, time(0), tzinfo=zone)
    tot = datetime.combine(body.tot + timedelta(days=1), time(0), tzinfo=zone)
    proposal = planner.start_proposal(
        carrier_id=who.carrier_id, van=van, tot=tot, actor=who.actor, seconden=body.seconden
    )
    return _answer(who, proposal, status=202, headers={"Location": _address(proposal)})


@operation(
    "/transporteurs/<uuid:transporteur_id>/planning/voorstel/<uuid:voorstel_id>",
    "GET",
    scope=READ_SCOPE,
    summary="A proposal: its status, and once solved each task's proposed driver and "
    "combination or why it was not placed",
    tag="tasks",
    description="While queued or running the answer carries Retry-After.",
    response=ProposalOut,
    errors=(401, 403, 404),
    path_params=PROPOSAL_ID,
)
def get_planning_proposal(transporteur_id: uuid.UUID, voorstel_id: uuid.UUID):
    who = integration_of(transporteur_id, drivers_read="its own tasks")
    proposal = planner.get_proposal(carrier_id=who.carrier_id, proposal_id=voorstel_id)
    return _answer(who, proposal)


@operation(
    "/transporteurs/<uuid:transporteur_id>/planning/voorstel/<uuid:voorstel_id>/accepteren",
    "POST",
    scope=WRITE_SCOPE,
    summary="Accept a proposal, entirely or for some of its tasks",
    tag="tasks",
    description="One unit of work: every accepted task gets its driver and vehicle, or none "
    "does. 409 `taken_gewijzigd` (with `taken`) when tasks changed since the proposal was "
    "solved; 409 `regels_geschonden` (with `taken`) when accepting would now break a "
    "planning rule; 409 `voorstel_niet_klaar` before it is solved; 422 "
    "`taak_niet_in_voorstel` for a task without an open proposed assignment.",
    body=AcceptIn,
    response=ProposalOut,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=PROPOSAL_ID,
)
@write
def accept_planning_proposal(transporteur_id: uuid.UUID, voorstel_id: uuid.UUID):
    who = integration_of(transporteur_id, drivers_read="its own tasks")
    body = parse_body(AcceptIn)
    accepting.accept(
        carrier_id=who.carrier_id, proposal_id=voorstel_id, actor=who.actor, task_ids=body.taken
    )
    proposal = planner.get_proposal(carrier_id=who.carrier_id, proposal_id=voorstel_id)
    return _answer(who, proposal)
