"""Stored responses of writes sent with an Idempotency-Key."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow


class IdempotencyRecord(CarrierScoped, db.Model):
    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("transporteur_id", "caller", "key"),)

    caller: Mapped[str] = mapped_column(String(80))  # "driver:<id>" or "api_key:<id>"
    key: Mapped[str] = mapped_column(String(255))
    request_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="running")  # running, done
    response_status: Mapped[int | None] = mapped_column(Integer)
    response_body: Mapped[str | None] = mapped_column(Text)
    response_headers: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    verloopt_op: Mapped[datetime] = mapped_column(UTCDateTime)
    # A running claim holds until then; after it a retry takes the claim over (its worker
    # died). None: a claim of before leases, ended.
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
