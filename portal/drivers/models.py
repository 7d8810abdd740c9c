"""Drivers (chauffeurs) of a carrier, the positions their phones report, and their phones'
credentials (rotating refresh tokens, one-time activation codes)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    CheckConstraint,
    Date,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    Numeric,
    String,
    UniqueConstraint,
    Uuid,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

LANGUAGES = ("nl", "en")
# The categories a Dutch driving licence can hold (Directive 2006/126/EC Art. 4, and T, the
# Netherlands' own category for agricultural and forestry tractors), in the licence's order.
RIJBEWIJS_CATEGORIEEN = (
    "AM", "A1", "A2", "A", "B", "BE", "C1", "C1E", "C", "CE", "D1", "D1E", "D", "DE", "T",
)  # fmt: skip


class Driver(CarrierScoped, db.Model):
    """A driver; `user_token` is the public, rotatable id the driver app uses in paths."""

    __tablename__ = "chauffeurs"
    __table_args__ = (
        UniqueConstraint("transporteur_id", "user_token"),
        CheckConstraint("contracturen >= 0 AND contracturen <= 60", name="contracturen"),
        Index(
            "uq_chauffeurs_transporteur_id_email",
            "transporteur_id",
            "email",
            unique=True,
            postgresql_where=text("email IS NOT NULL"),
            sqlite_where=text("email IS NOT NULL"),
        ),
        Index("ix_chauffeurs_naam", "transporteur_id", "naam"),
        Index(
            "uq_chauffeurs_transporteur_id_kaartnummer",
            "transporteur_id",
            "kaartnummer",
            unique=True,
            postgresql_where=text("kaartnummer IS NOT NULL"),
            sqlite_where=text("kaartnummer IS NOT NULL"),
        ),
    )

    naam: Mapped[str] = mapped_column(String(200))
    email: Mapped[str | None] = mapped_column(String(254))
    telefoon: Mapped[str | None] = mapped_column(String(40))
    password_hash: Mapped[str | None] = mapped_column(String(255))
    user_token: Mapped[str] = mapped_column(String(64))
    taal: Mapped[str | None] = mapped_column(String(5))
    # The driver card's number (14 characters and two indexes, as the card records it): how
    # tachograph downloads find their driver.
    kaartnummer: Mapped[str | None] = mapped_column(String(20))
    actief: Mapped[bool] = mapped_column(default=True)
    # Contract hours per week for payable hours; null: the carrier's rule set's (40).
    contracturen: Mapped[Decimal | None] = mapped_column(Numeric(4, 2))
    # The driver's number in the carrier's payroll package, carried by the payroll export.
    personeelsnummer: Mapped[str | None] = mapped_column(String(30))
    # Access tokens carry this; bumping it refuses every token issued before.
    token_version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # The last known position: the newest point by recorded_at. Kept on the driver so the
    # map and the driver lists read it without a join; a late point never moves it back.
    last_lat: Mapped[float | None] = mapped_column(Float)
    last_lng: Mapped[float | None] = mapped_column(Float)
    last_recorded_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_accuracy: Mapped[float | None] = mapped_column(Float)
    last_speed: Mapped[float | None] = mapped_column(Float)
    last_heading: Mapped[float | None] = mapped_column(Float)


class DriverLocation(CarrierScoped, db.Model):
    """One position a driver's phone reported; (driver, recorded_at) is unique, so a point
    sent twice (a retry, an overlapping offline batch) is stored once."""

    __tablename__ = "chauffeur_locaties"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        # Also the index of a driver's day track: carrier, driver, time.
        UniqueConstraint("transporteur_id", "chauffeur_id", "recorded_at"),
        CheckConstraint("lat >= -90 AND lat <= 90", name="lat"),
        CheckConstraint("lng >= -180 AND lng <= 180", name="lng"),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    lat: Mapped[float] = mapped_column(Float)
    lng: Mapped[float] = mapped_column(Float)
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime)
    accuracy: Mapped[float | None] = mapped_column(Float)  # metres
    speed: Mapped[float | None] = mapped_column(Float)  # metres per second
    heading: Mapped[float | None] = mapped_column(Float)  # degrees from north, clockwise
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class RefreshToken(CarrierScoped, db.Model):
    """A driver's rotating refresh token; tokens of one sign-in share a family."""

    __tablename__ = "refresh_tokens"
    __table_args__ = (
        # A refresh token is 256 random bits (tokens._new_refresh_token): a collision is no
        # practical concern, so unique per carrier (Citus) is enough; the hash's own index
        # serves the look-up of a token presented without a carrier.
        UniqueConstraint("transporteur_id", "token_hash"),
        Index("ix_refresh_tokens_token_hash", "token_hash"),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        Index("ix_refresh_tokens_family", "transporteur_id", "family_id"),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    family_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    verloopt_op: Mapped[datetime] = mapped_column(UTCDateTime)
    geroteerd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    ingetrokken_op: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ActivationCode(CarrierScoped, db.Model):
    """A one-time code (shown as QR) that pairs a driver's phone."""

    __tablename__ = "activation_codes"
    __table_args__ = (
        # A code is typed, so short (50 bits): two carriers could draw the same one. Unique
        # per carrier only (Citus); across carriers, pairing.create_activation_code issues no
        # code that any carrier holds, and activation_grant refuses a code found twice.
        UniqueConstraint("transporteur_id", "code_hash"),
        Index("ix_activation_codes_code_hash", "code_hash"),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    code_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    verloopt_op: Mapped[datetime] = mapped_column(UTCDateTime)
    gebruikt_op: Mapped[datetime | None] = mapped_column(UTCDateTime)


class DriverLicence(CarrierScoped, db.Model):
    """A driving licence category a driver holds, with its expiry date when known (a licence
    gives each category its own). No rows: the driver's licence is not recorded."""

    __tablename__ = "rijbewijscategorieen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        UniqueConstraint("transporteur_id", "chauffeur_id", "categorie"),
        CheckConstraint(
            "categorie IN ({})".format(", ".join(repr(c) for c in RIJBEWIJS_CATEGORIEEN)),
            name="categorie",
        ),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    categorie: Mapped[str] = mapped_column(String(4))
    geldig_tot: Mapped[date | None] = mapped_column(Date)
