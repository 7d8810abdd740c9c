"""Planning proposals (planvoorstellen) and their lines (planvoorstel_regels): what the
solver proposes for a period's unassigned tasks, solved by the worker and accepted by a
planner. The only door to the tables is portal/planner/service.py."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    Uuid,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

# queued: waits for the worker; running: the worker solves it; done: solved within the time
# limit; timed_out: the best found when the limit was reached; failed: the solve broke.
STATUSES = ("queued", "running", "done", "timed_out", "failed")
FINISHED = ("done", "timed_out", "failed")


def _in(column: str, values) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Proposal(CarrierScoped, db.Model):
    """A proposal for the unassigned tasks planned in [van, tot)."""

    __tablename__ = "planvoorstellen"
    __table_args__ = (
        CheckConstraint(_in("status", STATUSES), name="status"),
        CheckConstraint("tot > van", name="periode"),
        CheckConstraint("seconden BETWEEN 1 AND 600", name="seconden"),
        Index("ix_planvoorstellen_wachtrij", "status", "volgende_poging_op"),
        Index("ix_planvoorstellen_aangemaakt", "transporteur_id", "created_at"),
    )

    status: Mapped[str] = mapped_column(String(12), default="queued")
    van: Mapped[datetime] = mapped_column(UTCDateTime)
    tot: Mapped[datetime] = mapped_column(UTCDateTime)
    seconden: Mapped[int] = mapped_column(Integer, default=8)
    aangemaakt_door: Mapped[str] = mapped_column(String(200))  # who asked, as the audit says
    aangemaakt_door_type: Mapped[str] = mapped_column(String(16))
    aangemaakt_door_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    volgende_poging_op: Mapped[datetime | None] = mapped_column(UTCDateTime)  # due for the worker
    claim_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    pogingen: Mapped[int] = mapped_column(Integer, default=0)
    gestart_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    klaar_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    fout: Mapped[str | None] = mapped_column(Text)
    geplaatst: Mapped[int | None] = mapped_column(Integer)
    niet_geplaatst: Mapped[int | None] = mapped_column(Integer)
    lege_km: Mapped[float | None] = mapped_column(Float)
    spreiding_min: Mapped[int | None] = mapped_column(Integer)


class ProposalLine(CarrierScoped, db.Model):
    """One task of a proposal: its version when solved, its driver and vehicle then, and the
    driver and combination proposed (none: not placed, with the rule that stopped it)."""

    __tablename__ = "planvoorstel_regels"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "voorstel_id"],
            ["planvoorstellen.transporteur_id", "planvoorstellen.id"],
            name="fk_planvoorstel_regels_voorstel",
            ondelete="CASCADE",
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "taak_id"],
            ["taken.transporteur_id", "taken.id"],
            name="fk_planvoorstel_regels_taak",
            ondelete="CASCADE",
        ),
        UniqueConstraint("transporteur_id", "voorstel_id", "taak_id"),
        CheckConstraint("(chauffeur_id IS NULL) = (regel IS NOT NULL)", name="geplaatst_of_regel"),
        Index("ix_planvoorstel_regels_taak", "transporteur_id", "taak_id"),
    )

    voorstel_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    taak_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    taak_versie: Mapped[int] = mapped_column(Integer)
    chauffeur_id_was: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    voertuig_id_was: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    chauffeur_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    voertuig_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    getrokken_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    regel: Mapped[str | None] = mapped_column(String(40))  # why not placed
    waarschuwingen: Mapped[str | None] = mapped_column(String(300))  # codes, comma-separated
    lege_km: Mapped[float | None] = mapped_column(Float)
    geaccepteerd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
