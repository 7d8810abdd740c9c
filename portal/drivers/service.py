"""Drivers of a carrier: the only door to the chauffeurs table."""

from __future__ import annotations

import secrets
import uuid

from sqlalchemy import select

from portal.accounts.service import MIN_PASSWORD_LENGTH, hash_password
from portal.drivers.models import Driver
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.tenancy import auth_lookup


def new_user_token() -> str:
    """A driver's public, URL-safe identifier: random, never a secret."""
    return secrets.token_urlsafe(18)


def create_driver(
    *,
    carrier_id: uuid.UUID,
    naam: str,
    email: str | None = None,
    password: str | None = None,
    telefoon: str | None = None,
) -> Driver:
    """A new driver; the email, when given, is unique within the carrier."""
    naam = naam.strip()
    email = email.strip().lower() if email else None
    errors = []
    if not naam:
        errors.append({"field": "naam", "message": "required"})
    if email is not None and "@" not in email:
        errors.append({"field": "email", "message": "not an email address"})
    if password is not None and len(password) < MIN_PASSWORD_LENGTH:
        errors.append(
            {"field": "password", "message": f"at least {MIN_PASSWORD_LENGTH} characters"}
        )
    if (
        email
        and not errors
        and db.session.scalar(
            select(Driver.id).where(Driver.transporteur_id == carrier_id, Driver.email == email)
        )
    ):
        errors.append({"field": "email", "message": "already in use"})
    if errors:
        raise ValidationFailed(errors)
    driver = Driver(
        transporteur_id=carrier_id,
        naam=naam,
        email=email,
        telefoon=telefoon,
        password_hash=hash_password(password) if password else None,
        user_token=new_user_token(),
    )
    db.session.add(driver)
    db.session.flush()
    return driver


def get_driver(*, carrier_id: uuid.UUID, driver_id: uuid.UUID) -> Driver:
    """The carrier's driver; NotFound when absent or another carrier's."""
    driver = db.session.scalar(
        select(Driver).where(Driver.transporteur_id == carrier_id, Driver.id == driver_id)
    )
    if driver is None:
        raise NotFound("driver not found")
    return driver


def get_driver_by_token(*, carrier_id: uuid.UUID, user_token: str) -> Driver:
    """The carrier's driver with this user_token; NotFound otherwise."""
    driver = db.session.scalar(
        select(Driver).where(Driver.transporteur_id == carrier_id, Driver.user_token == user_token)
    )
    if driver is None:
        raise NotFound("no driver with this user_token")
    return driver


def find_by_token(*, carrier_id: uuid.UUID, user_token: str) -> Driver | None:
    """The carrier's driver with this user_token, or None."""
    return db.session.scalar(
        select(Driver).where(Driver.transporteur_id == carrier_id, Driver.user_token == user_token)
    )


def list_drivers(*, carrier_id: uuid.UUID, active_only: bool = True) -> list[Driver]:
    stmt = select(Driver).where(Driver.transporteur_id == carrier_id).order_by(Driver.naam)
    if active_only:
        stmt = stmt.where(Driver.actief)
    return list(db.session.scalars(stmt))


def names_by_id(*, carrier_id: uuid.UUID, driver_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """Driver names for a page of rows, in one query."""
    ids = {i for i in driver_ids if i is not None}
    if not ids:
        return {}
    rows = db.session.execute(
        select(Driver.id, Driver.naam).where(
            Driver.transporteur_id == carrier_id, Driver.id.in_(ids)
        )
    )
    return {row.id: row.naam for row in rows}


def carrier_of_user_token(user_token: str) -> uuid.UUID | None:
    """The carrier of a driver's user_token, for admin commands that are given only that."""
    with auth_lookup(db.session):
        return db.session.scalar(
            select(Driver.transporteur_id).where(Driver.user_token == user_token)
        )
