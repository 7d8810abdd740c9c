"""Drivers (chauffeurs) of a carrier."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow


class Driver(CarrierScoped, db.Model):
    """A driver; `user_token` is the public, rotatable id the driver app uses in paths."""

    __tablename__ = "chauffeurs"
    __table_args__ = (
        UniqueConstraint("transporteur_id", "user_token"),
        Index(
            "uq_chauffeurs_transporteur_id_email",
            "transporteur_id",
            "email",
            unique=True,
            postgresql_where=text("email IS NOT NULL"),
            sqlite_where=text("email IS NOT NULL"),
        ),
    )

    naam: Mapped[str] = mapped_column(String(200))
    email: Mapped[str | None] = mapped_column(String(254))
    telefoon: Mapped[str | None] = mapped_column(String(40))
    password_hash: Mapped[str | None] = mapped_column(String(255))
    user_token: Mapped[str] = mapped_column(String(64))
    taal: Mapped[str | None] = mapped_column(String(5))
    actief: Mapped[bool] = mapped_column(default=True)
    # Access tokens carry this; bumping it refuses every token issued before.
    token_version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
