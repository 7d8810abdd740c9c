"""Tachograph files (tacho_bestanden): the downloads of drivers' cards and vehicle units.

The bytes live in the file store (a `bestanden` row of soort "tacho"); this row says what the
file is, what it covers and whom it is about. A file is stored once per carrier: its SHA-256
is unique within the carrier.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    UniqueConstraint,
    Uuid,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tacho.ddd.detect import BESTUURDERSKAART, VOERTUIGEENHEID
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

# "onbekend" is named so the column can say it, but the product never stores it: content
# that is neither a driver card nor a vehicle unit download is refused.
SOORTEN = (BESTUURDERSKAART, VOERTUIGEENHEID, "onbekend")


class TachoFile(CarrierScoped, db.Model):
    """One uploaded tachograph download and what was read from it."""

    __tablename__ = "tacho_bestanden"
    __table_args__ = (
        UniqueConstraint("transporteur_id", "sha256"),
        ForeignKeyConstraint(
            ["transporteur_id", "bestand_id"], ["bestanden.transporteur_id", "bestanden.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "vehicle_id"], ["voertuigen.transporteur_id", "voertuigen.id"]
        ),
        CheckConstraint(
            "soort IN ('bestuurderskaart', 'voertuigeenheid', 'onbekend')", name="soort"
        ),
        CheckConstraint(
            "periode_van IS NULL OR periode_tot IS NULL OR periode_van <= periode_tot",
            name="periode",
        ),
        # The list: newest first, per driver, per vehicle.
        Index("ix_tacho_bestanden_geupload_op", "transporteur_id", "geupload_op"),
        Index("ix_tacho_bestanden_chauffeur", "transporteur_id", "chauffeur_id", "geupload_op"),
        Index("ix_tacho_bestanden_vehicle", "transporteur_id", "vehicle_id", "geupload_op"),
        Index("ix_tacho_bestanden_kaartnummer", "transporteur_id", "kaartnummer"),
    )

    bestand_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    soort: Mapped[str] = mapped_column(String(20))
    generatie: Mapped[str] = mapped_column(String(5))  # "1", "2" or "2.2"
    bestandsnaam: Mapped[str] = mapped_column(String(255))
    sha256: Mapped[str] = mapped_column(String(64))
    grootte: Mapped[int] = mapped_column(BigInteger)
    chauffeur_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    vehicle_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    # The days the data covers, half open: the first day 00:00 UTC up to the end of the last.
    periode_van: Mapped[datetime | None] = mapped_column(UTCDateTime)
    periode_tot: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Whether the period was read from the file (else a planner gave it, or it is unknown
    # and lists fall back on the upload date).
    periode_uit_bestand: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false()
    )
    kaartnummer: Mapped[str | None] = mapped_column(String(20))
    houder: Mapped[str | None] = mapped_column(String(100))
    vin: Mapped[str | None] = mapped_column(String(17))
    kenteken: Mapped[str | None] = mapped_column(String(20))
    geupload_op: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    geupload_door: Mapped[str] = mapped_column(String(200))
    geupload_door_type: Mapped[str] = mapped_column(String(16))
    geupload_door_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    # The moment of the download, as well as it can be told (the vendor's file name, the
    # card's own record, else the upload): the download day's data ends there.
    gedownload_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Read in full (days stored in tacho_dagen); False for files stored before files were
    # read, until `flask tacho-reread` has read them.
    gelezen: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class TachoDay(CarrierScoped, db.Model):
    """One UTC day of one driver card as the tachograph recorded it: its activity changes
    and their totals. A day is stored once per card (the newest download that holds it wins;
    a card's own download beats a vehicle unit's view of it); `chauffeur_id` follows the
    driver whose card number it is."""

    __tablename__ = "tacho_dagen"
    __table_args__ = (
        UniqueConstraint("transporteur_id", "kaartnummer", "datum"),
        ForeignKeyConstraint(
            ["transporteur_id", "tacho_bestand_id"],
            ["tacho_bestanden.transporteur_id", "tacho_bestanden.id"],
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        CheckConstraint("bron IN ('kaart', 'voertuig')", name="bron"),
        Index("ix_tacho_dagen_chauffeur", "transporteur_id", "chauffeur_id", "datum"),
        Index("ix_tacho_dagen_bestand", "transporteur_id", "tacho_bestand_id", "datum"),
    )

    kaartnummer: Mapped[str] = mapped_column(String(20))
    chauffeur_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    datum: Mapped[date] = mapped_column(Date)
    tacho_bestand_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    bron: Mapped[str] = mapped_column(String(10))  # kaart or voertuig
    gedownload_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Where the day's data ends when it is the download day (else null: until midnight).
    tot: Mapped[datetime | None] = mapped_column(UTCDateTime)
    aanwezigheid: Mapped[int | None] = mapped_column(Integer)
    afstand_km: Mapped[int | None] = mapped_column(Integer)
    rijden_min: Mapped[int] = mapped_column(Integer, default=0)
    werk_min: Mapped[int] = mapped_column(Integer, default=0)
    beschikbaar_min: Mapped[int] = mapped_column(Integer, default=0)
    rust_min: Mapped[int] = mapped_column(Integer, default=0)
    onbekend_min: Mapped[int] = mapped_column(Integer, default=0)
    # [[minuut, activiteit, kaart_in, bemanning, handmatig, slot], ...] in the order the card
    # recorded them (a vehicle unit whose clock lagged can make a minute go back).
    wijzigingen: Mapped[list] = mapped_column(JSON, default=list)
    voertuigen: Mapped[list] = mapped_column(JSON, default=list)  # registrations seen that day
    # [[kenteken, van_minuut, tot_minuut], ...]: which registration the card was in, from
    # which minute of the UTC day to which (the card's vehicle records); null for days read
    # before it was kept.
    voertuiggebruik: Mapped[list | None] = mapped_column(JSON)


# The national exemptions of Regulation (EC) 561/2006 Art. 13(1) a carrier can rely on for an
# activity type (docs/eu561-scope.md): which the Netherlands grants, and on what conditions,
# is national law, checked by the carrier.
VRIJSTELLING_ARTIKELEN = ("13(1)(b)", "13(1)(c)", "13(1)(l)", "13(1)(n)", "13(1)(p)")


class DrivingRulesExemption(CarrierScoped, db.Model):
    """An activity type a carrier carries out under a national exemption from EU 561/2006
    (Art. 13(1)), with the article it relies on: such work is shown as exempt, never as an
    infringement, and still counts as working time."""

    __tablename__ = "rijtijden_vrijstellingen"
    __table_args__ = (
        UniqueConstraint("transporteur_id", "activiteit"),
        CheckConstraint(
            "artikel IN ({})".format(", ".join(repr(a) for a in VRIJSTELLING_ARTIKELEN)),
            name="artikel",
        ),
    )

    activiteit: Mapped[str] = mapped_column(String(64))
    artikel: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
