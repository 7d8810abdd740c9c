"""Task templates, series and the occurrences a series made."""

from __future__ import annotations

import uuid
from datetime import date, datetime, time

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Date,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Time,
    UniqueConstraint,
    Uuid,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

PATTERNS = ("wekelijks", "eerste_werkdag")  # weekly on weekdays; monthly on the first working day
HOLIDAY_CHOICES = ("overslaan", "volgende_werkdag")
# An occurrence follows its series, was changed by hand (and left it), fell on a holiday and
# was skipped, or its task was deleted: only a following one changes with its series.
OCCURRENCE_STATES = ("volgt", "gewijzigd", "overgeslagen", "verwijderd")


class TaskTemplate(CarrierScoped, db.Model):
    """A task saved to be made again: its activity type, customer, duration, the capabilities
    it needs (codes of the fleet's catalogue) and the other fields a repeated run keeps
    (`velden`: the route's copied addresses and the task's demands)."""

    __tablename__ = "taak_sjablonen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "klant_id"], ["klanten.transporteur_id", "klanten.id"]
        ),
        UniqueConstraint("transporteur_id", "naam"),
        CheckConstraint("duur_min IS NULL OR (duur_min > 0 AND duur_min <= 1440)", name="duur_min"),
    )

    naam: Mapped[str] = mapped_column(String(200))
    type: Mapped[str] = mapped_column(String(64))
    klant_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    duur_min: Mapped[int | None] = mapped_column(Integer)
    capaciteiten: Mapped[list] = mapped_column(JSON, default=list)
    velden: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class TaskSeries(CarrierScoped, db.Model):
    """Tasks made from a template by a recurrence rule, at a time of day (the carrier's zone),
    with an optional driver and vehicle; a holiday skipped or moved to the next working day."""

    __tablename__ = "taak_reeksen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "sjabloon_id"],
            ["taak_sjablonen.transporteur_id", "taak_sjablonen.id"],
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "vehicle_id"], ["voertuigen.transporteur_id", "voertuigen.id"]
        ),
        CheckConstraint("patroon IN ('wekelijks', 'eerste_werkdag')", name="patroon"),
        CheckConstraint("feestdagen IN ('overslaan', 'volgende_werkdag')", name="feestdagen"),
        CheckConstraint("om_weken BETWEEN 1 AND 52", name="om_weken"),
        CheckConstraint("einddatum IS NULL OR einddatum >= startdatum", name="einddatum"),
        Index("ix_taak_reeksen_sjabloon", "transporteur_id", "sjabloon_id"),
    )

    sjabloon_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    naam: Mapped[str] = mapped_column(String(200))
    patroon: Mapped[str] = mapped_column(String(20), default="wekelijks")
    # Weekdays of a weekly rule, Monday 0 to Sunday 6, as "0,4".
    weekdagen: Mapped[str] = mapped_column(String(20), default="")
    om_weken: Mapped[int] = mapped_column(Integer, default=1)
    startdatum: Mapped[date] = mapped_column(Date)
    einddatum: Mapped[date | None] = mapped_column(Date)
    tijd: Mapped[time] = mapped_column(Time)
    chauffeur_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    vehicle_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    feestdagen: Mapped[str] = mapped_column(String(20), default="overslaan")
    beeindigd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    versie: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": versie}


class SeriesOccurrence(CarrierScoped, db.Model):
    """One date of a series' rule, made once: (series, datum) is unique, so two planning runs
    at the same time make each occurrence once. `gepland_datum` is the day its task is on
    (a holiday moved), empty when skipped; `taak_id` empty once its task is deleted."""

    __tablename__ = "reeks_voorkomens"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "reeks_id"], ["taak_reeksen.transporteur_id", "taak_reeksen.id"]
        ),
        ForeignKeyConstraint(["transporteur_id", "taak_id"], ["taken.transporteur_id", "taken.id"]),
        UniqueConstraint("transporteur_id", "reeks_id", "datum"),
        CheckConstraint(
            "stand IN ('volgt', 'gewijzigd', 'overgeslagen', 'verwijderd')", name="stand"
        ),
        Index("ix_reeks_voorkomens_taak", "transporteur_id", "taak_id"),
    )

    reeks_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    datum: Mapped[date] = mapped_column(Date)
    gepland_datum: Mapped[date | None] = mapped_column(Date)
    feestdag: Mapped[str | None] = mapped_column(String(100))
    taak_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    stand: Mapped[str] = mapped_column(String(16), default="volgt")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
