"""The carrier's capability catalogue, the capabilities of its vehicles and what its activity
types need: the only door to the kenmerken, voertuig_kenmerken and activiteit_kenmerken
tables (the defaults and the parameters' rules: portal/fleet/capabilities.py).

A carrier starts with the defaults without any row; a row in `kenmerken` renames a default,
switches it off, or is a capability of the carrier's own. portal/fleet/service.py offers
these reads to other units (capabilities_of, needed_capabilities, capability_names).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import func, select

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.fleet.capabilities import (
    BY_CODE,
    DEFAULT_NEEDS,
    DEFAULTS,
    MAX_NAAM,
    Parameter,
    clean_parameters,
    code_for,
    parameters_of,
)
from portal.fleet.models import ActivityNeeds, CapabilityEntry, VehicleCapability
from portal.types import utcnow


@dataclass(frozen=True)
class CatalogueItem:
    code: str
    naam: str
    actief: bool
    default: bool  # one of the defaults every carrier starts with
    parameters: tuple[Parameter, ...]


# --- the catalogue ------------------------------------------------------------------------


def _entries(carrier_id: uuid.UUID) -> dict[str, CapabilityEntry]:
    rows = db.session.scalars(
        select(CapabilityEntry).where(CapabilityEntry.transporteur_id == carrier_id)
    )
    return {row.code: row for row in rows}


def catalogue(*, carrier_id: uuid.UUID, active_only: bool = False) -> list[CatalogueItem]:
    """The carrier's capabilities: the defaults in their order (as renamed or switched off),
    then its own by name."""
    entries = _entries(carrier_id)
    items = []
    for default in DEFAULTS:
        entry = entries.get(default.code)
        items.append(
            CatalogueItem(
                code=default.code,
                naam=entry.naam if entry else default.naam,
                actief=entry.actief if entry else True,
                default=True,
                parameters=default.parameters,
            )
        )
    own = sorted((e for e in entries.values() if e.code not in BY_CODE), key=lambda e: e.naam)
    items += [CatalogueItem(e.code, e.naam, e.actief, False, ()) for e in own]
    return [item for item in items if item.actief or not active_only]


def capability_names(*, carrier_id: uuid.UUID) -> dict[str, str]:
    """Every capability's name by code, switched-off ones included (for display)."""
    return {item.code: item.naam for item in catalogue(carrier_id=carrier_id)}


def _clean_name(naam, errors: list[dict]) -> str:
    text = (naam or "").strip() if isinstance(naam, str) else ""
    if not text:
        errors.append({"field": "naam", "code": "required", "message": "is required"})
    elif len(text) > MAX_NAAM:
        errors.append(
            {
                "field": "naam",
                "code": "too_long",
                "message": f"at most {MAX_NAAM} characters",
                "params": {"max": MAX_NAAM},
            }
        )
    return text


def add_capability(*, carrier_id: uuid.UUID, naam: str, actor: Actor) -> CatalogueItem:
    """A capability of the carrier's own, without parameters; its code follows its name."""
    errors: list[dict] = []
    text = _clean_name(naam, errors)
    code = code_for(text)
    names = {item.naam.casefold(): item for item in catalogue(carrier_id=carrier_id)}
    if not errors and (code in BY_CODE or code in _entries(carrier_id) or text.casefold() in names):
        errors.append(
            {
                "field": "naam",
                "code": "capability_exists",
                "message": "the catalogue holds this capability already",
                "params": {"naam": text},
            }
        )
    if errors:
        raise ValidationFailed(errors)
    entry = CapabilityEntry(
        transporteur_id=carrier_id, id=uuid.uuid4(), code=code, naam=text, actief=True
    )
    db.session.add(entry)
    db.session.flush()
    _audit(carrier_id, actor, entry, "created", {"naam": [None, text]})
    return CatalogueItem(code, text, True, False, ())


