"""Vehicles (voertuigen) of a carrier and the sessions in which a driver drives one."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    Uuid,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

# The kinds of vehicle a carrier runs, in the order a planner picks from: the motorised ones,
# then the towed ones (portal/fleet/rules.py: MOTORISED, TOWED and how they couple).
SOORTEN = (
    "vrachtwagen",  # a rigid truck (bakwagen), e.g. with a tank or a livestock body
    "opleggertrekker",  # a truck tractor unit that pulls a semi-trailer
    "landbouwtrekker",  # an agricultural tractor (RDW category T)
    "bestelbus",  # a van
    "aanhangwagen",  # a drawbar trailer, behind a truck or an agricultural tractor
    "oplegger",  # a semi-trailer: tank, walking floor, livestock, reefer
    "landbouwaanhanger",  # an agricultural trailer (may carry the tractor's repeat plate)
    "overig",
)
# Kinds renamed by migration c0d1c0de0330: the API refuses them, naming the new one.
OLD_SOORTEN = {"trekker": "opleggertrekker", "aanhanger": "aanhangwagen"}
# The only kind that may lack a plate of its own (it carries its tractor's repeat plate).
WITHOUT_PLATE = "landbouwaanhanger"
MAX_SNELHEID = 200
# Units of a vehicle's capacity: the units tasks are planned in.
EENHEDEN = ("ton", "m3", "liter", "pallets", "stuks")

SESSION_STATUSES = ("pending", "active", "ended")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Vehicle(CarrierScoped, db.Model):
    """A truck, tractor or trailer, known by its licence plate (kenteken, stored as painted:
    'BX-12-LP') or, an agricultural trailer on its tractor's repeat plate only, by its fleet
    number (vlootnummer, unique within the carrier when set). `qr_versie` is the version of
    the QR sticker in its cab: rotating it makes every older sticker fail. Its capabilities
    (tank, livestock, kooiaap, ...) are VehicleCapability rows."""

    __tablename__ = "voertuigen"
    __table_args__ = (
        UniqueConstraint("transporteur_id", "kenteken"),
        UniqueConstraint("transporteur_id", "vlootnummer"),
        CheckConstraint(_in("soort", SOORTEN), name="soort"),
        CheckConstraint(
            "capaciteit_eenheid IS NULL OR " + _in("capaciteit_eenheid", EENHEDEN),
            name="capaciteit_eenheid",
        ),
        CheckConstraint("capaciteit IS NULL OR capaciteit > 0", name="capaciteit"),
        CheckConstraint(
            "kenteken IS NOT NULL OR vlootnummer IS NOT NULL", name="kenteken_of_vlootnummer"
        ),
        CheckConstraint(
            f"kenteken IS NOT NULL OR soort = '{WITHOUT_PLATE}'", name="zonder_kenteken"
        ),
        CheckConstraint(
            f"max_snelheid_kmh IS NULL OR max_snelheid_kmh BETWEEN 1 AND {MAX_SNELHEID}",
            name="max_snelheid",
        ),
    )

    kenteken: Mapped[str | None] = mapped_column(String(20))
    vlootnummer: Mapped[str | None] = mapped_column(String(20))
    soort: Mapped[str] = mapped_column(
        String(20), default="vrachtwagen", server_default="vrachtwagen"
    )
    omschrijving: Mapped[str | None] = mapped_column(String(200))
    capaciteit: Mapped[float | None] = mapped_column(Float)
    capaciteit_eenheid: Mapped[str | None] = mapped_column(String(10))
    max_snelheid_kmh: Mapped[int | None] = mapped_column(Integer)  # by design (EU 561 scope)
    opmerkingen: Mapped[str | None] = mapped_column(Text)
    actief: Mapped[bool] = mapped_column(default=True)
    qr_versie: Mapped[int] = mapped_column(Integer, default=1, server_default=text("1"))
    versie: Mapped[int] = mapped_column(Integer, default=1, server_default=text("1"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    __mapper_args__ = {"version_id_col": versie}

    @property
    def label(self) -> str:
        """How the vehicle is named wherever it shows: its plate, else its fleet number."""
        return self.kenteken or f"#{self.vlootnummer}"


class CapabilityEntry(CarrierScoped, db.Model):
    """A carrier's change to its capability catalogue: a default (portal/fleet/capabilities.py
    DEFAULTS) renamed or switched off, or a capability of its own. Codes absent here are the
    defaults as they are."""

    __tablename__ = "kenmerken"
    __table_args__ = (UniqueConstraint("transporteur_id", "code"),)

    code: Mapped[str] = mapped_column(String(40))
    naam: Mapped[str] = mapped_column(String(100))
    actief: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class VehicleCapability(CarrierScoped, db.Model):
    """A capability a vehicle has, with its parameters ({"volume_m3": 18.0}, ...)."""

    __tablename__ = "voertuig_kenmerken"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "vehicle_id"], ["voertuigen.transporteur_id", "voertuigen.id"]
        ),
        UniqueConstraint("transporteur_id", "vehicle_id", "code"),
    )

    vehicle_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    code: Mapped[str] = mapped_column(String(40))
    parameters: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ActivityNeeds(CarrierScoped, db.Model):
    """The capabilities an activity type needs of the vehicle combination that does it; an
    activity type without a row needs the defaults (portal/fleet/capabilities.py)."""

    __tablename__ = "activiteit_kenmerken"
    __table_args__ = (UniqueConstraint("transporteur_id", "activity_type"),)

    activity_type: Mapped[str] = mapped_column(String(64))
    kenmerken: Mapped[list] = mapped_column(JSON, default=list)  # capability codes
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class VehicleSession(CarrierScoped, db.Model):
    """A driver in a vehicle: started in the app (pending), made active by scanning the QR
    sticker in the cab, ended by the driver or a planner. The database holds that a vehicle
    has at most one active session and a driver at most one."""

    __tablename__ = "voertuig_sessies"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "vehicle_id"], ["voertuigen.transporteur_id", "voertuigen.id"]
        ),
        CheckConstraint(_in("status", SESSION_STATUSES), name="status"),
        CheckConstraint(
            "status <> 'active' OR (vehicle_id IS NOT NULL AND gestart_op IS NOT NULL)",
            name="active_started",
        ),
        Index(
            "uq_voertuig_sessies_active_vehicle",
            "transporteur_id",
            "vehicle_id",
            unique=True,
            postgresql_where=text("status = 'active'"),
            sqlite_where=text("status = 'active'"),
        ),
        Index(
            "uq_voertuig_sessies_active_driver",
            "transporteur_id",
            "chauffeur_id",
            unique=True,
            postgresql_where=text("status = 'active'"),
            sqlite_where=text("status = 'active'"),
        ),
        # The history of one vehicle and of one driver, newest first.
        Index("ix_voertuig_sessies_vehicle", "transporteur_id", "vehicle_id", "created_at"),
        Index("ix_voertuig_sessies_driver", "transporteur_id", "chauffeur_id", "created_at"),
        Index("ix_voertuig_sessies_created", "transporteur_id", "created_at"),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    vehicle_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    status: Mapped[str] = mapped_column(String(10), default="pending")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    verloopt_op: Mapped[datetime] = mapped_column(UTCDateTime)  # a pending scan's deadline
    gestart_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    beeindigd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    beeindigd_door: Mapped[str | None] = mapped_column(String(254))  # who ended it
    einde_reden: Mapped[str | None] = mapped_column(String(30))  # see fleet.sessions ENDED_*
    qr_versie: Mapped[int | None] = mapped_column(Integer)  # the sticker version scanned
