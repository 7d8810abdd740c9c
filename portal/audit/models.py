"""The audit trail: who changed what, when."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Index, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow


class AuditEntry(CarrierScoped, db.Model):
    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_entity", "transporteur_id", "entity", "entity_id", "at"),)

    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    actor_type: Mapped[str] = mapped_column(String(16))  # user, driver, api_key, system
    actor_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    actor_label: Mapped[str] = mapped_column(String(254))
    entity: Mapped[str] = mapped_column(String(40))
    entity_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    action: Mapped[str] = mapped_column(String(40))
    changes: Mapped[str] = mapped_column(Text, default="{}")  # JSON: {field: [old, new]}
    # The request that made the change (X-Request-ID): finds its log lines; null for jobs.
    request_id: Mapped[str | None] = mapped_column(String(64))
