"""Reading vehicle sessions: one session, the active ones (per vehicle, per driver, all of
them with their plates) and a page of the history. Offered through fleet.sessions, the door
to the voertuig_sessies table, which writes them."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import and_, func, select

from portal.errors import NotFound
from portal.extensions import db
from portal.fleet.models import Vehicle, VehicleSession


@dataclass(frozen=True)
class SessionFilters:
    """A selection of sessions, newest first."""

    chauffeur_id: uuid.UUID | None = None
    vehicle_id: uuid.UUID | None = None
    statuses: tuple[str, ...] = ()
    limit: int = 100
    offset: int = 0


@dataclass(frozen=True)
class SessionPage:
    sessions: list[VehicleSession]
    total: int


def get_session(
    *, carrier_id: uuid.UUID, session_id: uuid.UUID, lock: bool = False
) -> VehicleSession:
    """The carrier's session; NotFound when absent or another carrier's."""
    stmt = select(VehicleSession).where(
        VehicleSession.transporteur_id == carrier_id, VehicleSession.id == session_id
    )
    if lock:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    session = db.session.scalar(stmt)
    if session is None:
        raise NotFound("vehicle session not found")
    return session


def active_of_driver(*, carrier_id: uuid.UUID, driver_id: uuid.UUID) -> VehicleSession | None:
    """The driver's active session, if any."""
    return db.session.scalar(
        select(VehicleSession).where(
            VehicleSession.transporteur_id == carrier_id,
            VehicleSession.chauffeur_id == driver_id,
            VehicleSession.status == "active",
        )
    )


def active_by_vehicle(
    *, carrier_id: uuid.UUID, vehicle_ids: set[uuid.UUID]
) -> dict[uuid.UUID, VehicleSession]:
    """The active session of each of these vehicles that has one, in one query."""
    ids = {i for i in vehicle_ids if i is not None}
    if not ids:
        return {}
    rows = db.session.scalars(
        select(VehicleSession).where(
            VehicleSession.transporteur_id == carrier_id,
            VehicleSession.status == "active",
            VehicleSession.vehicle_id.in_(ids),
        )
    )
    return {row.vehicle_id: row for row in rows}


def current_sessions(*, carrier_id: uuid.UUID) -> list[tuple[VehicleSession, str]]:
    """Who drives what right now: every active session with its vehicle's label (plate, else
    #fleet number), by that label."""
    label = func.coalesce(Vehicle.kenteken, "#" + func.coalesce(Vehicle.vlootnummer, ""))
    stmt = (
        select(VehicleSession, label)
        .join(
            Vehicle,
            and_(
                Vehicle.transporteur_id == VehicleSession.transporteur_id,
                Vehicle.id == VehicleSession.vehicle_id,
            ),
        )
        .where(VehicleSession.transporteur_id == carrier_id, VehicleSession.status == "active")
        .order_by(label)
    )
    return [(row[0], row[1]) for row in db.session.execute(stmt)]


def list_sessions(*, carrier_id: uuid.UUID, filters: SessionFilters) -> SessionPage:
    """A page of the carrier's sessions, newest first, and the size of the selection."""
    where = [VehicleSession.transporteur_id == carrier_id]
    if filters.chauffeur_id is not None:
        where.append(VehicleSession.chauffeur_id == filters.chauffeur_id)
    if filters.vehicle_id is not None:
        where.append(VehicleSession.vehicle_id == filters.vehicle_id)
    if filters.statuses:
        where.append(VehicleSession.status.in_(filters.statuses))
    total = db.session.scalar(select(func.count()).select_from(VehicleSession).where(*where)) or 0
    stmt = (
        select(VehicleSession)
        .where(*where)
        .order_by(VehicleSession.created_at.desc(), VehicleSession.id)
        .limit(filters.limit)
        .offset(filters.offset)
    )
    return SessionPage(sessions=list(db.session.scalars(stmt)), total=total)
