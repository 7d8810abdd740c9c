"""The capability catalogue and what activity types need, for integrations: read with
vehicles:read (and by drivers), changed with vehicles:write (API keys only)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.api.core import json_response, list_response, operation, parse_body, principal, write
from portal.errors import Forbidden
from portal.fleet import catalogue
from portal.fleet.capabilities import DEFAULT_NEEDS, MAX_NAAM
from portal.questionnaires import service as questionnaires
from portal.schemas import InModel, not_null

READ_SCOPE, WRITE_SCOPE = "vehicles:read", "vehicles:write"
CODE = {"code": {"description": "the capability's code, e.g. mesttank", "max_length": 40}}
ACTIVITY = {
    "activity_type": {"description": "the activity type, e.g. mest_laden", "max_length": 64}
}


class ParameterOut(BaseModel):
    model_config = ConfigDict(title="CapabilityParameter")

    naam: str = Field(description="its key in a vehicle's `kenmerken`, e.g. volume_m3")
    soort: Literal["number", "text"]
    eenheid: str | None
    minimum: float | None
    maximum: float | None
    verplicht: bool


class CapabilityOut(BaseModel):
    """A capability of the carrier's catalogue: a default (every carrier starts with them) or
    one of its own; `naam` is in Dutch unless the carrier renamed it."""

    model_config = ConfigDict(title="Capability")

    code: str
    naam: str
    actief: bool = Field(description="false: switched off, no longer offered nor needed")
    standaard: bool = Field(description="one of the defaults every carrier starts with")
    parameters: list[ParameterOut]


class CapabilityNew(InModel):
    model_config = ConfigDict(title="NewCapabilityBody")

    naam: str = Field(min_length=1, max_length=MAX_NAAM)


class CapabilityChange(InModel):
    model_config = ConfigDict(title="UpdateCapabilityBody")

    naam: str | None = Field(
        default=None, min_length=1, max_length=MAX_NAAM, json_schema_extra=not_null
    )
    actief: bool | None = Field(default=None, json_schema_extra=not_null)


class NeedsOut(BaseModel):
    model_config = ConfigDict(title="ActivityNeeds")

    activity_type: str
    kenmerken: list[str] = Field(description="capability codes its combination needs")


class NeedsBody(InModel):
    model_config = ConfigDict(title="ActivityNeedsBody")

    kenmerken: list[str] = Field(max_length=50, description="capability codes; [] needs none")


def _item_out(item) -> dict:
    return {
        "code": item.code,
        "naam": item.naam,
        "actief": item.actief,
        "standaard": item.default,
        "parameters": [
            {
                "naam": p.name,
                "soort": p.kind,
                "eenheid": p.unit,
                "minimum": p.minimum,
                "maximum": p.maximum,
                "verplicht": p.required,
            }
            for p in item.parameters
        ],
    }


def _key_may(*scopes: str) -> None:
    who = principal()
    if who.kind == "api_key" and not set(scopes) & who.scopes:
        raise Forbidden(f"The API key lacks the scope {scopes[0]!r}.")


def _integration_only() -> None:
    if principal().kind != "api_key":
        raise Forbidden("The catalogue is changed by the office or an integration.")
    _key_may(WRITE_SCOPE)


@operation(
    "/voertuigkenmerken",
    "GET",
    scope=READ_SCOPE,
    summary="The carrier's capability catalogue",
    tag="vehicles",
    description="The defaults (mesttank with volume_m3, vee with nvwa_nummer, koeling with "
    "temp_min and temp_max, walking_floor, kipper, adr, kraan, kooiaap) as the carrier "
    "renamed or switched them off, then its own. A vehicle's `kenmerken` name these codes.",
    response=CapabilityOut,
    many=True,
    errors=(401, 403),
)
def list_capabilities():
    _key_may(READ_SCOPE, WRITE_SCOPE)
    items = catalogue.catalogue(carrier_id=principal().carrier_id)
    return list_response([_item_out(i) for i in items], len(items))


@operation(
    "/voertuigkenmerken",
    "POST",
    scope=WRITE_SCOPE,
    summary="Add a capability of the carrier's own (integrations, scope vehicles:write)",
    tag="vehicles",
    description='Its code follows its name ("Balenklem" → balenklem); it takes no '
    "parameters. A name or code the catalogue holds already answers 422 (capability_exists).",
    body=CapabilityNew,
    response=CapabilityOut,
    status=201,
    errors=(401, 403, 413, 415, 422),
)
@write
def add_capability():
    _integration_only()
    body = parse_body(CapabilityNew)
    who = principal()
    item = catalogue.add_capability(carrier_id=who.carrier_id, naam=body.naam, actor=who.actor)
    return json_response(_item_out(item), status=201)


@operation(
    "/voertuigkenmerken/<code>",
    "PATCH",
    scope=WRITE_SCOPE,
    summary="Rename a capability or switch it off or on (integrations, scope vehicles:write)",
    tag="vehicles",
    description="A switched-off capability is no longer offered for vehicles nor needed by "
    "activity types; vehicles that have it keep it.",
    body=CapabilityChange,
    response=CapabilityOut,
    errors=(401, 403, 404, 413, 415, 422),
    path_params=CODE,
)
@write
def change_capability(code: str):
    _integration_only()
    body = parse_body(CapabilityChange)
    who = principal()
    item = catalogue.change_capability(
        carrier_id=who.carrier_id, code=code, naam=body.naam, actief=body.actief, actor=who.actor
    )
    return json_response(_item_out(item))


def _needs_types(carrier_id) -> list[str]:
    known = questionnaires.activity_types(carrier_id=carrier_id)
    stored = catalogue.needs_types(carrier_id=carrier_id)
    return sorted(set(known) | set(DEFAULT_NEEDS) | set(stored))


@operation(
    "/activiteit_kenmerken",
    "GET",
    scope=READ_SCOPE,
    summary="What each activity type needs of its vehicle combination",
    tag="vehicles",
    description="Every activity type of the carrier's questionnaires, of the defaults "
    "(mest_laden and mest_lossen need mesttank, vee_transport vee, koel_transport koeling) "
    "and of its own choices, by activity type.",
    response=NeedsOut,
    many=True,
    errors=(401, 403),
)
def list_needs():
    _key_may(READ_SCOPE, WRITE_SCOPE)
    carrier_id = principal().carrier_id
    types = _needs_types(carrier_id)
    needs = catalogue.needed_capabilities(carrier_id=carrier_id, activity_types=types)
    rows = [{"activity_type": t, "kenmerken": sorted(needs[t])} for t in types]
    return list_response(rows, len(rows))


@operation(
    "/activiteit_kenmerken/<activity_type>",
    "PUT",
    scope=WRITE_SCOPE,
    summary="Set what an activity type needs (integrations, scope vehicles:write)",
    tag="vehicles",
    description="Replaces the capabilities the activity type needs; codes of switched-on "
    "capabilities of the catalogue only (422 unknown_capability). A task on a combination "
    "without them shows a warning naming what is missing.",
    body=NeedsBody,
    response=NeedsOut,
    errors=(401, 403, 413, 415, 422),
    path_params=ACTIVITY,
)
@write
def set_needs(activity_type: str):
    _integration_only()
    body = parse_body(NeedsBody)
    who = principal()
    codes = catalogue.set_needs(
        carrier_id=who.carrier_id,
        activity_type=activity_type,
        kenmerken=body.kenmerken,
        actor=who.actor,
    )
    return json_response({"activity_type": activity_type, "kenmerken": sorted(codes)})
