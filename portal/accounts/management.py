"""The admin's door to a carrier's portal users, API keys and settings; every change audited.

Apart from service.py (sign-in, credentials) because this is the carrier's own administration:
invitations and one-time password links, roles with the last-admin rule, and key
management. The carrier's settings are carrier_settings.py's (offered here as before).
"""

from __future__ import annotations

import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import func, select

from portal.accounts.carrier_settings import (  # noqa: F401 (the admin's door, as before)
    CarrierSettings,
    update_settings,
    valid_time_zone,
)
from portal.accounts.credentials import (
    check_password_rules,
    hash_password,
    normalise_email,
    sha256,
)
from portal.accounts.models import ROLES, SCOPES, ApiKey, User
from portal.accounts.service import create_api_key
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.audit.switching import Switchable, switch_off, switch_on
from portal.errors import DomainError, NotFound, ValidationFailed
from portal.extensions import db
from portal.tenancy import activate, found_by
from portal.types import utcnow

LINK_PREFIX = "rpl_"
# How long a link works unless the config says otherwise (INVITE_LINK_TTL, RESET_LINK_TTL).
LINK_TTL = {"uitnodiging": timedelta(days=7), "herstel": timedelta(hours=24)}
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class LastAdmin(DomainError):
    """The change would leave the carrier without an active admin."""

    status = 409
    title = "Last admin"


class SelfChange(DomainError):
    """An admin may not deactivate themselves (another admin can)."""

    status = 409
    title = "Not on yourself"


# --- users ----------------------------------------------------------------------------


def list_users(*, carrier_id: uuid.UUID) -> list[User]:
    """The carrier's portal users: active ones first, then by name."""
    stmt = (
        select(User)
        .where(User.transporteur_id == carrier_id)
        .order_by(User.actief.desc(), func.lower(User.naam), User.email)
    )
    return list(db.session.scalars(stmt))


def get_user(*, carrier_id: uuid.UUID, user_id: uuid.UUID) -> User:
    """One of the carrier's users; NotFound when absent or another carrier's."""
    user = db.session.scalar(
        select(User).where(User.transporteur_id == carrier_id, User.id == user_id)
    )
    if user is None:
        raise NotFound("user not found")
    return user


def _user_label(user: User) -> str:
    return user.naam or user.email


def _link_ttl(kind: str) -> timedelta:
    key = "INVITE_LINK_TTL" if kind == "uitnodiging" else "RESET_LINK_TTL"
    return current_app.config.get(key) or LINK_TTL[kind]


def _new_link(user: User, kind: str) -> str:
    """A fresh one-time link token for user (the previous one stops working)."""
    token = LINK_PREFIX + secrets.token_urlsafe(32)
    user.link_hash = sha256(token)
    user.link_soort = kind
    user.link_verloopt_op = utcnow() + _link_ttl(kind)
    return token


def invite_user(
    *, carrier_id: uuid.UUID, email: str, naam: str, rol: str, actor: Actor
) -> tuple[User, str]:
    """A new user without a password and the one-time link with which they choose one."""
    email = normalise_email(email)
    naam = naam.strip()
    errors = []
    if not EMAIL.match(email) or len(email) > 254:
        errors.append(
            {"field": "email", "code": "email_invalid", "message": "not an email address"}
        )
    elif db.session.scalar(
        select(User.id).where(User.transporteur_id == carrier_id, User.email == email)
    ):
        # No code yet: tests/admin/test_service.py pins this error's form.
        errors.append({"field": "email", "message": "already in use"})
    if not naam:
        errors.append({"field": "naam", "code": "required", "message": "required"})
    if rol not in ROLES:
        errors.append({"field": "rol", "code": "choice", "message": f"one of {', '.join(ROLES)}"})
    if errors:
        raise ValidationFailed(errors)
    user = User(transporteur_id=carrier_id, email=email, naam=naam, password_hash="", rol=rol)
    token = _new_link(user, "uitnodiging")
    db.session.add(user)
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="user",
        entity_id=user.id,
        action="invited",
        changes={"email": [None, email], "naam": [None, naam], "rol": [None, rol]},
    )
    return user, token


