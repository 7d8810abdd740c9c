"""Transport tasks (taken): every field of the seed's Task, plus chauffeur and revision."""

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
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

STATUSES = ("gepland", "ontvangen", "gestart", "afgerond", "geannuleerd")
OPEN_STATUSES = ("gepland", "ontvangen", "gestart")
OPEN_WHERE = "gearchiveerd_op IS NULL AND status IN ('gepland', 'ontvangen', 'gestart')"
DONE_WHERE = "gearchiveerd_op IS NULL AND status = 'afgerond'"
MAX_DURATION_MIN = 24 * 60  # a task's expected duration (duur_min) is at most a day


class Task(CarrierScoped, db.Model):
    __tablename__ = "taken"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "vehicle_id"], ["voertuigen.transporteur_id", "voertuigen.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "klant_id"], ["klanten.transporteur_id", "klanten.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "laadlocatie_id"],
            ["klant_locaties.transporteur_id", "klant_locaties.id"],
            name="fk_taken_laadlocatie",
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "loslocatie_id"],
            ["klant_locaties.transporteur_id", "klant_locaties.id"],
            name="fk_taken_loslocatie",
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "activity_questionnaire_id"],
            ["activity_questionnaires.transporteur_id", "activity_questionnaires.id"],
        ),
        CheckConstraint(
            "status IN ('gepland', 'ontvangen', 'gestart', 'afgerond', 'geannuleerd')",
            name="status",
        ),
        CheckConstraint("min_fotos IS NULL OR min_fotos >= 0", name="min_fotos"),
        CheckConstraint(
            "max_fotos IS NULL OR min_fotos IS NULL OR max_fotos >= min_fotos", name="max_fotos"
        ),
        CheckConstraint(
            f"duur_min IS NULL OR (duur_min > 0 AND duur_min <= {MAX_DURATION_MIN})",
            name="duur_min",
        ),
        # The driver's list: one driver, ordered by gepland_op.
        Index("ix_taken_chauffeur_gepland", "transporteur_id", "chauffeur_id", "gepland_op"),
        # The driver's poll (open tasks and those completed today): two partial indexes the
        # database ORs together, so a driver with a year of history reads the rows it
        # returns, not all of them.
        Index(
            "ix_taken_chauffeur_open",
            "transporteur_id",
            "chauffeur_id",
            "gepland_op",
            postgresql_where=text(OPEN_WHERE),
            sqlite_where=text(OPEN_WHERE),
        ),
        Index(
            "ix_taken_chauffeur_afgerond",
            "transporteur_id",
            "chauffeur_id",
            "afgerond_op",
            postgresql_where=text(DONE_WHERE),
            sqlite_where=text(DONE_WHERE),
        ),
        # The carrier's board.
        Index("ix_taken_gepland", "transporteur_id", "gepland_op"),
        # The planning checks: a vehicle's tasks by time, and tasks by VDM number.
        Index("ix_taken_voertuig_gepland", "transporteur_id", "vehicle_id", "gepland_op"),
        Index("ix_taken_vdm", "transporteur_id", "vdm_nummer"),
        # A customer's tasks (and whether a customer or place is in use).
        Index("ix_taken_klant", "transporteur_id", "klant_id", "gepland_op"),
        Index("ix_taken_laadlocatie", "transporteur_id", "laadlocatie_id"),
        Index("ix_taken_loslocatie", "transporteur_id", "loslocatie_id"),
        CheckConstraint("(laad_lat IS NULL) = (laad_lng IS NULL)", name="laad_locatie"),
        CheckConstraint("(los_lat IS NULL) = (los_lng IS NULL)", name="los_locatie"),
        ForeignKeyConstraint(
            ["transporteur_id", "papieren_bon_id"], ["bestanden.transporteur_id", "bestanden.id"]
        ),
        CheckConstraint(
            "(papieren_bon_id IS NULL) = (papieren_bon_reden IS NULL)", name="papieren_bon"
        ),
    )

    chauffeur_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    vehicle_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    activity_questionnaire_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    type: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="gepland")
    naam: Mapped[str] = mapped_column(String(200))
    omschrijving: Mapped[str | None] = mapped_column(Text)
    artikel: Mapped[str | None] = mapped_column(String(200))
    hoeveelheid: Mapped[float | None] = mapped_column(Float)
    eenheid: Mapped[str | None] = mapped_column(String(20))
    adres: Mapped[str | None] = mapped_column(String(200))
    postcode: Mapped[str | None] = mapped_column(String(16))
    stad: Mapped[str | None] = mapped_column(String(100))
    land: Mapped[str | None] = mapped_column(String(2))
    contactpersoon: Mapped[str | None] = mapped_column(String(200))
    telefoon: Mapped[str | None] = mapped_column(String(40))
    telefoon_mobiel: Mapped[str | None] = mapped_column(String(40))
    gepland_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Expected duration in minutes; empty: the default of the activity type (conflicts.py).
    duur_min: Mapped[int | None] = mapped_column(Integer)
    ontvangen_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    gestart_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    afgerond_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    require_photos: Mapped[bool] = mapped_column(default=False)
    min_fotos: Mapped[int | None] = mapped_column(Integer)
    max_fotos: Mapped[int | None] = mapped_column(Integer)
    require_signature: Mapped[bool] = mapped_column(default=False)
    require_document_scan: Mapped[bool] = mapped_column(default=False)
    require_location: Mapped[bool] = mapped_column(default=False)
    photo_label: Mapped[str | None] = mapped_column(String(200))
    opmerkingen: Mapped[str | None] = mapped_column(Text)
    vdm_nummer: Mapped[str | None] = mapped_column(String(40))
    agr_verplicht: Mapped[bool] = mapped_column(default=False)
    required_desinfectie: Mapped[bool] = mapped_column(default=False)
    required_temperatuur: Mapped[float | None] = mapped_column(Float)
    kooiaap: Mapped[bool] = mapped_column(default=False)
    locatie_lat: Mapped[float | None] = mapped_column(Float)
    locatie_lng: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    # What the driver recorded to meet the task's demands.
    gemeten_temperatuur: Mapped[float | None] = mapped_column(Float)
    desinfectie_bevestigd: Mapped[bool] = mapped_column(default=False, server_default=false())
    afgerond_lat: Mapped[float | None] = mapped_column(Float)
    afgerond_lng: Mapped[float | None] = mapped_column(Float)
    # A deleted task that was completed is archived, never lost: billed work stays.
    gearchiveerd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Who the work is for, and where a transport loads and unloads (route.py): each place a
    # copy of the address as planned, from the customer's place when one is chosen, so a
    # place changed later leaves planned and billed work as it was. Additive to the seed's
    # main address above, which stays what the driver app navigates to.
    klant_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    laadlocatie_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    laad_naam: Mapped[str | None] = mapped_column(String(200))
    laad_adres: Mapped[str | None] = mapped_column(String(200))
    laad_postcode: Mapped[str | None] = mapped_column(String(16))
    laad_stad: Mapped[str | None] = mapped_column(String(100))
    laad_land: Mapped[str | None] = mapped_column(String(2))
    laad_lat: Mapped[float | None] = mapped_column(Float)
    laad_lng: Mapped[float | None] = mapped_column(Float)
    loslocatie_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    los_naam: Mapped[str | None] = mapped_column(String(200))
    los_adres: Mapped[str | None] = mapped_column(String(200))
    los_postcode: Mapped[str | None] = mapped_column(String(16))
    los_stad: Mapped[str | None] = mapped_column(String(100))
    los_land: Mapped[str | None] = mapped_column(String(2))
    los_lat: Mapped[float | None] = mapped_column(Float)
    los_lng: Mapped[float | None] = mapped_column(Float)
    # Completed by a planner on a paper delivery note (tasks/paper.py): its scan and why the
    # driver could not fill it in; both or neither, cleared when the task is reopened.
    papieren_bon_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    papieren_bon_reden: Mapped[str | None] = mapped_column(Text)
    # Bumped on every change: the ETag of the task.
    versie: Mapped[int] = mapped_column(Integer, default=1)

    __mapper_args__ = {"version_id_col": versie}


EVIDENCE_KINDS = ("photo", "signature", "document_scan")


class TaskEvidence(CarrierScoped, db.Model):
    """A file the driver attached to a task as proof of delivery."""

    __tablename__ = "taak_bewijzen"
    __table_args__ = (
        ForeignKeyConstraint(["transporteur_id", "taak_id"], ["taken.transporteur_id", "taken.id"]),
        ForeignKeyConstraint(
            ["transporteur_id", "bestand_id"], ["bestanden.transporteur_id", "bestanden.id"]
        ),
        UniqueConstraint("transporteur_id", "taak_id", "bestand_id"),
        CheckConstraint("soort IN ('photo', 'signature', 'document_scan')", name="soort"),
        Index("ix_taak_bewijzen_taak", "transporteur_id", "taak_id"),
    )

    taak_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    bestand_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    soort: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
