"""Couplings (koppelingen): a towed vehicle coupled to a motorised one, for a day or for a
task. The only door to the table is portal/fleet/couplings.py."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from sqlalchemy import CheckConstraint, Date, ForeignKeyConstraint, Index, String, Uuid, text
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

# Where a coupling came from: a planner in the portal, a driver's QR scan, an integration.
BRONNEN = ("planner", "qr_scan", "api")

_CURRENT = "ontkoppeld_op IS NULL"
_DAY = "ontkoppeld_op IS NULL AND datum IS NOT NULL"
_TASK = "ontkoppeld_op IS NULL AND taak_id IS NOT NULL"


class Coupling(CarrierScoped, db.Model):
    """The towed vehicle (getrokken) behind the motorised one (trekkend) on a day (datum,
    the carrier's calendar day) or for one task (taak_id): exactly one of the two. Uncoupling
    keeps the row as history (ontkoppeld_op). The database holds that a vehicle is in one
    current day coupling per day at most, on either side, and a task has one current
    coupling at most; overlapping tasks are checked by the service."""

    __tablename__ = "koppelingen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "trekkend_id"],
            ["voertuigen.transporteur_id", "voertuigen.id"],
            name="fk_koppelingen_trekkend",
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "getrokken_id"],
            ["voertuigen.transporteur_id", "voertuigen.id"],
            name="fk_koppelingen_getrokken",
        ),
        # By the table's name: fleet stands below tasks. A deleted task takes its coupling.
        ForeignKeyConstraint(
            ["transporteur_id", "taak_id"],
            ["taken.transporteur_id", "taken.id"],
            name="fk_koppelingen_taak",
            ondelete="CASCADE",
        ),
        CheckConstraint("(datum IS NULL) <> (taak_id IS NULL)", name="dag_of_taak"),
        CheckConstraint("trekkend_id <> getrokken_id", name="twee_voertuigen"),
        CheckConstraint("bron IN ('planner', 'qr_scan', 'api')", name="bron"),
        Index(
            "uq_koppelingen_dag_getrokken",
            "transporteur_id",
            "getrokken_id",
            "datum",
            unique=True,
            postgresql_where=text(_DAY),
            sqlite_where=text(_DAY),
        ),
        Index(
            "uq_koppelingen_dag_trekkend",
            "transporteur_id",
            "trekkend_id",
            "datum",
            unique=True,
            postgresql_where=text(_DAY),
            sqlite_where=text(_DAY),
        ),
        Index(
            "uq_koppelingen_taak",
            "transporteur_id",
            "taak_id",
            unique=True,
            postgresql_where=text(_TASK),
            sqlite_where=text(_TASK),
        ),
        # A vehicle's history on either side, newest first.
        Index("ix_koppelingen_trekkend", "transporteur_id", "trekkend_id", "created_at"),
        Index("ix_koppelingen_getrokken", "transporteur_id", "getrokken_id", "created_at"),
        Index("ix_koppelingen_datum", "transporteur_id", "datum"),
    )

    trekkend_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    getrokken_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    datum: Mapped[date | None] = mapped_column(Date)
    taak_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    bron: Mapped[str] = mapped_column(String(10))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    gekoppeld_door: Mapped[str] = mapped_column(String(254))
    ontkoppeld_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    ontkoppeld_door: Mapped[str | None] = mapped_column(String(254))
