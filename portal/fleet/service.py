"""Vehicles of a carrier: the only door to the voertuigen table.

Vehicle sessions (who drives what) live in portal/fleet/sessions.py; the QR sticker's signed
payload in portal/fleet/qr.py; Dutch licence plates in portal/fleet/kenteken.py; the rules
of a vehicle's fields and kinds in portal/fleet/rules.py; the capability catalogue, the
vehicles' capabilities and the activity types' needs in portal/fleet/catalogue.py, whose
reads other units take from here (capabilities_of, needed_capabilities, capability_names).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError

from portal.audit import service as audit
from portal.audit.service import SYSTEM, Actor
from portal.errors import DomainError, NotFound, ValidationFailed
from portal.extensions import db
from portal.fleet import catalogue, qr, sessions
from portal.fleet import kenteken as plates
from portal.fleet.catalogue import capabilities_of as capabilities_of
from portal.fleet.catalogue import capability_names as capability_names
from portal.fleet.catalogue import needed_capabilities as needed_capabilities
from portal.fleet.models import Vehicle
from portal.fleet.rules import check_capacity, check_identity, clean_fields
from portal.types import Expected, utcnow, version_stale

DUPLICATE = "already registered"
# Fields a planner or integration may change (kenteken is checked and normalised).
# kenmerken: the vehicle's capabilities by code with their parameters (all of them: they
# replace the ones it had); kooiaap: true or false adds or takes off the kooiaap capability.
EDITABLE = (
    "kenteken",
    "vlootnummer",
    "soort",
    "omschrijving",
    "capaciteit",
    "capaciteit_eenheid",
    "max_snelheid_kmh",
    "opmerkingen",
    "actief",
    "kenmerken",
    "kooiaap",
)


class PreconditionFailed(DomainError):
    """The If-Match ETag is stale: someone changed the vehicle meanwhile."""

    status = 412
    title = "Precondition failed"


@dataclass(frozen=True)
class VehicleFilters:
    """A selection of vehicles, ordered by licence plate (or fleet number)."""

    search: str | None = None  # in kenteken (dashes optional), vlootnummer and omschrijving
    actief: bool | None = None  # None: active and inactive
    soort: str | None = None
    kenteken: str | None = None  # exactly this plate, compared without dashes
    limit: int = 100
    offset: int = 0


@dataclass(frozen=True)
class VehiclePage:
    vehicles: list[Vehicle]
    total: int


def normalise_kenteken(kenteken: str) -> str:
    """Licence plates compare without dashes, spaces or case: 'bx-12-ab' is 'BX12AB'."""
    return plates.compact(kenteken)


def etag_of(vehicle: Vehicle) -> str:
    return f'"{vehicle.versie}"'


# --- checks: rules.py; a plate or fleet number taken --------------------------------------


def _taken(carrier_id: uuid.UUID, column, value: str, except_id: uuid.UUID | None = None):
    """The carrier's vehicle that already carries this plate (painted) or fleet number."""
    stmt = select(Vehicle).where(Vehicle.transporteur_id == carrier_id, column == value)
    if except_id is not None:
        stmt = stmt.where(Vehicle.id != except_id)
    return db.session.scalar(stmt)


def _taken_error() -> dict:
    return {"field": "kenteken", "code": "plate_taken", "message": DUPLICATE}


def _fleet_taken_error() -> dict:
    return {"field": "vlootnummer", "code": "fleet_number_taken", "message": DUPLICATE}


def _write_unique(
    apply: Callable[[], None], carrier_id: uuid.UUID, vlootnummer: str | None = None
) -> None:
    """Apply a change and flush it in a savepoint: a plate or fleet number stored meanwhile
    by a concurrent request (the unique constraints) is the same error at the field as one
    found before."""
    try:
        with db.session.begin_nested():
            apply()
            db.session.flush()
    except IntegrityError:
        taken = vlootnummer and _taken(carrier_id, Vehicle.vlootnummer, vlootnummer)
        raise ValidationFailed([_fleet_taken_error() if taken else _taken_error()]) from None
    except StaleDataError:
        raise _changed_meanwhile() from None