def _other_active_admins(carrier_id: uuid.UUID, user_id: uuid.UUID) -> int:
    """Active admins besides user_id. The rows are locked (PostgreSQL), so two admins who
    demote each other at the same moment cannot both pass this check."""
    ids = db.session.scalars(
        select(User.id)
        .where(User.transporteur_id == carrier_id, User.rol == "admin", User.actief)
        .with_for_update()
    )
    return sum(1 for other in ids if other != user_id)


def _guard_last_admin(user: User) -> None:
    if (
        user.rol == "admin"
        and user.actief
        and not _other_active_admins(user.transporteur_id, user.id)
    ):
        raise LastAdmin(
            "This is the carrier's last active admin; make another user admin first.",
            user_id=str(user.id),
        )


def update_user(
    *, carrier_id: uuid.UUID, user_id: uuid.UUID, naam: str, rol: str, actor: Actor
) -> User:
    """Change a user's name and role; the last active admin keeps the admin role."""
    user = get_user(carrier_id=carrier_id, user_id=user_id)
    naam = naam.strip()
    errors = []
    if not naam:
        errors.append({"field": "naam", "code": "required", "message": "required"})
    if rol not in ROLES:
        errors.append({"field": "rol", "code": "choice", "message": f"one of {', '.join(ROLES)}"})
    if errors:
        raise ValidationFailed(errors)
    if rol != user.rol and user.rol == "admin":
        _guard_last_admin(user)
    changes = {
        name: [getattr(user, name), value]
        for name, value in (("naam", naam), ("rol", rol))
        if getattr(user, name) != value
    }
    if not changes:
        return user
    user.naam, user.rol = naam, rol
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="user",
        entity_id=user.id,
        action="updated",
        changes=changes,
    )
    return user


USER = Switchable("user")


def deactivate_user(*, carrier_id: uuid.UUID, user_id: uuid.UUID, actor: Actor) -> User:
    """A user who left: signed out everywhere, their open link void, sign-in refused."""
    user = get_user(carrier_id=carrier_id, user_id=user_id)

    def check() -> None:
        if actor.type == "user" and actor.id == user.id:
            raise SelfChange("You cannot deactivate yourself; another admin can.")
        _guard_last_admin(user)

    def then() -> None:
        user.session_version += 1
        user.link_hash = user.link_soort = user.link_verloopt_op = None

    switch_off(user, kind=USER, carrier_id=carrier_id, actor=actor, check=check, then=then)
    return user


def reactivate_user(*, carrier_id: uuid.UUID, user_id: uuid.UUID, actor: Actor) -> User:
    """Let a deactivated user sign in again (with their old password)."""
    user = get_user(carrier_id=carrier_id, user_id=user_id)
    switch_on(user, kind=USER, carrier_id=carrier_id, actor=actor)
    return user


def new_password_link(*, carrier_id: uuid.UUID, user_id: uuid.UUID, actor: Actor) -> str:
    """A new one-time link: a fresh invitation while the user has no password, else a reset.
    The current password keeps working until a new one is chosen."""
    user = get_user(carrier_id=carrier_id, user_id=user_id)
    if not user.actief:
        raise ValidationFailed(
            [{"field": "user", "code": "user_inactive", "message": "user is deactivated"}]
        )
    kind = "uitnodiging" if user.invited else "herstel"
    token = _new_link(user, kind)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="user",
        entity_id=user.id,
        action="invited_again" if kind == "uitnodiging" else "password_link",
        changes={"link_verloopt_op": [None, user.link_verloopt_op]},
    )
    return token


def end_user_sessions(*, carrier_id: uuid.UUID, user_id: uuid.UUID, actor: Actor) -> User:
    """Sign the user out everywhere: every session cookie stops working."""
    user = get_user(carrier_id=carrier_id, user_id=user_id)
    user.session_version += 1
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="user",
        entity_id=user.id,
        action="signed_out",
    )
    return user


@dataclass(frozen=True)
class LinkState:
    """What a visitor's password link is: its user while valid, else why not."""

    user: User | None
    expired: bool = False


