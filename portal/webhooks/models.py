"""Webhook endpoints that carriers' systems register, the events of the carrier's changes
(an outbox written in the same transaction as each change), one delivery per event and
endpoint, and every delivery attempt: what the worker (`flask deliver-webhooks`) drains."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
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

# queued: waiting for its (next) attempt; sent: the receiver answered 2xx; failed: given up
# (the reason is in `fout`); an admin may queue a failed or sent delivery again.
DELIVERY_STATUSES = ("queued", "sent", "failed")
ATTEMPT_RESULTS = ("sent", "retry", "failed")
URL_MAX = 1024
ANSWER_KEPT = 1024  # the first bytes of a receiver's answer shown with each attempt


class WebhookEndpoint(CarrierScoped, db.Model):
    """A URL of the carrier's own system that receives the events it subscribed to, signed
    with the endpoint's secret. A paused endpoint keeps its deliveries queued until resumed."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = (Index("ix_webhook_endpoints_created", "transporteur_id", "created_at"),)

    url: Mapped[str] = mapped_column(String(URL_MAX))
    omschrijving: Mapped[str] = mapped_column(String(200), default="")
    # The event types, space-separated (a small fixed vocabulary: events.EVENT_TYPES).
    gebeurtenissen: Mapped[str] = mapped_column(String(500))
    actief: Mapped[bool] = mapped_column(Boolean, default=True)
    # Why it was paused: None when an admin paused it, else a failure (failures.py) of the
    # delivery that made the worker pause it.
    pauze_reden: Mapped[str | None] = mapped_column(String(1000))
    gepauzeerd_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The signing secret ("whsec_" + base64): shown once when made or rotated.
    geheim: Mapped[str] = mapped_column(String(100))
    # Since when every attempt failed (None after a success): an endpoint failing for a day
    # is paused.
    fouten_sinds: Mapped[datetime | None] = mapped_column(UTCDateTime)
    laatste_succes_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    @property
    def event_types(self) -> list[str]:
        return self.gebeurtenissen.split()


class WebhookEvent(CarrierScoped, db.Model):
    """One change worth telling: its envelope is written once, as the bytes every delivery
    of it sends (`{id, type, created_at, transporteur_id, data}`)."""

    __tablename__ = "webhook_gebeurtenissen"
    __table_args__ = (Index("ix_webhook_gebeurtenissen_created", "transporteur_id", "created_at"),)

    type: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # What deliveries of the same key keep their order by (a task's id); None: no order.
    volgorde_sleutel: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    # Increasing within a carrier: the order of events of the same key.
    volgnummer: Mapped[int] = mapped_column(BigInteger)
    body: Mapped[str] = mapped_column(Text)


class WebhookDelivery(CarrierScoped, db.Model):
    """One event to one endpoint: queued until the receiver accepts it or it is given up."""

    __tablename__ = "webhook_leveringen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "endpoint_id"],
            ["webhook_endpoints.transporteur_id", "webhook_endpoints.id"],
            ondelete="CASCADE",
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "gebeurtenis_id"],
            ["webhook_gebeurtenissen.transporteur_id", "webhook_gebeurtenissen.id"],
        ),
        CheckConstraint("status IN ('queued', 'sent', 'failed')", name="status"),
        CheckConstraint("pogingen >= 0", name="pogingen"),
        Index("ix_webhook_leveringen_endpoint", "transporteur_id", "endpoint_id", "created_at"),
        # Per endpoint and key, the earliest queued delivery goes first.
        Index(
            "ix_webhook_leveringen_volgorde",
            "transporteur_id",
            "endpoint_id",
            "volgorde_sleutel",
            "volgnummer",
            postgresql_where=text("status = 'queued'"),
            sqlite_where=text("status = 'queued'"),
        ),
        # The worker's outbox: queued deliveries by when their next attempt is due.
        Index(
            "ix_webhook_leveringen_due",
            "volgende_poging_op",
            postgresql_where=text("status = 'queued'"),
            sqlite_where=text("status = 'queued'"),
        ),
    )

    endpoint_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    gebeurtenis_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    type: Mapped[str] = mapped_column(String(40))
    volgorde_sleutel: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    volgnummer: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    pogingen: Mapped[int] = mapped_column(Integer, default=0)
    volgende_poging_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    claim_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    verzonden_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    fout: Mapped[str | None] = mapped_column(String(1000))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class WebhookAttempt(CarrierScoped, db.Model):
    """One try to deliver: what the receiver answered (status, the first bytes) and how long
    it took, or why it could not be reached."""

    __tablename__ = "webhook_pogingen"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "levering_id"],
            ["webhook_leveringen.transporteur_id", "webhook_leveringen.id"],
            ondelete="CASCADE",
        ),
        CheckConstraint("resultaat IN ('sent', 'retry', 'failed')", name="resultaat"),
        Index("ix_webhook_pogingen_levering", "transporteur_id", "levering_id", "poging"),
    )

    levering_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    poging: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    resultaat: Mapped[str] = mapped_column(String(16))
    http_status: Mapped[int | None] = mapped_column(Integer)
    duur_ms: Mapped[int] = mapped_column(Integer, default=0)
    antwoord: Mapped[str | None] = mapped_column(Text)
    fout: Mapped[str | None] = mapped_column(String(1000))
