"""Vehicle sessions: who drives which vehicle. The only door to the voertuig_sessies table.

A driver starts a session in the app (pending), scans the QR sticker in the cab (active) and
ends it (ended). Partial unique indexes hold that a vehicle has at most one active session
and a driver at most one, so two phones scanning at once leave exactly one active session:
the loser's flush hits the index and gets a clear 409 here, never a 500.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from portal import events as webhooks
from portal.audit.service import Actor
from portal.drivers import service as drivers
from portal.errors import Conflict, Forbidden, ValidationFailed
from portal.extensions import db
from portal.fleet import coupling_reads, qr, rules
from portal.fleet.models import Vehicle, VehicleSession
from portal.fleet.session_reads import (  # noqa: F401 (the door to the sessions, as before)
    SessionFilters,
    SessionPage,
    active_by_vehicle,
    active_of_driver,
    current_sessions,
    get_session,
    list_sessions,
)
from portal.types import utcnow

PENDING_TTL = timedelta(minutes=15)  # how long a started session waits for its scan

# Why a session ended (einde_reden).
ENDED_BY_DRIVER = "chauffeur"
ENDED_BY_OFFICE = "kantoor"
ENDED_REPLACED = "vervangen"
ENDED_VEHICLE_INACTIVE = "voertuig_gedeactiveerd"
ENDED_DRIVER_INACTIVE = "chauffeur_gedeactiveerd"


class QrRefused(ValidationFailed):
    """A scanned payload that does not start this session; `reden` says why."""

    title = "QR code refused"

    def __init__(self, reden: str, detail: str):
        super().__init__([{"field": "qr", "message": detail}], detail)
        self.extra = {"reden": reden}


class SessionConflict(Conflict):
    """The session, the vehicle or the driver is not in a state that allows this."""

    title = "Vehicle session conflict"


def is_expired(session: VehicleSession, now: datetime | None = None) -> bool:
    """A pending session whose scan did not come in time."""
    return session.status == "pending" and session.verloopt_op <= (now or utcnow())


# --- reads: session_reads.py (offered here too); the vehicle's active session --------------


def _active_of_vehicle(carrier_id: uuid.UUID, vehicle_id: uuid.UUID) -> VehicleSession | None:
    return db.session.scalar(
        select(VehicleSession).where(
            VehicleSession.transporteur_id == carrier_id,
            VehicleSession.vehicle_id == vehicle_id,
            VehicleSession.status == "active",
        )
    )


# --- writes ------------------------------------------------------------------------------


def _vehicle(carrier_id: uuid.UUID, vehicle_id: uuid.UUID) -> Vehicle | None:
    return db.session.scalar(
        select(Vehicle).where(Vehicle.transporteur_id == carrier_id, Vehicle.id == vehicle_id)
    )


def _plate(carrier_id: uuid.UUID, vehicle_id: uuid.UUID | None) -> str:
    if vehicle_id is None:
        return "?"
    vehicle = _vehicle(carrier_id, vehicle_id)
    return vehicle.label if vehicle else "?"


def _driver_name(carrier_id: uuid.UUID, chauffeur_id: uuid.UUID) -> str:
    return drivers.names_by_id(carrier_id=carrier_id, driver_ids={chauffeur_id}).get(
        chauffeur_id, "?"
    )


def _own(session: VehicleSession, chauffeur_id: uuid.UUID | None) -> None:
    """A driver acts on its own sessions only (chauffeur_id None: the office acts)."""
    if chauffeur_id is not None and session.chauffeur_id != chauffeur_id:
        raise Forbidden("A driver may only act on its own vehicle sessions.")


def _end(session: VehicleSession, actor: Actor, reden: str, now: datetime) -> None:
    session.status = "ended"
    session.beeindigd_op = now
    session.beeindigd_door = actor.label[:254]
    session.einde_reden = reden


def _busy_driver(carrier_id: uuid.UUID, active: VehicleSession) -> SessionConflict:
    plate = _plate(carrier_id, active.vehicle_id)
    return SessionConflict(
        f"This driver is already driving {plate}; end that session first.",
        reden="driver_busy",
        sessie_id=str(active.id),
        kenteken=plate,
    )


def _vehicle_in_use(carrier_id: uuid.UUID, active: VehicleSession, plate: str):
    name = _driver_name(carrier_id, active.chauffeur_id)
    return SessionConflict(
        f"{plate} is already being driven by {name}; they must end their session first.",
        reden="vehicle_in_use",
        sessie_id=str(active.id),
        kenteken=plate,
    )


def start_session(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    actor: Actor,
    vehicle_id: uuid.UUID | None = None,
) -> VehicleSession:
    """A pending session for the driver, waiting for the scan of a sticker (of vehicle_id,
    when given). A driver who still drives a vehicle must end that session first; an earlier
    pending session of the driver is ended as replaced."""
    active = active_of_driver(carrier_id=carrier_id, driver_id=driver_id)
    if active is not None:
        raise _busy_driver(carrier_id, active)
    if vehicle_id is not None:
        vehicle = _vehicle(carrier_id, vehicle_id)
        if vehicle is None:
            raise ValidationFailed([{"field": "vehicle_id", "message": "no such vehicle"}])
        if not vehicle.actief:
            raise ValidationFailed([{"field": "vehicle_id", "message": "vehicle is deactivated"}])
    now = utcnow()
    waiting = db.session.scalars(
        select(VehicleSession).where(
            VehicleSession.transporteur_id == carrier_id,
            VehicleSession.chauffeur_id == driver_id,
            VehicleSession.status == "pending",
        )
    )
    for earlier in waiting:
        _end(earlier, actor, ENDED_REPLACED, now)
    session = VehicleSession(
        transporteur_id=carrier_id,
        id=uuid.uuid4(),
        chauffeur_id=driver_id,
        vehicle_id=vehicle_id,
        status="pending",
        created_at=now,
        verloopt_op=now + PENDING_TTL,
    )
    db.session.add(session)
    db.session.flush()
    return session


def validate_session(
    *,
    carrier_id: uuid.UUID,
    session_id: uuid.UUID,
    payload: str,
    driver_id: uuid.UUID | None = None,
) -> VehicleSession:
    """Make a pending session active with the scanned sticker payload. A forged, damaged,
    rotated, other carrier's or other vehicle's sticker is QrRefused (422); a vehicle in use,
    a driver already driving, or a session not pending is SessionConflict (409)."""
    session = get_session(carrier_id=carrier_id, session_id=session_id, lock=True)
    _own(session, driver_id)
    if session.status != "pending":
        raise SessionConflict(
            f"This session is {session.status}; start a new one to scan again.",
            reden="not_pending",
            status_sessie=session.status,
        )
    now = utcnow()
    if is_expired(session, now):
        raise SessionConflict(
            "This session waited too long for its scan; start a new one.", reden="expired"
        )
    vehicle, sticker = _scanned_vehicle(carrier_id, session, payload)
    plate, vehicle_id = vehicle.label, vehicle.id
    # Friendly refusals first; the unique indexes decide races between these checks and now.
    busy = _active_of_vehicle(carrier_id, vehicle_id)
    if busy is not None:
        raise _vehicle_in_use(carrier_id, busy, plate)
    mine = active_of_driver(carrier_id=carrier_id, driver_id=session.chauffeur_id)
    if mine is not None:
        raise _busy_driver(carrier_id, mine)
    _activate(carrier_id, session, vehicle_id, plate, sticker.versie, now)
    webhooks.emit(db.session, carrier_id=carrier_id, type="voertuigsessie.actief", subject=session)
    return session


def read_sticker(carrier_id: uuid.UUID, payload: str):
    """The carrier's vehicle the scanned sticker names, and the sticker; QrRefused for a
    sticker that is not (or no longer) valid."""
    try:
        sticker = qr.read(payload)
    except qr.UnreadablePayload:
        raise QrRefused(
            "invalid", "This is not a valid Rijplan vehicle sticker (forged or damaged)."
        ) from None
    # Another carrier's sticker is answered as any sticker naming none of this carrier's
    # vehicles: the answer says nothing about other carriers.
    vehicle = _vehicle(carrier_id, sticker.vehicle_id) if sticker.carrier_id == carrier_id else None
    if vehicle is None:
        raise QrRefused("unknown_vehicle", "This QR code names none of your carrier's vehicles.")
    if sticker.versie != vehicle.qr_versie:
        raise QrRefused(
            "rotated",
            f"This sticker of {vehicle.label} has been replaced by a newer one; "
            "scan the current sticker or ask the office for one.",
        )
    return vehicle, sticker


def _scanned_vehicle(carrier_id: uuid.UUID, session: VehicleSession, payload: str):
    """The carrier's active vehicle the session starts on, and the sticker: the scanned
    vehicle, or for a trailer's sticker the motorised vehicle it is coupled to today (the
    session then drives that combination). QrRefused for a sticker that is not (or no
    longer) valid for this session, SessionConflict for a deactivated vehicle."""
    scanned, sticker = read_sticker(carrier_id, payload)
    vehicle = scanned
    if scanned.soort in rules.TOWED:
        vehicle = _tractor_of(carrier_id, scanned)
    if session.vehicle_id is not None and session.vehicle_id not in (vehicle.id, scanned.id):
        expected = _plate(carrier_id, session.vehicle_id)
        raise QrRefused(
            "other_vehicle",
            f"This QR code is of {scanned.label}, but the session was started for {expected}.",
        )
    if not vehicle.actief:
        raise SessionConflict(
            f"{vehicle.label} is deactivated and cannot be driven.", reden="vehicle_inactive"
        )
    return vehicle, sticker


def _tractor_of(carrier_id: uuid.UUID, towed: Vehicle) -> Vehicle:
    """The motorised vehicle towed is coupled to today; QrRefused when none."""
    today = coupling_reads.today_of(carrier_id)
    motor = coupling_reads.motor_of(carrier_id=carrier_id, towed_id=towed.id, day=today)
    if motor is None:
        raise QrRefused(
            "towed_not_coupled",
            f"{towed.label} is coupled to no motorised vehicle today: scan the sticker of "
            "the truck or tractor that pulls it.",
        )
    return motor


def _activate(
    carrier_id: uuid.UUID,
    session: VehicleSession,
    vehicle_id: uuid.UUID,
    plate: str,
    qr_version: int,
    now,
) -> None:
    """Make the session the vehicle's active one; another phone that won the race at the
    same moment is named in the SessionConflict."""
    driver_id = session.chauffeur_id
    try:
        with db.session.begin_nested():
            session.status = "active"
            session.vehicle_id = vehicle_id
            session.gestart_op = now
            session.qr_versie = qr_version
            db.session.flush()
    except IntegrityError:
        # Another phone won the race: name what it holds now.
        busy = _active_of_vehicle(carrier_id, vehicle_id)
        if busy is not None:
            raise _vehicle_in_use(carrier_id, busy, plate) from None
        mine = active_of_driver(carrier_id=carrier_id, driver_id=driver_id)
        if mine is not None:
            raise _busy_driver(carrier_id, mine) from None
        raise SessionConflict(
            "Another session became active at the same moment; try again.", reden="race"
        ) from None


def end_session(
    *,
    carrier_id: uuid.UUID,
    session_id: uuid.UUID,
    actor: Actor,
    driver_id: uuid.UUID | None = None,
) -> VehicleSession:
    """End a session (a pending one is called off): the vehicle and the driver are free."""
    session = get_session(carrier_id=carrier_id, session_id=session_id, lock=True)
    _own(session, driver_id)
    if session.status == "ended":
        raise SessionConflict("This session has already ended.", reden="ended")
    _end(session, actor, ENDED_BY_DRIVER if driver_id else ENDED_BY_OFFICE, utcnow())
    db.session.flush()
    return session


def _end_all(where: list, actor: Actor, reden: str) -> int:
    now = utcnow()
    open_ = list(
        db.session.scalars(
            select(VehicleSession).where(*where, VehicleSession.status.in_(("pending", "active")))
        )
    )
    for session in open_:
        _end(session, actor, reden, now)
    db.session.flush()
    return len(open_)


def end_vehicle_sessions(*, carrier_id: uuid.UUID, vehicle_id: uuid.UUID, actor: Actor) -> int:
    """End the vehicle's open sessions (it is deactivated); answers how many."""
    return _end_all(
        [VehicleSession.transporteur_id == carrier_id, VehicleSession.vehicle_id == vehicle_id],
        actor,
        ENDED_VEHICLE_INACTIVE,
    )


def free_the_vehicle(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor) -> None:
    """A listener of drivers.deactivated: the vehicle the driver who left drove is free."""
    end_driver_sessions(carrier_id=carrier_id, driver_id=driver_id, actor=actor)


def end_driver_sessions(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor) -> int:
    """End the driver's open sessions (e.g. the driver is deactivated); answers how many."""
    return _end_all(
        [
            VehicleSession.transporteur_id == carrier_id,
            VehicleSession.chauffeur_id == driver_id,
        ],
        actor,
        ENDED_DRIVER_INACTIVE,
    )