def find_link(token: str) -> LinkState:
    """The user of an open, unexpired password link. Works before anyone is signed in: the
    link's row tells the carrier, which then becomes the scope."""
    if not token.startswith(LINK_PREFIX):
        return LinkState(None)
    user = found_by(db.session, User, "rijplan_gebruiker_met_link", User.link_hash, sha256(token))
    if user is None or not user.actief:
        return LinkState(None)
    activate(db.session, user.transporteur_id)
    if user.link_verloopt_op is None or user.link_verloopt_op <= utcnow():
        return LinkState(None, expired=True)
    return LinkState(user)


def use_link(*, token: str, password: str) -> User:
    """Set the password of a valid link's user; the link is used up, and every other session
    of the user ends. NotFound for an unknown, used or expired link."""
    state = find_link(token)
    if state.user is None:
        raise NotFound("This link is unknown, used or expired.")
    check_password_rules(password)
    user = state.user
    kind = user.link_soort
    user.password_hash = hash_password(password)
    user.link_hash = user.link_soort = user.link_verloopt_op = None
    user.session_version += 1
    audit.record(
        carrier_id=user.transporteur_id,
        actor=Actor("user", user.id, _user_label(user)),
        entity="user",
        entity_id=user.id,
        action="signed_up" if kind == "uitnodiging" else "password_set",
    )
    db.session.flush()
    return user


def link_open(user: User, now: datetime | None = None) -> bool:
    """The user has a password link that still works."""
    return bool(user.link_hash) and user.link_verloopt_op > (now or utcnow())


# --- API keys -------------------------------------------------------------------------


def list_api_keys(*, carrier_id: uuid.UUID) -> list[ApiKey]:
    """The carrier's keys: working ones first, newest first."""
    stmt = (
        select(ApiKey)
        .where(ApiKey.transporteur_id == carrier_id)
        .order_by(ApiKey.ingetrokken_op.is_not(None), ApiKey.created_at.desc())
    )
    return list(db.session.scalars(stmt))


def get_api_key(*, carrier_id: uuid.UUID, key_id: uuid.UUID) -> ApiKey:
    key = db.session.scalar(
        select(ApiKey).where(ApiKey.transporteur_id == carrier_id, ApiKey.id == key_id)
    )
    if key is None:
        raise NotFound("API key not found")
    return key


def issue_api_key(
    *, carrier_id: uuid.UUID, naam: str, scopes: list[str], actor: Actor
) -> tuple[ApiKey, str]:
    """A new key with the chosen scopes (at least one); the plain key is returned once."""
    wanted = [scope for scope in scopes if scope]
    if not wanted:
        raise ValidationFailed(
            [{"field": "scopes", "code": "no_scopes", "message": "choose at least one"}]
        )
    api_key, plain = create_api_key(carrier_id=carrier_id, naam=naam, scopes=" ".join(wanted))
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="api_key",
        entity_id=api_key.id,
        action="created",
        changes={"naam": [None, api_key.naam], "scopes": [None, api_key.scopes]},
    )
    return api_key, plain


class _Revocable(Switchable):
    """An API key is on while it has no revocation time; revoked is for good."""

    def is_on(self, target: ApiKey) -> bool:
        return target.ingetrokken_op is None

    def set(self, target: ApiKey, on: bool) -> None:
        target.ingetrokken_op = None if on else utcnow()


API_KEY = _Revocable("api_key", off_action="revoked", audit_flag=False)


def revoke_api_key(*, carrier_id: uuid.UUID, key_id: uuid.UUID, actor: Actor) -> ApiKey:
    """Stop a key from working, for good (revoking twice changes nothing)."""
    key = get_api_key(carrier_id=carrier_id, key_id=key_id)
    switch_off(key, kind=API_KEY, carrier_id=carrier_id, actor=actor)
    return key


def known_scopes() -> tuple[str, ...]:
    """Every scope a key may get, read when asked (the list grows with the API)."""
    return tuple(SCOPES)


def history(*, carrier_id: uuid.UUID, entity: str, entity_id: uuid.UUID, limit: int = 20):
    """The newest audit entries of one user, key or the carrier itself, newest first."""
    entries = audit.entries_for(carrier_id=carrier_id, entity=entity, entity_id=entity_id)
    return list(reversed(entries))[:limit]
