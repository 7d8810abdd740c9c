"""Carriers, portal users and their sign-in, and API keys (password hashes, the throttle
and the known-device cookie: credentials.py)."""

from __future__ import annotations

import logging
import secrets
import time
import uuid
from datetime import timedelta
from zoneinfo import ZoneInfo

from flask import current_app, g
from sqlalchemy import select, update

from portal.accounts.credentials import (
    MIN_PASSWORD_LENGTH,
    check_throttle,
    clear_failures,
    hash_password,
    normalise_email,
    record_failure,
    sha256,
    verify_password,
)
from portal.accounts.models import (
    DEFAULT_SCOPES,
    ROLES,
    SCOPES,
    ApiKey,
    Carrier,
    User,
)
from portal.errors import DomainError, NotFound, ValidationFailed
from portal.extensions import db
from portal.tenancy import activate, carrier_scope, found_by, found_row, lookup
from portal.types import utcnow

logger = logging.getLogger(__name__)

API_KEY_PREFIX = "rpk_"


class InvalidCredentials(DomainError):
    status = 401
    title = "Invalid credentials"


# --- carriers and users ----------------------------------------------------------------


def create_carrier(*, naam: str, tijdzone: str = "Europe/Amsterdam") -> Carrier:
    """A new carrier (tenant)."""
    naam = naam.strip()
    if not naam:
        raise ValidationFailed([{"field": "naam", "code": "required", "message": "required"}])
    carrier = Carrier(id=uuid.uuid4(), naam=naam, tijdzone=tijdzone)
    # The row's own policy admits it only inside its own scope.
    with carrier_scope(db.session, carrier.id):
        db.session.add(carrier)
        db.session.flush()
    return carrier


def get_carrier(*, carrier_id: uuid.UUID) -> Carrier:
    carrier = db.session.scalar(select(Carrier).where(Carrier.id == carrier_id))
    if carrier is None:
        raise NotFound("carrier not found")
    return carrier


def current_carrier_of(carrier_id: uuid.UUID) -> Carrier:
    """The carrier row, looked up once per request."""
    cache = g.setdefault("carriers", {})
    if carrier_id not in cache:
        cache[carrier_id] = get_carrier(carrier_id=carrier_id)
    return cache[carrier_id]


# The carriers' time zones, kept per process: every list of a day asks for it (the driver's
# poll included), and it changes only in the carrier's settings, which forget it here at
# once; another process sees a change within ZONE_TTL seconds.
ZONE_TTL = 60.0
_zones: dict[uuid.UUID, tuple[ZoneInfo, float]] = {}


def carrier_zone(carrier_id: uuid.UUID) -> ZoneInfo:
    """The carrier's time zone (Europe/Amsterdam when it names none we know)."""
    now = time.monotonic()
    kept = _zones.get(carrier_id)
    if kept is not None and kept[1] > now:
        return kept[0]
    try:
        zone = ZoneInfo(current_carrier_of(carrier_id).tijdzone)
    except (KeyError, ValueError):
        zone = ZoneInfo("Europe/Amsterdam")
    _zones[carrier_id] = (zone, now + ZONE_TTL)
    return zone


def forget_zone(carrier_id: uuid.UUID) -> None:
    """The carrier's time zone changed: read it again at the next ask."""
    _zones.pop(carrier_id, None)


def create_user(
    *, carrier_id: uuid.UUID, email: str, password: str, rol: str, naam: str = ""
) -> User:
    """A portal user of carrier_id; the email is unique within the carrier."""
    email = normalise_email(email)
    errors = []
    if "@" not in email:
        errors.append(
            {"field": "email", "code": "email_invalid", "message": "not an email address"}
        )
    if rol not in ROLES:
        errors.append({"field": "rol", "code": "choice", "message": f"one of {', '.join(ROLES)}"})
    if len(password) < MIN_PASSWORD_LENGTH:
        errors.append(
            {
                "field": "password",
                "code": "password_too_short",
                "message": f"at least {MIN_PASSWORD_LENGTH} characters",
            }
        )
    if not errors and db.session.scalar(
        select(User.id).where(User.transporteur_id == carrier_id, User.email == email)
    ):
        errors.append({"field": "email", "code": "email_in_use", "message": "already in use"})
    if errors:
        raise ValidationFailed(errors)
    user = User(
        transporteur_id=carrier_id,
        email=email,
        naam=naam.strip() or email,
        password_hash=hash_password(password),
        rol=rol,
    )
    db.session.add(user)
    db.session.flush()
    return user


def authenticate_user(
    *, email: str, password: str, ip: str | None, device: str | None = None
) -> User:
    """The portal user with this email and password; the same error for every failure.
    device: credentials.known_device() of the browser's cookie, if it signed in as email before."""
    email = normalise_email(email)
    check_throttle(scope="portal", identity=email, ip=ip, device=device)
    found = lookup(
        db.session,
        "rijplan_gebruikers_met_email",
        select(User.transporteur_id, User.id).where(User.email == email, User.actief).limit(5),
        email=email,
    )
    candidates = [found_row(db.session, User, carrier_id, user_id) for carrier_id, user_id in found]
    match = None
    for user in candidates or [None]:
        if verify_password(user.password_hash if user else None, password) and user:
            match = user
            break
    if match is None:
        activate(db.session, None)  # no carrier's: nobody signed in
        record_failure(scope="portal", identity=email, ip=ip, device=device)
        raise InvalidCredentials("Email address or password is incorrect.")
    clear_failures(scope="portal", identity=email, ip=ip, device=device)
    activate(db.session, match.transporteur_id)
    match.laatst_ingelogd_op = utcnow()
    return match


