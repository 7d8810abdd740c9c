"""Customers (klanten) and their places (klant_locaties)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    Float,
    ForeignKeyConstraint,
    Index,
    String,
    Text,
    UniqueConstraint,
    Uuid,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

# What happens at a place: loading, unloading, or both (a farm that gets feed and gives manure).
PLACE_KINDS = ("laden", "lossen", "beide")


class Customer(CarrierScoped, db.Model):
    """Someone the carrier works for and invoices. `debiteurnummer` is the customer's number
    in the carrier's bookkeeping: unique within the carrier when given. A customer is
    deactivated rather than deleted once work refers to it."""

    __tablename__ = "klanten"
    __table_args__ = (
        # NULLs are distinct on both databases: many customers may have no number yet.
        UniqueConstraint("transporteur_id", "debiteurnummer"),
        Index("ix_klanten_naam", "transporteur_id", "naam"),
        CheckConstraint(
            "btw_categorie IS NULL OR btw_categorie IN ('S', 'Z', 'E', 'AE', 'O')",
            name="btw_categorie",
        ),
        CheckConstraint(
            "vies_status IS NULL OR vies_status IN ('geldig', 'ongeldig')", name="vies_status"
        ),
    )

    naam: Mapped[str] = mapped_column(String(200))
    debiteurnummer: Mapped[str | None] = mapped_column(String(50))
    btw_nummer: Mapped[str | None] = mapped_column(String(20))  # stored compact: NL123456789B01
    factuur_email: Mapped[str | None] = mapped_column(String(254))
    # The address invoices go to, apart from the places where the work is done.
    factuur_adres: Mapped[str | None] = mapped_column(String(200))
    factuur_postcode: Mapped[str | None] = mapped_column(String(16))
    factuur_plaats: Mapped[str | None] = mapped_column(String(100))
    factuur_land: Mapped[str | None] = mapped_column(String(2))  # ISO 3166-1 (EN 16931 list)
    # Identifiers an e-invoice routes and names the buyer by: the Chamber of Commerce number,
    # the GS1 location number, and a Peppol participant id written scheme:id (0106:12345678).
    kvk_nummer: Mapped[str | None] = mapped_column(String(8))
    gln: Mapped[str | None] = mapped_column(String(13))
    peppol_id: Mapped[str | None] = mapped_column(String(100))
    # The customer's own VAT treatment (EN 16931 category: AE reverse charge, O not subject
    # to VAT, ...) with its reason; empty: the tariff's category holds.
    btw_categorie: Mapped[str | None] = mapped_column(String(2))
    btw_vrijstellingsreden: Mapped[str | None] = mapped_column(String(300))
    # The last check of btw_nummer in the EU's VIES service: which number, when, the answer.
    vies_btw_nummer: Mapped[str | None] = mapped_column(String(20))
    vies_status: Mapped[str | None] = mapped_column(String(12))  # geldig | ongeldig
    vies_naam: Mapped[str | None] = mapped_column(String(200))
    vies_gecontroleerd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    opmerkingen: Mapped[str | None] = mapped_column(Text)
    actief: Mapped[bool] = mapped_column(default=True, server_default=true())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class CustomerPlace(CarrierScoped, db.Model):
    """A customer's loading or unloading place ("Erf Enter", "Mengvoederfabriek"): its
    address, coordinates (both or neither), opening hours, contact, and remarks for the
    driver."""

    __tablename__ = "klant_locaties"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "klant_id"], ["klanten.transporteur_id", "klanten.id"]
        ),
        CheckConstraint(
            "soort IN (" + ", ".join(repr(kind) for kind in PLACE_KINDS) + ")", name="soort"
        ),
        CheckConstraint(
            "(locatie_lat IS NULL) = (locatie_lng IS NULL)", name="locatie_beide_of_geen"
        ),
        CheckConstraint(
            "locatie_lat IS NULL OR (locatie_lat BETWEEN -90 AND 90 "
            "AND locatie_lng BETWEEN -180 AND 180)",
            name="locatie_bereik",
        ),
        Index("ix_klant_locaties_klant", "transporteur_id", "klant_id"),
    )

    klant_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    naam: Mapped[str] = mapped_column(String(200))
    soort: Mapped[str] = mapped_column(String(10), default="beide", server_default="beide")
    adres: Mapped[str | None] = mapped_column(String(200))
    postcode: Mapped[str | None] = mapped_column(String(16))
    stad: Mapped[str | None] = mapped_column(String(100))
    land: Mapped[str] = mapped_column(String(2), default="NL", server_default="NL")
    locatie_lat: Mapped[float | None] = mapped_column(Float)
    locatie_lng: Mapped[float | None] = mapped_column(Float)
    openingstijden: Mapped[str | None] = mapped_column(String(500))
    contactpersoon: Mapped[str | None] = mapped_column(String(200))
    telefoon: Mapped[str | None] = mapped_column(String(50))
    opmerkingen: Mapped[str | None] = mapped_column(Text)  # for the driver
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
