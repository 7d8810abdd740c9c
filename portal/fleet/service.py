"""Vehicles of a carrier: the only door to the voertuigen table."""

from __future__ import annotations

import re
import uuid

from sqlalchemy import select

from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.fleet.models import Vehicle


def normalise_kenteken(kenteken: str) -> str:
    """Licence plates compare without dashes, spaces or case: 'bx-12-ab' is 'BX12AB'."""
    return re.sub(r"[^0-9A-Za-z]", "", kenteken).upper()


def create_vehicle(
    *, carrier_id: uuid.UUID, kenteken: str, omschrijving: str | None = None
) -> Vehicle:
    plate = normalise_kenteken(kenteken)
    if not plate or len(plate) > 12:
        raise ValidationFailed([{"field": "kenteken", "message": "not a licence plate"}])
    if db.session.scalar(
        select(Vehicle.id).where(Vehicle.transporteur_id == carrier_id, Vehicle.kenteken == plate)
    ):
        raise ValidationFailed([{"field": "kenteken", "message": "already registered"}])
    vehicle = Vehicle(transporteur_id=carrier_id, kenteken=plate, omschrijving=omschrijving)
    db.session.add(vehicle)
    db.session.flush()
    return vehicle


def get_vehicle(*, carrier_id: uuid.UUID, vehicle_id: uuid.UUID) -> Vehicle:
    vehicle = db.session.scalar(
        select(Vehicle).where(Vehicle.transporteur_id == carrier_id, Vehicle.id == vehicle_id)
    )
    if vehicle is None:
        raise NotFound("vehicle not found")
    return vehicle


def list_vehicles(*, carrier_id: uuid.UUID) -> list[Vehicle]:
    stmt = select(Vehicle).where(Vehicle.transporteur_id == carrier_id).order_by(Vehicle.kenteken)
    return list(db.session.scalars(stmt))


def plates_by_id(*, carrier_id: uuid.UUID, vehicle_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """Licence plates for a page of rows, in one query."""
    ids = {i for i in vehicle_ids if i is not None}
    if not ids:
        return {}
    rows = db.session.execute(
        select(Vehicle.id, Vehicle.kenteken).where(
            Vehicle.transporteur_id == carrier_id, Vehicle.id.in_(ids)
        )
    )
    return {row.id: row.kenteken for row in rows}
