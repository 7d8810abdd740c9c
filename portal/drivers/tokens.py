"""Driver credentials for the API: access tokens (JWT), rotating refresh tokens, the grants
that hand them out (a password, a one-time activation code: pairing.py makes those, a refresh
token), and signing a phone out.

A separate module from service.py because it is the token machinery of one client, the
driver app, with its own rules (rotation with a grace window, reuse detection).
"""

from __future__ import annotations

import secrets
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime

import jwt
from flask import current_app
from sqlalchemy import Uuid, bindparam, select, update

from portal import reads
from portal.accounts.credentials import (
    check_throttle,
    clear_failures,
    record_failure,
    sha256,
    verify_password,
)
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.drivers import pairing
from portal.drivers.models import ActivationCode, Driver, RefreshToken
from portal.drivers.service import get_driver
from portal.errors import DomainError
from portal.extensions import db
from portal.hooks import Hook
from portal.tenancy import activate, found_by, found_row, lookup
from portal.types import utcnow

JWT_ALGORITHM = "HS256"
JWT_ISSUER = "rijplan"
REFRESH_PREFIX = "rrt_"


class InvalidGrant(DomainError):
    """RFC 6749 invalid_grant: the code, token or password is not (or no longer) valid."""

    status = 400
    title = "Invalid grant"


@dataclass(frozen=True)
class AccessClaims:
    carrier_id: uuid.UUID
    driver_id: uuid.UUID
    token_version: int
    expires_at: float = field(default=0.0, compare=False)  # the token's exp, epoch seconds


@dataclass(frozen=True)
class TokenPair:
    access_token: str
    expires_in: int
    refresh_token: str
    user_token: str


# --- access tokens ---------------------------------------------------------------------


def _jwt_key() -> str:
    return current_app.config.get("JWT_SECRET_KEY") or current_app.config["SECRET_KEY"]


def issue_access_token(driver: Driver) -> tuple[str, int]:
    ttl = current_app.config["ACCESS_TOKEN_TTL"]
    now = utcnow()
    claims = {
        "iss": JWT_ISSUER,
        "sub": str(driver.id),
        "tid": str(driver.transporteur_id),
        "ver": driver.token_version,
        "iat": int(now.timestamp()),
        "exp": int((now + ttl).timestamp()),
        "typ": "access",
    }
    return jwt.encode(claims, _jwt_key(), algorithm=JWT_ALGORITHM), int(ttl.total_seconds())


# Checked access tokens, per process: a driver's phone sends the same token with every
# poll for its lifetime (ACCESS_TOKEN_TTL), and checking its signature and claims again
# costs more than the rest of a 304. Keyed by the token and the key that verified it; each
# entry holds until the token's expiry. Revocation is not the token's business: the
# driver's row is read with every request (session_query).
_checked: dict[tuple[str, str], tuple[AccessClaims, float]] = {}
_CHECKED_MAX = 10_000


def decode_access_token(token: str) -> AccessClaims | None:
    """The claims of a valid, unexpired access token; None for anything else."""
    key = (token, _jwt_key())
    kept = _checked.get(key)
    if kept is not None:
        if time.time() < kept[1]:
            return kept[0]
        _checked.pop(key, None)
        return None
    claims = _decode(token, key[1])
    if claims is not None:
        if len(_checked) >= _CHECKED_MAX:
            _checked.clear()
        _checked[key] = claims
        return claims[0]
    return None


def _decode(token: str, secret: str) -> tuple[AccessClaims, float] | None:
    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=[JWT_ALGORITHM],
            issuer=JWT_ISSUER,
            options={"require": ["exp", "iat", "sub", "tid", "iss"]},
        )
        if claims.get("typ") != "access":
            return None
        checked = AccessClaims(
            carrier_id=uuid.UUID(claims["tid"]),
            driver_id=uuid.UUID(claims["sub"]),
            token_version=int(claims.get("ver", 0)),
            expires_at=float(claims["exp"]),
        )
        return checked, checked.expires_at
    except (jwt.PyJWTError, ValueError, TypeError, KeyError):
        return None


