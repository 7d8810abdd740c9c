"""Billing: a line per completed task, exported in batches so nothing is billed twice."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Date,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    Numeric,
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


class BillingLine(CarrierScoped, db.Model):
    """What a completed task is billed for: actual quantity, kilometres, waiting time."""

    __tablename__ = "facturatieregels"
    __table_args__ = (
        ForeignKeyConstraint(["transporteur_id", "taak_id"], ["taken.transporteur_id", "taken.id"]),
        ForeignKeyConstraint(
            ["transporteur_id", "export_id"],
            ["facturatie_exports.transporteur_id", "facturatie_exports.id"],
        ),
        Index("ix_facturatieregels_export", "transporteur_id", "export_id", "afgerond_op"),
        # One line per task: a completion sent twice updates it.
        Index("ix_facturatieregels_taak", "transporteur_id", "taak_id", unique=True),
        Index("ix_facturatieregels_klant", "transporteur_id", "klant_id", "afgerond_op"),
        CheckConstraint("hoeveelheid IS NULL OR hoeveelheid >= 0", name="hoeveelheid"),
        CheckConstraint("kilometers IS NULL OR kilometers >= 0", name="kilometers"),
        CheckConstraint("wachttijd_minuten IS NULL OR wachttijd_minuten >= 0", name="wachttijd"),
        CheckConstraint(
            "btw_categorie IS NULL OR btw_categorie IN ('S', 'Z', 'E', 'AE', 'O')",
            name="btw_categorie",
        ),
        CheckConstraint("uren IS NULL OR uren >= 0", name="uren"),
    )

    taak_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    chauffeur_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    afgerond_op: Mapped[datetime] = mapped_column(UTCDateTime)
    hoeveelheid: Mapped[float | None] = mapped_column(Float)
    eenheid: Mapped[str | None] = mapped_column(String(20))
    kilometers: Mapped[float | None] = mapped_column(Float)
    wachttijd_minuten: Mapped[int | None] = mapped_column(Integer)
    opmerkingen: Mapped[str | None] = mapped_column(Text)
    # When the actual work was reported (POST afronding); empty: the planned quantity counts,
    # as a completion on the board or by a status move left it.
    gemeld_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    export_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    # The price under the tariff that held (pricing.py), made with the line and again when
    # the work is reported: the net amount and its VAT, or why there is none (a code).
    tarief_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    bedrag: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    btw_procent: Mapped[Decimal | None] = mapped_column(Numeric(5, 2))
    btw_bedrag: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    prijs_reden: Mapped[str | None] = mapped_column(String(30))
    # The VAT category (EN 16931) and exemption reason the line is priced under, copied from
    # its tariff (or the customer's category) when priced; empty while it has no price.
    btw_categorie: Mapped[str | None] = mapped_column(String(2))
    btw_vrijstellingsreden: Mapped[str | None] = mapped_column(String(300))
    # Per hour: the minutes the task's own times record (`minuten_bron`: activiteiten, the
    # driver's hours on the task, or status, started to completed) and the hours billed for
    # them under the tariff's rounding and minimum: the line's priced quantity.
    gemeten_minuten: Mapped[int | None] = mapped_column(Integer)
    minuten_bron: Mapped[str | None] = mapped_column(String(20))
    uren: Mapped[Decimal | None] = mapped_column(Numeric(10, 4))
    # Priced by hand (a line no tariff prices): the amount stays until changed by hand; the
    # audit trail says who set it and when.
    handmatig: Mapped[bool] = mapped_column(default=False, server_default=false())
    # The task's customer when the line was made: whom the line is invoiced to.
    klant_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class BillingExport(CarrierScoped, db.Model):
    """One export batch of billing lines (CSV or XLSX), kept so it can be downloaded again."""

    __tablename__ = "facturatie_exports"

    van: Mapped[date] = mapped_column(Date)
    tot: Mapped[date] = mapped_column(Date)
    chauffeur_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    klant_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)  # the selection's customer
    regels: Mapped[int] = mapped_column(Integer)
    gemaakt_door: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Tariff(CarrierScoped, db.Model):
    """A price agreement for one activity type, valid from a day on: a customer's own
    (`klant_id`) or the carrier's default (`klant_id` NULL). A newer one of the same owner
    and type takes over from its `geldig_vanaf`; pricing.py says what a line costs under it.
    Amounts are exact decimals (Numeric; on SQLite read back at their scale)."""

    __tablename__ = "tarieven"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "klant_id"], ["klanten.transporteur_id", "klanten.id"]
        ),
        CheckConstraint("grondslag IN ('eenheid', 'vracht', 'uur', 'km')", name="grondslag"),
        CheckConstraint("prijs >= 0", name="prijs"),
        CheckConstraint("minimum IS NULL OR minimum >= 0", name="minimum"),
        CheckConstraint("wachttijd_vrij_minuten >= 0", name="wachttijd_vrij"),
        CheckConstraint("btw_procent >= 0 AND btw_procent <= 100", name="btw"),
        CheckConstraint("afronding_minuten IN (1, 5, 6, 10, 15, 30, 60)", name="afronding"),
        CheckConstraint("minimum_minuten >= 0 AND minimum_minuten <= 1440", name="minimum_minuten"),
        # EN 16931: standard rated above 0 %, the other categories at 0 %; an exemption
        # reason with E, AE and O only (BR-*-05, BR-*-10).
        CheckConstraint(
            "(btw_categorie = 'S' AND btw_procent > 0) "
            "OR (btw_categorie IN ('Z', 'E', 'AE', 'O') AND btw_procent = 0)",
            name="btw_categorie",
        ),
        CheckConstraint(
            "(btw_categorie = 'S' AND btw_vrijstellingsreden IS NULL) OR btw_categorie = 'Z' "
            "OR (btw_categorie IN ('E', 'AE', 'O') AND btw_vrijstellingsreden IS NOT NULL)",
            name="btw_vrijstellingsreden",
        ),
        # One tariff per owner, type and day it starts (the default's owner is NULL).
        Index(
            "uq_tarieven_klant",
            "transporteur_id",
            "klant_id",
            "activity_type",
            "geldig_vanaf",
            unique=True,
            postgresql_where=text("klant_id IS NOT NULL"),
            sqlite_where=text("klant_id IS NOT NULL"),
        ),
        Index(
            "uq_tarieven_standaard",
            "transporteur_id",
            "activity_type",
            "geldig_vanaf",
            unique=True,
            postgresql_where=text("klant_id IS NULL"),
            sqlite_where=text("klant_id IS NULL"),
        ),
    )

    klant_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    activity_type: Mapped[str] = mapped_column(String(40))
    geldig_vanaf: Mapped[date] = mapped_column(Date)
    grondslag: Mapped[str] = mapped_column(String(10))
    eenheid: Mapped[str | None] = mapped_column(String(20))
    prijs: Mapped[Decimal] = mapped_column(Numeric(12, 4))
    minimum: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    wachttijd_vrij_minuten: Mapped[int] = mapped_column(Integer, default=0)
    wachttijd_per_uur: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    weekend_toeslag_procent: Mapped[Decimal | None] = mapped_column(Numeric(5, 2))
    btw_procent: Mapped[Decimal] = mapped_column(Numeric(5, 2), default=Decimal(21))
    btw_categorie: Mapped[str] = mapped_column(String(2), default="S", server_default="S")
    btw_vrijstellingsreden: Mapped[str | None] = mapped_column(String(300))
    # Per hour: billed per this many minutes, rounded up, and at least the minimum minutes.
    afronding_minuten: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    minimum_minuten: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Invoice(CarrierScoped, db.Model):
    """An invoice (`soort` factuur) or a credit note (creditnota) to one customer.

    An export batch makes one invoice per customer whose lines in it are all priced (two when
    some lines are not subject to VAT: EN 16931 keeps those on an invoice of their own). An
    invoice that can be an e-invoice is issued at once: numbered in the carrier's series
    (2026-00001; credit notes C2026-00001), gap-free per year, and its document is stored in
    the same transaction: the UBL bytes and their SHA-256, the seller and buyer as they were,
    its lines (`factuur_regels`) and VAT breakdown. From then on it never changes: every
    download answers the stored bytes, and corrections are credit notes (which refer to the
    invoice they correct) and new invoices. One that cannot be made yet (the carrier's or the
    customer's details are missing) is a concept without a number until it is issued.
    The database refuses to change or delete an issued document (triggers, migration
    c0d1c0de0300): the law asks for seven years of keeping, this keeps them for good."""

    __tablename__ = "facturen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "export_id"],
            ["facturatie_exports.transporteur_id", "facturatie_exports.id"],
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "klant_id"], ["klanten.transporteur_id", "klanten.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "gecrediteerde_factuur_id"],
            ["facturen.transporteur_id", "facturen.id"],
        ),
        UniqueConstraint("transporteur_id", "nummer"),
        CheckConstraint("soort IN ('factuur', 'creditnota')", name="soort"),
        CheckConstraint(
            "soort = 'factuur' OR gecrediteerde_factuur_id IS NOT NULL", name="creditnota_factuur"
        ),
        # Issued: a number and a document. A concept has neither, except one numbered before
        # documents were kept and never issued (migration c0d1c0de0300).
        CheckConstraint(
            "(uitgegeven_op IS NULL) = (document IS NULL) "
            "AND (uitgegeven_op IS NULL OR nummer IS NOT NULL)",
            name="uitgegeven",
        ),
        Index("ix_facturen_datum", "transporteur_id", "datum"),
        Index("ix_facturen_export", "transporteur_id", "export_id"),
        Index("ix_facturen_gecrediteerd", "transporteur_id", "gecrediteerde_factuur_id"),
    )

    soort: Mapped[str] = mapped_column(String(12), default="factuur", server_default="factuur")
    export_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    klant_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    # Empty while a concept: given when the document is stored, in the same transaction.
    nummer: Mapped[str | None] = mapped_column(String(20))
    datum: Mapped[date] = mapped_column(Date)
    vervaldatum: Mapped[date] = mapped_column(Date)
    regels: Mapped[int] = mapped_column(Integer)
    bedrag: Mapped[Decimal] = mapped_column(Numeric(12, 2))  # net
    btw_bedrag: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    valuta: Mapped[str] = mapped_column(String(3), default="EUR", server_default="EUR")
    # Lines not subject to VAT (category O) go on an invoice of their own.
    niet_belast: Mapped[bool] = mapped_column(default=False, server_default=false())
    # A credit note: the invoice it corrects and why.
    gecrediteerde_factuur_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    reden: Mapped[str | None] = mapped_column(Text)
    # The issued document, as sent: never changed after issue.
    uitgegeven_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    uitgegeven_door: Mapped[str | None] = mapped_column(String(254))
    document: Mapped[bytes | None] = mapped_column(LargeBinary)
    document_sha256: Mapped[str | None] = mapped_column(String(64))
    pdf: Mapped[bytes | None] = mapped_column(LargeBinary)  # the same document, for people
    verkoper: Mapped[dict | None] = mapped_column(JSON)
    koper: Mapped[dict | None] = mapped_column(JSON)
    btw_uitsplitsing: Mapped[list | None] = mapped_column(JSON)
    # The buyer's VAT number as VIES answered for it before issue (reverse charge), or why
    # it was not checked.
    vies: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    @property
    def uitgegeven(self) -> bool:
        return self.uitgegeven_op is not None

    @property
    def is_creditnota(self) -> bool:
        return self.soort == "creditnota"


class InvoiceLine(CarrierScoped, db.Model):
    """A line of an issued invoice or credit note, as it was issued: what the document says,
    kept apart from the billing line and the task it came from (which may change or go)."""

    __tablename__ = "factuur_regels"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "factuur_id"], ["facturen.transporteur_id", "facturen.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "gecrediteerde_regel_id"],
            ["factuur_regels.transporteur_id", "factuur_regels.id"],
        ),
        UniqueConstraint("transporteur_id", "factuur_id", "volgnummer"),
        Index("ix_factuur_regels_gecrediteerd", "transporteur_id", "gecrediteerde_regel_id"),
        CheckConstraint("btw_categorie IN ('S', 'Z', 'E', 'AE', 'O')", name="btw_categorie"),
    )

    factuur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    volgnummer: Mapped[int] = mapped_column(Integer)
    # Where it came from, kept as plain ids: deleting a task never touches an invoice.
    facturatieregel_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    taak_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    naam: Mapped[str] = mapped_column(String(200))
    omschrijving: Mapped[str | None] = mapped_column(Text)
    notitie: Mapped[str | None] = mapped_column(Text)
    hoeveelheid: Mapped[Decimal | None] = mapped_column(Numeric(16, 4))
    eenheid: Mapped[str | None] = mapped_column(String(20))
    prijs: Mapped[Decimal | None] = mapped_column(Numeric(14, 4))
    bedrag: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    btw_categorie: Mapped[str] = mapped_column(String(2))
    btw_procent: Mapped[Decimal | None] = mapped_column(Numeric(5, 2))
    btw_vrijstellingsreden: Mapped[str | None] = mapped_column(String(300))
    datum: Mapped[date] = mapped_column(Date)
    # A credit note's line: the invoice line it credits.
    gecrediteerde_regel_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