def _prepare(carrier_id: uuid.UUID, data: dict, vehicle: Vehicle | None):
    """The fields and capabilities of data checked against the vehicle as it is (None: a
    new one): (fields, capabilities or None when untouched, its capabilities now)."""
    errors: list[dict] = []
    clean = clean_fields(
        {k: v for k, v in data.items() if k not in ("kenmerken", "kooiaap")}, errors
    )
    current = (
        capabilities_of(carrier_id=carrier_id, vehicle_ids={vehicle.id})[vehicle.id]
        if vehicle
        else {}
    )
    caps = catalogue.wanted_capabilities(
        carrier_id=carrier_id, data=data, current=current, errors=errors
    )

    def now(name: str, default=None):
        return clean.get(name, getattr(vehicle, name) if vehicle else default)

    check_capacity(now("capaciteit"), now("capaciteit_eenheid"), errors)
    check_identity(now("kenteken"), now("vlootnummer"), now("soort", "vrachtwagen"), errors)
    except_id = vehicle.id if vehicle else None
    if clean.get("kenteken") and _taken(carrier_id, Vehicle.kenteken, clean["kenteken"], except_id):
        errors.append(_taken_error())
    fleet_number = clean.get("vlootnummer")
    if fleet_number and _taken(carrier_id, Vehicle.vlootnummer, fleet_number, except_id):
        errors.append(_fleet_taken_error())
    if errors:
        raise ValidationFailed(errors)
    return clean, caps, current


def _changed_meanwhile() -> PreconditionFailed:
    # The version column refused the write: another request saved the vehicle first.
    return PreconditionFailed("The vehicle changed meanwhile; fetch it again.")


# --- writes ------------------------------------------------------------------------------


def create_vehicle(
    *,
    carrier_id: uuid.UUID,
    kenteken: str | None,
    omschrijving: str | None = None,
    soort: str = "vrachtwagen",
    capaciteit: float | None = None,
    capaciteit_eenheid: str | None = None,
    kooiaap: bool = False,
    opmerkingen: str | None = None,
    vlootnummer: str | None = None,
    max_snelheid_kmh: int | None = None,
    kenmerken: dict | None = None,
    actor: Actor = SYSTEM,
) -> Vehicle:
    """A new vehicle; its plate is a Dutch one, stored as painted, unique within the carrier
    (an agricultural trailer may go without, on its fleet number)."""
    data = {
        "kenteken": kenteken,
        "vlootnummer": vlootnummer,
        "soort": soort,
        "omschrijving": omschrijving,
        "capaciteit": capaciteit,
        "capaciteit_eenheid": capaciteit_eenheid,
        "max_snelheid_kmh": max_snelheid_kmh,
        "opmerkingen": opmerkingen,
        "kenmerken": kenmerken or {},
    }
    if kooiaap:
        data["kooiaap"] = True
    clean, caps, _current = _prepare(carrier_id, data, None)
    vehicle = Vehicle(transporteur_id=carrier_id, id=uuid.uuid4(), actief=True, **clean)

    def apply() -> None:
        db.session.add(vehicle)
        db.session.flush()
        catalogue.store_vehicle_capabilities(
            carrier_id=carrier_id, vehicle_id=vehicle.id, wanted=caps or {}
        )

    _write_unique(apply, carrier_id, clean.get("vlootnummer"))
    changes = {name: [None, value] for name, value in clean.items() if value not in (None, False)}
    if caps:
        changes["kenmerken"] = [None, caps]
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="vehicle",
        entity_id=vehicle.id,
        action="created",
        changes=changes,
    )
    return vehicle


def update_vehicle(
    *,
    carrier_id: uuid.UUID,
    vehicle_id: uuid.UUID,
    data: dict,
    actor: Actor,
    expected_version: Expected = None,
) -> Vehicle:
    """Change the given fields; a stale expected_version is 412. Deactivating a vehicle ends
    its active session (its history stays)."""
    vehicle = get_vehicle(carrier_id=carrier_id, vehicle_id=vehicle_id)
    if version_stale(vehicle.versie, expected_version):
        raise PreconditionFailed("The vehicle changed since this version; fetch it again.")
    unknown = sorted(set(data) - set(EDITABLE))
    if unknown:
        raise ValidationFailed(
            [{"field": name, "code": "not_editable", "message": "not editable"} for name in unknown]
        )
    clean, caps, current = _prepare(carrier_id, data, vehicle)
    changes = {
        name: [getattr(vehicle, name), value]
        for name, value in clean.items()
        if getattr(vehicle, name) != value
    }
    if caps is not None and caps != current:
        changes["kenmerken"] = [current, caps]
    if not changes:
        return vehicle

    def apply() -> None:
        for name, (_old, new) in changes.items():
            if name != "kenmerken":
                setattr(vehicle, name, new)
        vehicle.updated_at = utcnow()  # a new version also when only capabilities change
        if "kenmerken" in changes:
            catalogue.store_vehicle_capabilities(
                carrier_id=carrier_id, vehicle_id=vehicle.id, wanted=caps
            )

    _write_unique(apply, carrier_id, clean.get("vlootnummer"))
    if changes.get("actief") == [True, False]:
        sessions.end_vehicle_sessions(carrier_id=carrier_id, vehicle_id=vehicle.id, actor=actor)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="vehicle",
        entity_id=vehicle.id,
        action="updated",
        changes=changes,
    )
    return vehicle