def change_capability(
    *, carrier_id: uuid.UUID, code: str, actor: Actor, naam=None, actief: bool | None = None
) -> CatalogueItem:
    """Rename a capability or switch it off (or on). Vehicles keep a switched-off capability
    until it is taken off them; it is no longer offered nor needed."""
    item = _item(carrier_id, code)
    errors: list[dict] = []
    text = _clean_name(naam, errors) if naam is not None else item.naam
    if errors:
        raise ValidationFailed(errors)
    entry = _entries(carrier_id).get(code)
    if entry is None:
        entry = CapabilityEntry(
            transporteur_id=carrier_id, id=uuid.uuid4(), code=code, naam=item.naam, actief=True
        )
        db.session.add(entry)
    changes = {}
    if text != entry.naam:
        changes["naam"] = [entry.naam, text]
    if actief is not None and actief != entry.actief:
        changes["actief"] = [entry.actief, actief]
    entry.naam = text
    entry.actief = entry.actief if actief is None else actief
    entry.updated_at = utcnow()
    db.session.flush()
    if changes:
        _audit(carrier_id, actor, entry, "updated", changes)
    return CatalogueItem(code, entry.naam, entry.actief, code in BY_CODE, parameters_of(code))


def _item(carrier_id: uuid.UUID, code: str) -> CatalogueItem:
    for item in catalogue(carrier_id=carrier_id):
        if item.code == code:
            return item
    raise NotFound("capability not found")


def _audit(carrier_id, actor, entry: CapabilityEntry, action: str, changes: dict) -> None:
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="capability",
        entity_id=entry.id,
        action=action,
        changes={"code": [None, entry.code], **changes} if action == "created" else changes,
    )


# --- a vehicle's capabilities -----------------------------------------------------------


def capabilities_of(*, carrier_id: uuid.UUID, vehicle_ids) -> dict[uuid.UUID, dict[str, dict]]:
    """Each vehicle's capabilities with their parameters (code -> parameters), in one query;
    every vehicle asked for has an entry."""
    ids = {i for i in vehicle_ids if i is not None}
    found: dict[uuid.UUID, dict[str, dict]] = {i: {} for i in ids}
    if not ids:
        return found
    rows = db.session.scalars(
        select(VehicleCapability)
        .where(
            VehicleCapability.transporteur_id == carrier_id, VehicleCapability.vehicle_id.in_(ids)
        )
        .order_by(VehicleCapability.code)
    )
    for row in rows:
        found[row.vehicle_id][row.code] = dict(row.parameters or {})
    return found


def clean_vehicle_capabilities(
    *, carrier_id: uuid.UUID, wanted, current: dict[str, dict], errors: list[dict]
) -> dict[str, dict]:
    """The capabilities a vehicle is to have (code -> parameters), checked: each in the
    catalogue and switched on (one the vehicle has already may stay), its parameters by
    their rules."""
    if not isinstance(wanted, dict):
        errors.append(
            {"field": "kenmerken", "code": "not_an_object", "message": "an object by code"}
        )
        return current
    known = {item.code: item for item in catalogue(carrier_id=carrier_id)}
    clean: dict[str, dict] = {}
    for code, values in wanted.items():
        item = known.get(code)
        if item is None or (not item.actief and code not in current):
            errors.append(
                {
                    "field": f"kenmerken.{code}",
                    "code": "unknown_capability" if item is None else "capability_off",
                    "message": "not in the carrier's catalogue"
                    if item is None
                    else "switched off in the carrier's catalogue",
                    "params": {"code": code},
                }
            )
            continue
        clean[code] = clean_parameters(code, values if values is not None else {}, errors)
    return clean


def wanted_capabilities(
    *, carrier_id: uuid.UUID, data: dict, current: dict[str, dict], errors: list[dict]
) -> dict[str, dict] | None:
    """The capabilities a vehicle's change asks for, checked: `kenmerken` (all of them),
    then `kooiaap` true or false adding or taking off that one; None when data touches
    neither."""
    if "kenmerken" not in data and "kooiaap" not in data:
        return None
    wanted = data.get("kenmerken", current)
    if wanted is None:
        wanted = {}
    if "kooiaap" in data:
        if not isinstance(data["kooiaap"], bool):
            errors.append({"field": "kooiaap", "code": "not_a_boolean", "message": "true or false"})
        elif isinstance(wanted, dict):
            wanted = {k: v for k, v in wanted.items() if k != "kooiaap"}
            if data["kooiaap"]:
                wanted["kooiaap"] = current.get("kooiaap", {})
    return clean_vehicle_capabilities(
        carrier_id=carrier_id, wanted=wanted, current=current, errors=errors
    )


