"""Hours: a driver's work days (werkdagen), the activities within them (activiteiten) and the
planner's approval of a driver's ISO week (week_goedkeuringen).

Times are UTC instants; days and weeks are the carrier's calendar (its time zone). The
database holds what it can: one running work day and one running activity per driver
(partial unique indexes), end after start, known activity kinds, and on PostgreSQL no two
work days or activities of a driver overlapping (exclusion constraints, see the migration).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    Uuid,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

# Activity kinds (Dutch slugs, as the API speaks them), in the order pages list them.
SOORTEN = ("rijden", "laden", "lossen", "wachten", "pauze", "overig_werk", "beschikbaarheid")
# Working time (arbeidstijd, as EU directive 2002/15 counts it): breaks and periods of
# availability are not working time; waiting at a loading site is.
WERKTIJD_SOORTEN = ("rijden", "laden", "lossen", "wachten", "overig_werk")


class WorkDay(CarrierScoped, db.Model):
    """A driver's work day: from start to end (null while it runs); it may cross midnight."""

    __tablename__ = "werkdagen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        CheckConstraint("beeindigd_op IS NULL OR beeindigd_op > gestart_op", name="periode"),
        # One running day per driver.
        Index(
            "uq_werkdagen_lopend",
            "transporteur_id",
            "chauffeur_id",
            unique=True,
            postgresql_where=text("beeindigd_op IS NULL"),
            sqlite_where=text("beeindigd_op IS NULL"),
        ),
        # A driver's days of a period.
        Index("ix_werkdagen_chauffeur_gestart", "transporteur_id", "chauffeur_id", "gestart_op"),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    gestart_op: Mapped[datetime] = mapped_column(UTCDateTime)
    beeindigd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    opmerking: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    # Bumped on every change: the ETag of the work day.
    versie: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": versie}


class Activity(CarrierScoped, db.Model):
    """What a driver did from begin to einde (null while it runs), within one work day.

    `taak_id` names the driver's own task it was for. It is a reference without a foreign
    key on purpose: a planner may delete a task while the hours worked on it stay."""

    __tablename__ = "activiteiten"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "werkdag_id"], ["werkdagen.transporteur_id", "werkdagen.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        CheckConstraint(
            "soort IN ('rijden', 'laden', 'lossen', 'wachten', 'pauze', 'overig_werk', "
            "'beschikbaarheid')",
            name="soort",
        ),
        CheckConstraint("einde IS NULL OR einde > begin", name="periode"),
        # One running activity per driver.
        Index(
            "uq_activiteiten_lopend",
            "transporteur_id",
            "chauffeur_id",
            unique=True,
            postgresql_where=text("einde IS NULL"),
            sqlite_where=text("einde IS NULL"),
        ),
        # A work day's activities; a driver's of a period; all drivers' of a period.
        Index("ix_activiteiten_werkdag", "transporteur_id", "werkdag_id", "begin"),
        Index("ix_activiteiten_chauffeur_begin", "transporteur_id", "chauffeur_id", "begin"),
        Index("ix_activiteiten_begin", "transporteur_id", "begin"),
        # A task's activities: the time billed for it per hour (task_time.py).
        Index(
            "ix_activiteiten_taak",
            "transporteur_id",
            "taak_id",
            postgresql_where=text("taak_id IS NOT NULL"),
            sqlite_where=text("taak_id IS NOT NULL"),
        ),
    )

    werkdag_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    soort: Mapped[str] = mapped_column(String(20))
    begin: Mapped[datetime] = mapped_column(UTCDateTime)
    einde: Mapped[datetime | None] = mapped_column(UTCDateTime)
    taak_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    opmerking: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    versie: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": versie}


class WeekApproval(CarrierScoped, db.Model):
    """A planner's approval of a driver's ISO week. It locks the week's hours until it is
    reopened (with a reason); reopened approvals stay as the week's history, and at most one
    approval of a driver's week is in force."""

    __tablename__ = "week_goedkeuringen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "goedgekeurd_door"],
            ["gebruikers.transporteur_id", "gebruikers.id"],
            name="fk_week_goedkeuringen_goedgekeurd_door",
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "heropend_door"],
            ["gebruikers.transporteur_id", "gebruikers.id"],
            name="fk_week_goedkeuringen_heropend_door",
        ),
        CheckConstraint("week >= 1 AND week <= 53", name="week"),
        CheckConstraint(
            "(heropend_op IS NULL AND heropend_reden IS NULL) OR "
            "(heropend_op IS NOT NULL AND heropend_reden IS NOT NULL)",
            name="heropend",
        ),
        Index(
            "uq_week_goedkeuringen_geldig",
            "transporteur_id",
            "chauffeur_id",
            "jaar",
            "week",
            unique=True,
            postgresql_where=text("heropend_op IS NULL"),
            sqlite_where=text("heropend_op IS NULL"),
        ),
        Index("ix_week_goedkeuringen_week", "transporteur_id", "jaar", "week"),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    jaar: Mapped[int] = mapped_column(Integer)  # the ISO year, which may differ at New Year
    week: Mapped[int] = mapped_column(Integer)
    goedgekeurd_op: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    goedgekeurd_door: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    heropend_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    heropend_door: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    heropend_reden: Mapped[str | None] = mapped_column(Text)