def load_user(login_id: str) -> User | None:
    """The user of a session's login id, or None when it is stale (logged out, changed)."""
    try:
        carrier_part, user_part, version_part = login_id.split(":")
        carrier_id, user_id, version = (
            uuid.UUID(carrier_part),
            uuid.UUID(user_part),
            int(version_part),
        )
    except ValueError:
        return None
    with carrier_scope(db.session, carrier_id):
        user = db.session.scalar(
            select(User).where(User.transporteur_id == carrier_id, User.id == user_id)
        )
    if user is None or not user.actief or user.session_version != version:
        return None
    return user


def end_sessions(*, carrier_id: uuid.UUID, user_id: uuid.UUID) -> None:
    """End every session of the user: a copied cookie no longer works."""
    user = _get_user(carrier_id=carrier_id, user_id=user_id)
    user.session_version += 1


def set_language(*, carrier_id: uuid.UUID, user_id: uuid.UUID, taal: str) -> None:
    if taal not in current_app.config["LANGUAGES"]:
        raise ValidationFailed(
            [{"field": "taal", "code": "choice", "message": "unsupported language"}]
        )
    _get_user(carrier_id=carrier_id, user_id=user_id).taal = taal


def _get_user(*, carrier_id: uuid.UUID, user_id: uuid.UUID) -> User:
    user = db.session.scalar(
        select(User).where(User.transporteur_id == carrier_id, User.id == user_id)
    )
    if user is None:
        raise NotFound("user not found")
    return user


# --- API keys --------------------------------------------------------------------------


def create_api_key(
    *, carrier_id: uuid.UUID, naam: str, scopes: str | None = None
) -> tuple[ApiKey, str]:
    """A new key for an integration (every scope unless scopes names some); the plain key is
    returned this once only."""
    naam = naam.strip()
    if not naam:
        raise ValidationFailed([{"field": "naam", "code": "required", "message": "required"}])
    wanted = DEFAULT_SCOPES.split() if scopes is None else scopes.split()
    unknown = sorted(set(wanted) - set(SCOPES))
    if unknown:
        message = f"unknown: {', '.join(unknown)}; known: {DEFAULT_SCOPES}"
        raise ValidationFailed([{"field": "scopes", "code": "unknown_scopes", "message": message}])
    key = API_KEY_PREFIX + secrets.token_urlsafe(32)
    api_key = ApiKey(
        transporteur_id=carrier_id,
        naam=naam,
        prefix=key[:10],
        key_hash=sha256(key),
        scopes=" ".join(s for s in SCOPES if s in wanted),
    )
    db.session.add(api_key)
    db.session.flush()
    return api_key, key


# A key's last use is recorded this often at most: a busy integration does not write a row
# on every request.
LAST_USED_EVERY = timedelta(minutes=1)


def authenticate_api_key(key: str) -> ApiKey | None:
    """The active key matching this bearer value, or None; its last use is recorded."""
    api_key = found_by(db.session, ApiKey, "rijplan_api_key", ApiKey.key_hash, sha256(key))
    if api_key is None or api_key.ingetrokken_op is not None:
        return None
    now = utcnow()
    if api_key.laatst_gebruikt_op is None or now - api_key.laatst_gebruikt_op >= LAST_USED_EVERY:
        _record_use(api_key, now)
    return api_key


def _record_use(api_key: ApiKey, now) -> None:
    """Write the key's last use and commit it at once: the request's own transaction may
    never commit (a read) or roll back (a refused write), yet the key was used. Nothing else
    is in that transaction yet, only the lookup. The conditional UPDATE lets one of several
    concurrent requests write it."""
    carrier_id, key_id = api_key.transporteur_id, api_key.id
    activate(db.session, carrier_id)
    db.session.execute(
        update(ApiKey)
        .where(
            ApiKey.transporteur_id == carrier_id,
            ApiKey.id == key_id,
            (ApiKey.laatst_gebruikt_op.is_(None))
            | (ApiKey.laatst_gebruikt_op <= now - LAST_USED_EVERY),
        )
        .values(laatst_gebruikt_op=now)
        .execution_options(synchronize_session=False)
    )
    db.session.commit()


def user_names(*, carrier_id: uuid.UUID, user_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """The names of the carrier's portal users among user_ids, in one query."""
    ids = {user_id for user_id in user_ids if user_id is not None}
    if not ids:
        return {}
    rows = db.session.execute(
        select(User.id, User.naam).where(User.transporteur_id == carrier_id, User.id.in_(ids))
    )
    return {row.id: row.naam for row in rows}
