"""A coupling recorded by a QR scan: a driver in an active session with a motorised vehicle
scans a trailer's sticker, and the trailer is coupled to it for today (bron qr_scan). The
other way round, a trailer's sticker scanned to start a session, is in sessions.py."""

from __future__ import annotations

import uuid

from portal.audit.service import Actor
from portal.errors import Forbidden
from portal.fleet import couplings, rules
from portal.fleet.coupling_models import Coupling
from portal.fleet.sessions import QrRefused, SessionConflict, get_session, read_sticker


def couple_by_scan(
    *,
    carrier_id: uuid.UUID,
    session_id: uuid.UUID,
    payload: str,
    actor: Actor,
    driver_id: uuid.UUID | None = None,
) -> Coupling:
    """Couple the trailer whose sticker was scanned to the session's vehicle for today (the
    carrier's calendar day). The session must be active and the driver's own; the sticker a
    valid one of a towed vehicle (QrRefused); the coupling as the rules allow
    (couplings.CouplingRefused)."""
    session = get_session(carrier_id=carrier_id, session_id=session_id)
    if driver_id is not None and session.chauffeur_id != driver_id:
        raise Forbidden("A driver may only act on its own vehicle sessions.")
    if session.status != "active":
        raise SessionConflict(
            "Couple a trailer in an active session: scan the cab's sticker first.",
            reden="not_active",
            status_sessie=session.status,
        )
    towed, _sticker = read_sticker(carrier_id, payload)
    if towed.soort not in rules.TOWED:
        raise QrRefused(
            "not_towed",
            f"{towed.label} is no trailer: scan the sticker of the trailer to couple.",
        )
    today = couplings.today_of(carrier_id)
    return couplings.couple(
        carrier_id=carrier_id,
        motor_id=session.vehicle_id,
        towed_id=towed.id,
        day=today,
        actor=actor,
        source="qr_scan",
    )
