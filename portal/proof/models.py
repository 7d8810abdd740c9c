"""Share links of proof-of-delivery bundles (bewijs_links)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKeyConstraint, Index, String, UniqueConstraint, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow


class ProofLink(CarrierScoped, db.Model):
    """A link that opens one task's bundle without an account; only its token's hash is kept."""

    __tablename__ = "bewijs_links"
    __table_args__ = (
        ForeignKeyConstraint(["transporteur_id", "taak_id"], ["taken.transporteur_id", "taken.id"]),
        # A link's token is 256 random bits (service.create_link): a collision is no practical
        # concern, so unique per carrier (Citus) is enough; the hash's own index serves the
        # look-up of a link opened by a shipper, before the carrier is known.
        UniqueConstraint("transporteur_id", "token_hash"),
        Index("ix_bewijs_links_token_hash", "token_hash"),
        Index("ix_bewijs_links_taak", "transporteur_id", "taak_id", "created_at"),
    )

    taak_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    token_hash: Mapped[str] = mapped_column(String(64))  # sha256 hex of the raw token
    verloopt_op: Mapped[datetime] = mapped_column(UTCDateTime)
    ingetrokken_op: Mapped[datetime | None] = mapped_column(UTCDateTime)
    aangemaakt_door: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
