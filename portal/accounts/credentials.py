"""Credentials of people: password hashes and their rules, the throttle on failed
sign-ins (portal users and drivers alike), and the signed "known device" cookie.

Apart from service.py (carriers, users, API keys) because these are the rules every sign-in
shares, the drivers' app's included (portal.drivers.tokens).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError
from flask import current_app
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import delete, func, select

from portal.accounts.models import LoginAttempt
from portal.errors import DomainError, ValidationFailed
from portal.extensions import db
from portal.types import utcnow

MIN_PASSWORD_LENGTH = 10


class TooManyAttempts(DomainError):
    status = 429
    title = "Too many attempts"


def normalise_email(email: str) -> str:
    """An email address as stored and compared: trimmed, lower case."""
    return email.strip().lower()


# --- passwords -------------------------------------------------------------------------


def _hasher() -> PasswordHasher:
    profile = current_app.config.get("PASSWORD_HASH_PROFILE", "RFC_9106_LOW_MEMORY")
    return PasswordHasher.from_parameters(getattr(profiles, profile))


def hash_password(password: str) -> str:
    """An argon2id hash of password."""
    return _hasher().hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """True when password matches; spends the same work when there is no hash."""
    hasher = _hasher()
    try:
        return hasher.verify(password_hash or _dummy_hash(), password) and bool(password_hash)
    except (VerificationError, InvalidHashError):
        return False


_DUMMY: dict[str, str] = {}


def _dummy_hash() -> str:
    profile = current_app.config.get("PASSWORD_HASH_PROFILE", "RFC_9106_LOW_MEMORY")
    if profile not in _DUMMY:
        _DUMMY[profile] = _hasher().hash(secrets.token_urlsafe(16))
    return _DUMMY[profile]


def check_password_rules(password: str, field: str = "password") -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationFailed(
            [
                {
                    "field": field,
                    "code": "password_too_short",
                    "message": f"at least {MIN_PASSWORD_LENGTH} characters",
                }
            ]
        )


def sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


# --- throttling ------------------------------------------------------------------------
#
# Failed sign-ins are counted in the database (every app process sees them), as hashes of
# what they name, over a sliding window:
# - per account and client address (LOGIN_THROTTLE, 5): guessing from one address stops;
#   an attacker elsewhere who knows the email does not lock its owner out;
# - per account, from any address (LOGIN_THROTTLE_ACCOUNT, 20): guessing spread over many
#   addresses stops too. A portal user's browser that signed in before (a signed "known
#   device" cookie) is not held by it, only by its own count per device (5), so a
#   distributed attack does not keep the owner out either;
# - per client address (LOGIN_THROTTLE_IP, 30): one address trying many accounts.
# A success clears the counts of that account from that address or device only: the
# owner's sign-in does not give an attacker elsewhere a fresh start.


def _attempt_keys(
    scope: str, identity: str | None, ip: str | None, device: str | None = None
) -> list[tuple[str, tuple]]:
    config = current_app.config
    keys = []
    if identity is not None:
        who = f"{scope}:id:{identity.strip().lower()}"
        if device is not None:
            keys.append((sha256(f"{who}:device:{device}"), config["LOGIN_THROTTLE"]))
        else:
            keys.append((sha256(f"{who}:ip:{ip or '-'}"), config["LOGIN_THROTTLE"]))
            keys.append((sha256(who), config["LOGIN_THROTTLE_ACCOUNT"]))
    if ip:
        keys.append((sha256(f"ip:{ip}"), config["LOGIN_THROTTLE_IP"]))
    return keys


def check_throttle(
    *, scope: str, identity: str | None, ip: str | None, device: str | None = None
) -> None:
    """Refuse when too many recent failures came for this account from this client (its
    address, or its known device), for this account from anywhere, or from this address."""
    now = utcnow()
    for key_hash, (limit, window) in _attempt_keys(scope, identity, ip, device):
        since = now - window
        stmt = select(func.count(), func.min(LoginAttempt.at)).where(
            LoginAttempt.key_hash == key_hash, LoginAttempt.at > since
        )
        count, oldest = db.session.execute(stmt).one()
        if count >= limit:
            wait = max(1, int(((oldest + window) - now).total_seconds() // 60) + 1)
            raise TooManyAttempts(
                f"Too many failed sign-in attempts. Try again in {wait} minutes.",
                retry_after_minutes=wait,
            )


def record_failure(
    *, scope: str, identity: str | None, ip: str | None, device: str | None = None
) -> None:
    """Count a failed sign-in; old records are cleaned up as we go."""
    now = utcnow()
    for key_hash, _ in _attempt_keys(scope, identity, ip, device):
        db.session.add(LoginAttempt(key_hash=key_hash, at=now))
    db.session.execute(delete(LoginAttempt).where(LoginAttempt.at < now - timedelta(days=1)))


def clear_failures(*, scope: str, identity: str, ip: str | None, device: str | None = None) -> None:
    """A success: this client's own count for the account starts again."""
    own = _attempt_keys(scope, identity, ip, device)[0][0]
    db.session.execute(delete(LoginAttempt).where(LoginAttempt.key_hash == own))


_DEVICE_SALT = "rijplan-known-device"


def known_device_token(email: str) -> str:
    """A signed token for a browser that signed in as email: a later sign-in from it is
    held by its own count, not by failures elsewhere (a cookie, `KNOWN_DEVICE_COOKIE`)."""
    signer = URLSafeSerializer(current_app.config["SECRET_KEY"], salt=_DEVICE_SALT)
    return signer.dumps({"e": sha256(normalise_email(email))[:32], "d": secrets.token_hex(8)})


def known_device(token: str | None, email: str) -> str | None:
    """The device id in token if it is ours and was made for email, else None."""
    if not token:
        return None
    signer = URLSafeSerializer(current_app.config["SECRET_KEY"], salt=_DEVICE_SALT)
    try:
        found = signer.loads(token)
    except BadSignature:
        return None
    if not isinstance(found, dict) or found.get("e") != sha256(normalise_email(email))[:32]:
        return None
    device = found.get("d")
    return device if isinstance(device, str) else None