def store_vehicle_capabilities(
    *, carrier_id: uuid.UUID, vehicle_id: uuid.UUID, wanted: dict[str, dict]
) -> None:
    """Replace the vehicle's capabilities by wanted (checked already)."""
    rows = {
        row.code: row
        for row in db.session.scalars(
            select(VehicleCapability).where(
                VehicleCapability.transporteur_id == carrier_id,
                VehicleCapability.vehicle_id == vehicle_id,
            )
        )
    }
    for code, row in rows.items():
        if code not in wanted:
            db.session.delete(row)
        elif row.parameters != wanted[code]:
            row.parameters = wanted[code]
    for code, parameters in wanted.items():
        if code not in rows:
            db.session.add(
                VehicleCapability(
                    transporteur_id=carrier_id,
                    id=uuid.uuid4(),
                    vehicle_id=vehicle_id,
                    code=code,
                    parameters=parameters,
                )
            )
    db.session.flush()


def vehicles_with(*, carrier_id: uuid.UUID) -> dict[str, int]:
    """How many vehicles have each capability."""
    rows = db.session.execute(
        select(VehicleCapability.code, func.count())
        .where(VehicleCapability.transporteur_id == carrier_id)
        .group_by(VehicleCapability.code)
    )
    return {code: count for code, count in rows}


# --- what an activity type needs -----------------------------------------------------------


def needed_capabilities(*, carrier_id: uuid.UUID, activity_types=None) -> dict[str, frozenset[str]]:
    """The capabilities each activity type needs of its combination: the carrier's choice,
    else the default; switched-off capabilities are not needed. With activity_types: those
    types only (each present, maybe needing nothing); without: every type that needs one."""
    stored = {
        row.activity_type: frozenset(row.kenmerken or ())
        for row in db.session.scalars(
            select(ActivityNeeds).where(ActivityNeeds.transporteur_id == carrier_id)
        )
    }
    merged = {**DEFAULT_NEEDS, **stored}
    active = {item.code for item in catalogue(carrier_id=carrier_id, active_only=True)}
    if activity_types is None:
        needs = {kind: codes & active for kind, codes in merged.items()}
        return {kind: codes for kind, codes in needs.items() if codes}
    return {kind: merged.get(kind, frozenset()) & active for kind in activity_types}


def needs_types(*, carrier_id: uuid.UUID) -> list[str]:
    """The activity types whose needs the carrier has set."""
    return list(
        db.session.scalars(
            select(ActivityNeeds.activity_type).where(ActivityNeeds.transporteur_id == carrier_id)
        )
    )


def set_needs(
    *, carrier_id: uuid.UUID, activity_type: str, kenmerken, actor: Actor
) -> frozenset[str]:
    """What activity_type needs from now on (capability codes of the catalogue)."""
    errors: list[dict] = []
    kind = (activity_type or "").strip()
    if not kind or len(kind) > 64:
        errors.append({"field": "activity_type", "code": "required", "message": "is required"})
    known = {item.code for item in catalogue(carrier_id=carrier_id, active_only=True)}
    codes = frozenset(kenmerken or ())
    for code in sorted(codes - known):
        errors.append(
            {
                "field": "kenmerken",
                "code": "unknown_capability",
                "message": f"{code!r} is not a capability of the catalogue",
                "params": {"code": code},
            }
        )
    if errors:
        raise ValidationFailed(errors)
    row = db.session.scalar(
        select(ActivityNeeds).where(
            ActivityNeeds.transporteur_id == carrier_id, ActivityNeeds.activity_type == kind
        )
    )
    old = sorted(row.kenmerken) if row else sorted(DEFAULT_NEEDS.get(kind, ()))
    if row is None:
        row = ActivityNeeds(transporteur_id=carrier_id, id=uuid.uuid4(), activity_type=kind)
        db.session.add(row)
    row.kenmerken = sorted(codes)
    row.updated_at = utcnow()
    db.session.flush()
    if old != sorted(codes):
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="activity_needs",
            entity_id=row.id,
            action="updated",
            changes={"activity_type": [kind, kind], "kenmerken": [old, sorted(codes)]},
        )
    return codes
