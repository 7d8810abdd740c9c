"""Messages to drivers (berichten), the drivers' Web Push subscriptions, and each delivery
attempt: an outbox that the worker (`flask send-notifications`) drains."""

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
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

# queued: waiting for (another) push attempt; sent: a push service accepted it; failed: no push
# reached the phone (the reason is in `fout`; the message is still in the app's inbox);
# read: the driver opened it in the app. read is final.
STATUSES = ("queued", "sent", "failed", "read")
ATTEMPT_RESULTS = ("sent", "retry", "failed")
TITLE_MAX = 100
TEXT_MAX = 2000


class Message(CarrierScoped, db.Model):
    """One message to one driver. A planner's message to several drivers is several rows that
    share a `verzending_id` (the send batch)."""

    __tablename__ = "berichten"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "verzonden_door"], ["gebruikers.transporteur_id", "gebruikers.id"]
        ),
        CheckConstraint("status IN ('queued', 'sent', 'failed', 'read')", name="status"),
        CheckConstraint("pogingen >= 0", name="pogingen"),
        # The driver's inbox, newest first.
        Index("ix_berichten_chauffeur", "transporteur_id", "chauffeur_id", "created_at"),
        # The portal's history: batches, newest first.
        Index("ix_berichten_verzending", "transporteur_id", "verzending_id"),
        Index("ix_berichten_created", "transporteur_id", "created_at"),
        # The worker's outbox: queued messages by when their next attempt is due.
        Index(
            "ix_berichten_due",
            "volgende_poging_op",
            postgresql_where=text("status = 'queued'"),
            sqlite_where=text("status = 'queued'"),
        ),
    )

    verzending_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    titel: Mapped[str] = mapped_column(String(TITLE_MAX))
    tekst: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # The portal user who sent it; null when an integration (API key) did.
    verzonden_door: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    afzender: Mapped[str] = mapped_column(String(200), default="")
    verzonden_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    gelezen_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    fout: Mapped[str | None] = mapped_column(String(500))
    pogingen: Mapped[int] = mapped_column(Integer, default=0)
    # When the worker may try (again); while a worker holds the message, the end of its lease.
    volgende_poging_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The worker pass that holds the message; its result counts only while it still does.
    claim_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)


class PushSubscription(CarrierScoped, db.Model):
    """A driver's device, registered by the app from the browser's PushSubscription."""

    __tablename__ = "push_abonnementen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        UniqueConstraint("transporteur_id", "endpoint"),
        Index("ix_push_abonnementen_chauffeur", "transporteur_id", "chauffeur_id"),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    endpoint: Mapped[str] = mapped_column(String(1024))
    p256dh: Mapped[str] = mapped_column(String(128))
    auth: Mapped[str] = mapped_column(String(64))
    verloopt_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DeliveryAttempt(CarrierScoped, db.Model):
    """One try to hand a message to one push service (or the finding that there was none)."""

    __tablename__ = "bericht_pogingen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "bericht_id"], ["berichten.transporteur_id", "berichten.id"]
        ),
        CheckConstraint("resultaat IN ('sent', 'retry', 'failed')", name="resultaat"),
        Index("ix_bericht_pogingen_bericht", "transporteur_id", "bericht_id", "poging"),
    )

    bericht_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    poging: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    resultaat: Mapped[str] = mapped_column(String(16))
    http_status: Mapped[int | None] = mapped_column(Integer)
    fout: Mapped[str | None] = mapped_column(String(500))
    push_dienst: Mapped[str | None] = mapped_column(String(255))  # the push service's host


class WorkerStatus(db.Model):
    """When a push worker last polled the outbox: one row per kind of worker ("push").

    Not a tenant table: the worker serves every carrier and the row says nothing about any
    one of them, so it has no carrier column and no row-level security. The portal reads it
    to say plainly when pushes are not going out, instead of promising retries nobody makes.
    """

    __tablename__ = "push_worker_status"

    naam: Mapped[str] = mapped_column(String(40), primary_key=True)
    laatst_actief_op: Mapped[datetime] = mapped_column(UTCDateTime)
    # Seconds between polls when idle; null for a single run (--once, e.g. from cron).
    interval_seconden: Mapped[float | None] = mapped_column(Float)
