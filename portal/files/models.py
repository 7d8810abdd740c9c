"""Stored files (bestanden): photos, signatures, scans and tachograph downloads."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, Index, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow


class StoredFile(CarrierScoped, db.Model):
    """One uploaded file; its bytes live in the storage backend under `storage_key`."""

    __tablename__ = "bestanden"
    __table_args__ = (Index("ix_bestanden_sha256", "transporteur_id", "sha256"),)

    soort: Mapped[str] = mapped_column(String(20))  # photo, signature, document_scan
    content_type: Mapped[str] = mapped_column(String(100))
    grootte: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64))
    storage_key: Mapped[str] = mapped_column(String(300))
    bestandsnaam: Mapped[str | None] = mapped_column(String(255))
    geupload_door_type: Mapped[str] = mapped_column(String(16))
    geupload_door_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
