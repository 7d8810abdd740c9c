"""Carriers, portal users, API keys and failed sign-ins (the credentials of drivers'
phones are drivers.models')."""

from __future__ import annotations

import uuid
from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import (
    JSON,
    CheckConstraint,
    Float,
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
# What a one-time password link is for: a new user's first password, or a new one.
LINK_KINDS = ("uitnodiging", "herstel")
# What an API key may be allowed; a key's `scopes` holds some of these, space-separated.
# Every API operation names the one it needs (`operation(scope=...)` in portal/api/core/);
# a domain's `:write` includes its `:read`.
SCOPES = (
    "tasks:read",
    "tasks:write",
    "questionnaires:read",
    "drivers:read",
    "vehicles:read",
    "vehicles:write",
    "messages:read",
    "messages:write",
    "tacho:read",
    "tacho:write",
    "hours:read",
    "hours:write",
    "webhooks:read",
    "webhooks:write",
    "customers:read",
    "customers:write",
    "tariffs:read",
    "tariffs:write",
    "invoices:read",
    "invoices:write",
)
DEFAULT_SCOPES = " ".join(SCOPES)


class Carrier(db.Model):
    """A transporteur: the tenant. Its id is the `transporteur_id` of every other row."""

    __tablename__ = "transporteurs"
    __table_args__ = (
        CheckConstraint(
            "(thuisbasis_lat IS NULL) = (thuisbasis_lng IS NULL)", name="thuisbasis_coordinaten"
        ),
        CheckConstraint("thuisbasis_lat BETWEEN -90 AND 90", name="thuisbasis_lat"),
        CheckConstraint("thuisbasis_lng BETWEEN -180 AND 180", name="thuisbasis_lng"),
        CheckConstraint("bewijs_chauffeur IN ('voornaam', 'initialen')", name="bewijs_chauffeur"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=new_id)
    naam: Mapped[str] = mapped_column(String(200))
    tijdzone: Mapped[str] = mapped_column(String(64), default="Europe/Amsterdam")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # The home base (yard) the trucks leave from: kept now, used by route planning later.
    thuisbasis_straat: Mapped[str | None] = mapped_column(String(200))
    thuisbasis_postcode: Mapped[str | None] = mapped_column(String(16))
    thuisbasis_plaats: Mapped[str | None] = mapped_column(String(100))
    thuisbasis_land: Mapped[str | None] = mapped_column(String(2))
    thuisbasis_lat: Mapped[float | None] = mapped_column(Float)
    thuisbasis_lng: Mapped[float | None] = mapped_column(Float)
    # What the carrier's invoices name as the seller (the UBL export), its address being
    # the home base above.
    btw_nummer: Mapped[str | None] = mapped_column(String(20))  # compact: NL123456789B01
    kvk_nummer: Mapped[str | None] = mapped_column(String(8))
    iban: Mapped[str | None] = mapped_column(String(34))  # compact, upper case
    factuur_email: Mapped[str | None] = mapped_column(String(254))
    betaaltermijn_dagen: Mapped[int] = mapped_column(Integer, default=30, server_default="30")
    # The payroll export's columns: per category its name and code, and which the header
    # carries (portal/hours/payroll.py); null: the defaults.
    loon_kolommen: Mapped[dict | None] = mapped_column(JSON)
    # How a shipper's proof of delivery names who delivered: "voornaam" or "initialen"
    # (proof/bundle.py), never the driver's full name.
    bewijs_chauffeur: Mapped[str] = mapped_column(
        String(12), default="voornaam", server_default="voornaam"
    )


class User(CarrierScoped, UserMixin, db.Model):
    """A portal user (planner, questionnaire author or admin) of one carrier."""

    __tablename__ = "gebruikers"
    __table_args__ = (
        UniqueConstraint("transporteur_id", "email"),
        # The link's token is 256 random bits (management._new_link): two links never share
        # a hash in practice, so unique per carrier (Citus) is enough; the hash's own index
        # serves the look-up made before the carrier is known.
        UniqueConstraint("transporteur_id", "link_hash"),
        Index("ix_gebruikers_link_hash", "link_hash"),
        CheckConstraint("rol IN ('planner', 'author', 'admin')", name="rol"),
        CheckConstraint(
            "link_hash IS NULL OR (link_soort IN ('uitnodiging', 'herstel') "
            "AND link_verloopt_op IS NOT NULL)",
            name="link",
        ),
    )

    email: Mapped[str] = mapped_column(String(254))
    naam: Mapped[str] = mapped_column(String(200), default="")
    # Empty until an invited user chooses a password: nothing verifies against it.
    password_hash: Mapped[str] = mapped_column(String(255))
    rol: Mapped[str] = mapped_column(String(16))
    taal: Mapped[str | None] = mapped_column(String(5))
    actief: Mapped[bool] = mapped_column(default=True)
    # Part of the login id in the session cookie: bumping it ends every session of the user.
    session_version: Mapped[int] = mapped_column(Integer, default=1)
    laatst_ingelogd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # The one open password link (invitation or reset): only its SHA-256 is stored, a new
    # link replaces the old one, and using it clears it.
    link_hash: Mapped[str | None] = mapped_column(String(64))
    link_soort: Mapped[str | None] = mapped_column(String(16))
    link_verloopt_op: Mapped[datetime | None] = mapped_column(UTCDateTime)

    @property
    def invited(self) -> bool:
        """Invited and not yet signed up: no password chosen."""
        return not self.password_hash

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
    # A key is 256 random bits (service.create_api_key): a collision is no practical concern,
    # so unique per carrier (Citus) is enough; the hash's own index serves the look-up at
    # every request, before the carrier is known.
    __table_args__ = (
        UniqueConstraint("transporteur_id", "key_hash"),
        Index("ix_api_keys_key_hash", "key_hash"),
    )

    naam: Mapped[str] = mapped_column(String(200))
    prefix: Mapped[str] = mapped_column(String(16))
    key_hash: Mapped[str] = mapped_column(String(64))
    scopes: Mapped[str] = mapped_column(String(500), default=DEFAULT_SCOPES)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ingetrokken_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Recorded at most once a minute (see authenticate_api_key), not on every request.
    laatst_gebruikt_op: Mapped[datetime | None] = mapped_column(UTCDateTime)


class LoginAttempt(db.Model):
    """A failed sign-in, for throttling. Not tenant data: it is recorded before a carrier is
    known, and it holds only a hash of the identity."""

    __tablename__ = "login_attempts"
    __table_args__ = (Index("ix_login_attempts_key_at", "key_hash", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key_hash: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
