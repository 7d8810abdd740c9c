"""Vehicles (voertuigen) of a carrier."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow


class Vehicle(CarrierScoped, db.Model):
    """A truck, tractor or trailer, known by its licence plate (kenteken)."""

    __tablename__ = "voertuigen"
    __table_args__ = (UniqueConstraint("transporteur_id", "kenteken"),)

    kenteken: Mapped[str] = mapped_column(String(20))
    omschrijving: Mapped[str | None] = mapped_column(String(200))
    actief: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