def set_active(
    *, carrier_id: uuid.UUID, vehicle_id: uuid.UUID, actief: bool, actor: Actor
) -> Vehicle:
    """(De)activate a vehicle; deactivating ends its active session, history is kept."""
    return update_vehicle(
        carrier_id=carrier_id, vehicle_id=vehicle_id, data={"actief": actief}, actor=actor
    )


def rotate_qr(*, carrier_id: uuid.UUID, vehicle_id: uuid.UUID, actor: Actor) -> Vehicle:
    """A new QR sticker version: every older sticker of this vehicle stops working."""
    vehicle = get_vehicle(carrier_id=carrier_id, vehicle_id=vehicle_id)
    old = vehicle.qr_versie

    def apply() -> None:
        vehicle.qr_versie = old + 1
        vehicle.updated_at = utcnow()

    _write_unique(apply, carrier_id)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="vehicle",
        entity_id=vehicle.id,
        action="qr_rotated",
        changes={"qr_versie": [old, vehicle.qr_versie]},
    )
    return vehicle


# --- reads -------------------------------------------------------------------------------


def get_vehicle(*, carrier_id: uuid.UUID, vehicle_id: uuid.UUID) -> Vehicle:
    """The carrier's vehicle; NotFound when absent or another carrier's."""
    vehicle = db.session.scalar(
        select(Vehicle).where(Vehicle.transporteur_id == carrier_id, Vehicle.id == vehicle_id)
    )
    if vehicle is None:
        raise NotFound("vehicle not found")
    return vehicle


def list_vehicles(*, carrier_id: uuid.UUID, active_only: bool = False) -> list[Vehicle]:
    """Every vehicle of the carrier (or the active ones), by licence plate (or fleet number)."""
    stmt = select(Vehicle).where(Vehicle.transporteur_id == carrier_id).order_by(_label_order())
    if active_only:
        stmt = stmt.where(Vehicle.actief)
    return list(db.session.scalars(stmt))


def _label_order():
    # NULLs sort apart on SQLite and PostgreSQL: a vehicle without a plate by fleet number.
    return func.coalesce(Vehicle.kenteken, Vehicle.vlootnummer)


def _compact_column():
    return func.upper(func.replace(Vehicle.kenteken, "-", ""))


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def find_vehicles(*, carrier_id: uuid.UUID, filters: VehicleFilters) -> VehiclePage:
    """A page of the carrier's vehicles by licence plate, and the size of the selection."""
    where = [Vehicle.transporteur_id == carrier_id]
    if filters.actief is not None:
        where.append(Vehicle.actief.is_(filters.actief))
    if filters.soort:
        where.append(Vehicle.soort == filters.soort)
    if filters.kenteken is not None:
        where.append(_compact_column() == plates.compact(filters.kenteken))
    search = (filters.search or "").strip()
    if search:
        loose = f"%{_escape_like(search.lower())}%"
        tight = f"%{_escape_like(plates.compact(search))}%"
        where.append(
            or_(
                _compact_column().like(tight, escape="\\"),
                func.lower(Vehicle.vlootnummer).like(loose, escape="\\"),
                func.lower(Vehicle.omschrijving).like(loose, escape="\\"),
            )
        )
    total = db.session.scalar(select(func.count()).select_from(Vehicle).where(*where)) or 0
    stmt = (
        select(Vehicle)
        .where(*where)
        .order_by(_label_order(), Vehicle.id)
        .limit(filters.limit)
        .offset(filters.offset)
    )
    return VehiclePage(vehicles=list(db.session.scalars(stmt)), total=total)


def plates_by_id(*, carrier_id: uuid.UUID, vehicle_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """The vehicles' labels for a page of rows, in one query: the licence plate, else the
    fleet number (Vehicle.label)."""
    ids = {i for i in vehicle_ids if i is not None}
    if not ids:
        return {}
    rows = db.session.execute(
        select(Vehicle.id, Vehicle.kenteken, Vehicle.vlootnummer).where(
            Vehicle.transporteur_id == carrier_id, Vehicle.id.in_(ids)
        )
    )
    return {row.id: row.kenteken or f"#{row.vlootnummer}" for row in rows}


def sticker_payload(vehicle: Vehicle) -> str:
    """What the QR sticker of this vehicle, in its current version, holds."""
    return qr.payload(
        carrier_id=vehicle.transporteur_id, vehicle_id=vehicle.id, versie=vehicle.qr_versie
    )


def history(*, carrier_id: uuid.UUID, vehicle_id: uuid.UUID):
    """The vehicle's audit trail, oldest first."""
    return audit.entries_for(carrier_id=carrier_id, entity="vehicle", entity_id=vehicle_id)
