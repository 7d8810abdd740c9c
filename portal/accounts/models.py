"""Carriers, portal users, API keys and the credentials of drivers' phones."""

from __future__ import annotations

import uuid
from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import (
    CheckConstraint,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    UniqueConstraint,
    Uuid,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, new_id, utcnow

ROLES = ("planner", "author", "admin")
# What an API key may be allowed; a key's `scopes` holds some of these, space-separated.
SCOPES = (
    "tasks:read",
    "tasks:write",
    "vehicles:read",
    "vehicles:write",
    "messages:read",
    "messages:write",
    "tacho:read",
    "tacho:write",
    "hours:read",
    "hours:write",
)
DEFAULT_SCOPES = " ".join(SCOPES)


class Carrier(db.Model):
    """A transporteur: the tenant. Its id is the `transporteur_id` of every other row."""

    __tablename__ = "transporteurs"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=new_id)
    naam: Mapped[str] = mapped_column(String(200))
    tijdzone: Mapped[str] = mapped_column(String(64), default="Europe/Amsterdam")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class User(CarrierScoped, UserMixin, db.Model):
    """A portal user (planner, questionnaire author or admin) of one carrier."""

    __tablename__ = "gebruikers"
    __table_args__ = (
        UniqueConstraint("transporteur_id", "email"),
        CheckConstraint("rol IN ('planner', 'author', 'admin')", name="rol"),
    )

    email: Mapped[str] = mapped_column(String(254))
    naam: Mapped[str] = mapped_column(String(200), default="")
    password_hash: Mapped[str] = mapped_column(String(255))
    rol: Mapped[str] = mapped_column(String(16))
    taal: Mapped[str | None] = mapped_column(String(5))
    actief: Mapped[bool] = mapped_column(default=True)
    # Part of the login id in the session cookie: bumping it ends every session of the user.
    session_version: Mapped[int] = mapped_column(Integer, default=1)
    laatst_ingelogd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    def get_id(self) -> str:
        return f"{self.transporteur_id}:{self.id}:{self.session_version}"

    @property
    def is_active(self) -> bool:
        return self.actief

    def has_role(self, *roles: str) -> bool:
        return self.rol == "admin" or self.rol in roles


class ApiKey(CarrierScoped, db.Model):
    """A carrier integration's key; only its SHA-256 is stored, the key is shown once."""

    __tablename__ = "api_keys"
    __table_args__ = (UniqueConstraint("key_hash"),)

    naam: Mapped[str] = mapped_column(String(200))
    prefix: Mapped[str] = mapped_column(String(16))
    key_hash: Mapped[str] = mapped_column(String(64))
    scopes: Mapped[str] = mapped_column(String(200), default=DEFAULT_SCOPES)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ingetrokken_op: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RefreshToken(CarrierScoped, db.Model):
    """A driver's rotating refresh token; tokens of one sign-in share a family."""

    __tablename__ = "refresh_tokens"
    __table_args__ = (
        UniqueConstraint("token_hash"),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        Index("ix_refresh_tokens_family", "transporteur_id", "family_id"),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    family_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    rotated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ActivationCode(CarrierScoped, db.Model):
    """A one-time code (shown as QR) that pairs a driver's phone."""

    __tablename__ = "activation_codes"
    __table_args__ = (
        UniqueConstraint("code_hash"),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    code_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class LoginAttempt(db.Model):
    """A failed sign-in, for throttling. Not tenant data: it is recorded before a carrier is
    known, and it holds only a hash of the identity."""

    __tablename__ = "login_attempts"
    __table_args__ = (Index("ix_login_attempts_key_at", "key_hash", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key_hash: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