@dataclass(frozen=True)
class DriverSession:
    """What an API request needs of the driver its access token speaks for: one small row."""

    actief: bool
    token_version: int
    user_token: str
    naam: str


_SESSION = select(Driver.actief, Driver.token_version, Driver.user_token, Driver.naam).where(
    Driver.transporteur_id == bindparam("tid", type_=Uuid, required=False),
    Driver.id == bindparam("did", type_=Uuid, required=False),
)


def session_query(claims: AccessClaims) -> reads.Query:
    """The statement that checks an access token's driver, for reads.read() (the driver's
    poll sends it in the same round trip as the list's fingerprint)."""
    return reads.Query(_SESSION, {"tid": claims.carrier_id, "did": claims.driver_id})


def session_for(claims: AccessClaims, rows: list[tuple]) -> DriverSession | None:
    """The driver of session_query's rows, if the token still speaks for it (active, and
    not signed out since: the token's version is the driver's)."""
    if not rows:
        return None
    session = DriverSession(*rows[0])
    if not session.actief or session.token_version != claims.token_version:
        return None
    return session


def driver_for_claims(claims: AccessClaims) -> DriverSession | None:
    """The active driver an access token speaks for (None if deactivated or signed out)."""
    (rows,) = reads.read(claims.carrier_id, session_query(claims))
    return session_for(claims, rows)


# --- grants ----------------------------------------------------------------------------


def _new_refresh_token(driver: Driver, family_id: uuid.UUID) -> str:
    token = REFRESH_PREFIX + secrets.token_urlsafe(32)
    db.session.add(
        RefreshToken(
            transporteur_id=driver.transporteur_id,
            chauffeur_id=driver.id,
            family_id=family_id,
            token_hash=sha256(token),
            verloopt_op=utcnow() + current_app.config["REFRESH_TOKEN_TTL"],
        )
    )
    return token


def _pair(driver: Driver, family_id: uuid.UUID | None = None) -> TokenPair:
    access, expires_in = issue_access_token(driver)
    refresh = _new_refresh_token(driver, family_id or uuid.uuid4())
    db.session.flush()
    return TokenPair(access, expires_in, refresh, driver.user_token)


def password_grant(*, username: str, password: str, ip: str | None) -> TokenPair:
    """Sign a driver in with email and password."""
    email = username.strip().lower()
    check_throttle(scope="driver", identity=email, ip=ip)
    found = lookup(
        db.session,
        "rijplan_chauffeurs_met_email",
        select(Driver.transporteur_id, Driver.id)
        .where(Driver.email == email, Driver.actief)
        .limit(5),
        email=email,
    )
    candidates = [found_row(db.session, Driver, *row) for row in found]
    match = None
    for driver in candidates or [None]:
        if verify_password(driver.password_hash if driver else None, password) and driver:
            match = driver
            break
    if match is None:
        activate(db.session, None)  # no carrier's: nobody signed in
        record_failure(scope="driver", identity=email, ip=ip)
        raise InvalidGrant("Email address or password is incorrect.")
    clear_failures(scope="driver", identity=email, ip=ip)
    activate(db.session, match.transporteur_id)
    return _pair(match)


def activation_grant(*, code: str, ip: str | None) -> TokenPair:
    """Pair a phone: exchange a one-time activation code for tokens. A code that two
    carriers hold (see create_activation_code) pairs neither: the office makes a new one."""
    code = pairing.normalise_code(code)
    check_throttle(scope="activation", identity=None, ip=ip)
    found = pairing.code_holders(sha256(code))
    if len(found) > 1:
        raise InvalidGrant("This activation code can not be used; ask the office for a new one.")
    row = found_row(db.session, ActivationCode, *found[0]) if found else None
    now = utcnow()
    if row is None or row.gebruikt_op is not None or row.verloopt_op <= now:
        record_failure(scope="activation", identity=None, ip=ip)
        raise InvalidGrant("This activation code is unknown, used or expired.")
    activate(db.session, row.transporteur_id)
    driver = get_driver(carrier_id=row.transporteur_id, driver_id=row.chauffeur_id)
    if not driver.actief:
        raise InvalidGrant("This activation code is unknown, used or expired.")
    row.gebruikt_op = now
    return _pair(driver)


