"""Pairing a driver's phone: the one-time activation code the office makes (shown as QR
code and text), which the phone exchanges for tokens (tokens.activation_grant).

A code is typed before the carrier is known, so it is found through the owner's look-up
function, which sees every carrier's codes.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime

from flask import current_app
from sqlalchemy import select, update

from portal.accounts.credentials import sha256
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.drivers.models import ActivationCode, Driver
from portal.drivers.service import get_driver, get_driver_by_token
from portal.errors import ValidationFailed
from portal.extensions import db
from portal.tenancy import lookup
from portal.types import utcnow

# Unambiguous characters only: a code may be typed from a screen. 10 of 32: 50 bits.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10
# Draws of a code that no carrier holds: with a million codes stored, one draw in a billion
# meets one, so a second draw is already rare and a fifth never needed.
CODE_ATTEMPTS = 5
CODE_LOOKUP = "rijplan_activatiecode"


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def code_holders(code_hash: str) -> list[tuple]:
    """The (carrier, id) of the activation codes with this hash, of any carrier (at most
    two: one is a match, two are ambiguous)."""
    fallback = (
        select(ActivationCode.transporteur_id, ActivationCode.id)
        .where(ActivationCode.code_hash == code_hash)
        .limit(2)
    )
    return lookup(db.session, CODE_LOOKUP, fallback, v=code_hash)


def create_activation_code(*, carrier_id: uuid.UUID, user_token: str) -> tuple[str, datetime]:
    """A one-time code that pairs a phone with the driver; earlier unused codes lapse.

    A code is typed before the carrier is known, and is short (50 bits), so two carriers
    could draw the same one; the database holds it unique per carrier only (a Citus
    distributed table can not hold it unique across carriers). So a code is drawn again
    while any carrier's code, used, expired or not, has its hash (asked through the owner's
    look-up function, which sees every carrier's). Two issued at the same instant could
    still meet; activation_grant then refuses the code rather than guess a carrier."""
    driver = get_driver_by_token(carrier_id=carrier_id, user_token=user_token)
    if not driver.actief:
        raise ValidationFailed(
            [{"field": "user_token", "code": "driver_inactive", "message": "driver is deactivated"}]
        )
    now = utcnow()
    db.session.execute(
        update(ActivationCode)
        .where(
            ActivationCode.transporteur_id == carrier_id,
            ActivationCode.chauffeur_id == driver.id,
            ActivationCode.gebruikt_op.is_(None),
        )
        .values(verloopt_op=now)
    )
    for _ in range(CODE_ATTEMPTS):
        code = _new_code()
        if not code_holders(sha256(code)):
            break
    else:
        raise RuntimeError(f"{CODE_ATTEMPTS} activation codes drawn, every one taken")
    expires_at = now + current_app.config["ACTIVATION_CODE_TTL"]
    db.session.add(
        ActivationCode(
            transporteur_id=carrier_id,
            chauffeur_id=driver.id,
            code_hash=sha256(code),
            verloopt_op=expires_at,
        )
    )
    db.session.flush()
    return code, expires_at


def normalise_code(code: str) -> str:
    return "".join(ch for ch in code.upper() if ch.isalnum())


def create_pairing_code(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor
) -> tuple[Driver, str, datetime]:
    """A one-time activation code for the driver's phone; earlier unused codes lapse."""
    driver = get_driver(carrier_id=carrier_id, driver_id=driver_id)
    code, expires_at = create_activation_code(carrier_id=carrier_id, user_token=driver.user_token)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="driver",
        entity_id=driver.id,
        action="pairing_code",
        changes={"geldig_tot": [None, expires_at]},
    )
    return driver, code, expires_at
