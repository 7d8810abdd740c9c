"""Writing and reading the audit trail."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

import orjson
from flask_babel import lazy_gettext as _l
from sqlalchemy import func, select

from portal import request_ids
from portal.audit.models import AuditEntry
from portal.extensions import db

# How each kind of actor is named in a history ("by Els Vos (portal)").
ACTOR_LABELS = {
    "user": _l("portaal"),
    "driver": _l("chauffeur"),
    "api_key": _l("koppeling"),
    "system": _l("systeem"),
}


@dataclass(frozen=True)
class Actor:
    """Who acts: a portal user, a driver, an API key or the system."""

    type: str
    id: uuid.UUID | None
    label: str


SYSTEM = Actor("system", None, "system")


def record(
    *,
    carrier_id: uuid.UUID,
    actor: Actor,
    entity: str,
    entity_id: uuid.UUID,
    action: str,
    changes: dict | None = None,
) -> AuditEntry:
    """Append one entry to the carrier's audit trail."""
    entry = AuditEntry(
        transporteur_id=carrier_id,
        actor_type=actor.type,
        actor_id=actor.id,
        actor_label=actor.label,
        entity=entity,
        entity_id=entity_id,
        action=action,
        changes=orjson.dumps(changes or {}, default=str).decode(),
        request_id=request_ids.current(),
    )
    db.session.add(entry)
    return entry


def entries_for(*, carrier_id: uuid.UUID, entity: str, entity_id: uuid.UUID) -> list[AuditEntry]:
    """The trail of one object, oldest first."""
    stmt = (
        select(AuditEntry)
        .where(
            AuditEntry.transporteur_id == carrier_id,
            AuditEntry.entity == entity,
            AuditEntry.entity_id == entity_id,
        )
        .order_by(AuditEntry.at, AuditEntry.id)
    )
    return list(db.session.scalars(stmt))


def count_since(
    *, carrier_id: uuid.UUID, entity: str, actions: tuple[str, ...], since: datetime
) -> tuple[int, datetime | None]:
    """How many entries of these actions on this kind of object the carrier's trail has
    since then, and when the oldest of them was (what a limit per carrier counts)."""
    count, oldest = db.session.execute(
        select(func.count(), func.min(AuditEntry.at)).where(
            AuditEntry.transporteur_id == carrier_id,
            AuditEntry.entity == entity,
            AuditEntry.action.in_(actions),
            AuditEntry.at >= since,
        )
    ).one()
    return count, oldest