def refresh_grant(*, refresh_token: str) -> TokenPair:
    """Rotate a refresh token. A token reused within the grace window still works (its
    answer may have been lost on a bad network); reused later, it revokes its family."""
    row = found_by(
        db.session,
        RefreshToken,
        "rijplan_refresh_token",
        RefreshToken.token_hash,
        sha256(refresh_token),
    )
    now = utcnow()
    if row is None or row.ingetrokken_op is not None or row.verloopt_op <= now:
        raise InvalidGrant("This refresh token is unknown, revoked or expired.")
    activate(db.session, row.transporteur_id)
    if (
        row.geroteerd_op is not None
        and now - row.geroteerd_op > current_app.config["REFRESH_TOKEN_GRACE"]
    ):
        _revoke_family(row, now)
        raise InvalidGrant("This refresh token was already used; sign in again.")
    driver = get_driver(carrier_id=row.transporteur_id, driver_id=row.chauffeur_id)
    if not driver.actief:
        raise InvalidGrant("This driver is deactivated.")
    if row.geroteerd_op is None:
        row.geroteerd_op = now
    return _pair(driver, row.family_id)


def _revoke_family(row: RefreshToken, now: datetime) -> None:
    db.session.execute(
        update(RefreshToken)
        .where(
            RefreshToken.transporteur_id == row.transporteur_id,
            RefreshToken.family_id == row.family_id,
            RefreshToken.ingetrokken_op.is_(None),
        )
        .values(ingetrokken_op=now)
    )


def revoke(*, token: str) -> None:
    """RFC 7009: revoke a refresh token (and its family); unknown tokens are ignored."""
    row = found_by(
        db.session, RefreshToken, "rijplan_refresh_token", RefreshToken.token_hash, sha256(token)
    )
    if row is None:
        return
    activate(db.session, row.transporteur_id)
    _revoke_family(row, utcnow())


def sign_out_everywhere(*, carrier_id: uuid.UUID, driver_id: uuid.UUID) -> None:
    """Refuse every token of the driver: for a lost phone."""
    driver = get_driver(carrier_id=carrier_id, driver_id=driver_id)
    driver.token_version += 1
    db.session.execute(
        update(RefreshToken)
        .where(
            RefreshToken.transporteur_id == carrier_id,
            RefreshToken.chauffeur_id == driver_id,
            RefreshToken.ingetrokken_op.is_(None),
        )
        .values(ingetrokken_op=utcnow())
    )


# --- a driver's phone, as the office manages it -----------------------------------------


def refuse_tokens(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor) -> None:
    """A listener of drivers.deactivated: every token of the driver who left is refused."""
    sign_out_everywhere(carrier_id=carrier_id, driver_id=driver_id)


phone_signed_out = Hook(
    "drivers.phone_signed_out",
    "A driver's phone was signed out (lost or stolen): listener(carrier_id=, driver_id=, "
    "actor=), in the same transaction, after its tokens are refused (messages: forget the "
    "phone's push subscriptions).",
)


def sign_out_phone(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor) -> Driver:
    """A lost phone: every refresh token revoked, every access token refused, and what other
    domains keep of the phone forgotten (phone_signed_out); the driver stays active."""
    driver = get_driver(carrier_id=carrier_id, driver_id=driver_id)
    sign_out_everywhere(carrier_id=carrier_id, driver_id=driver.id)
    phone_signed_out(carrier_id=carrier_id, driver_id=driver.id, actor=actor)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="driver",
        entity_id=driver.id,
        action="signed_out",
    )
    return driver
