"""Idempotency-Key records: a retried write answers its first response.

Keys are scoped to carrier and caller and kept 7 days (phones go offline for days). A retry
with the same key and body replays the stored response; with another body it is refused
(422); while the first is still running it is refused with 409.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

import orjson
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from portal.errors import Conflict, ValidationFailed
from portal.extensions import db
from portal.idempotency.models import IdempotencyRecord
from portal.types import utcnow

KEEP = timedelta(days=7)


@dataclass(frozen=True)
class Replay:
    status: int
    body: str
    headers: dict


def claim(
    *, carrier_id: uuid.UUID, caller: str, key: str, request_hash: str
) -> Replay | IdempotencyRecord:
    """Claim key for this request, or answer the stored response of an earlier one."""
    now = utcnow()
    existing = _find(carrier_id, caller, key)
    if existing is not None and existing.expires_at <= now:
        db.session.delete(existing)
        db.session.flush()
        existing = None
    if existing is None:
        record = IdempotencyRecord(
            transporteur_id=carrier_id,
            caller=caller,
            key=key,
            request_hash=request_hash,
            status="running",
            expires_at=now + KEEP,
        )
        try:
            with db.session.begin_nested():
                db.session.add(record)
        except IntegrityError:
            # Another request claimed the same key a moment ago.
            raise Conflict(
                "A request with this Idempotency-Key is still being processed; retry later."
            ) from None
        return record
    if existing.request_hash != request_hash:
        raise ValidationFailed(
            [{"field": "Idempotency-Key", "message": "already used for a different request"}],
            detail="This Idempotency-Key was used for a different request.",
        )
    if existing.status == "running":
        raise Conflict("A request with this Idempotency-Key is still being processed; retry later.")
    return Replay(
        existing.response_status,
        existing.response_body or "",
        orjson.loads(existing.response_headers or "{}"),
    )


def complete(*, record: IdempotencyRecord, status: int, body: str, headers: dict) -> None:
    """Store the response of a claimed request, to replay it to retries."""
    record.status = "done"
    record.response_status = status
    record.response_body = body
    record.response_headers = orjson.dumps(headers).decode()


def release(*, carrier_id: uuid.UUID, caller: str, key: str) -> None:
    """Forget a claim whose request failed, so a retry runs it again."""
    db.session.execute(
        delete(IdempotencyRecord).where(
            IdempotencyRecord.transporteur_id == carrier_id,
            IdempotencyRecord.caller == caller,
            IdempotencyRecord.key == key,
            IdempotencyRecord.status == "running",
        )
    )


def _find(carrier_id: uuid.UUID, caller: str, key: str) -> IdempotencyRecord | None:
    return db.session.scalar(
        select(IdempotencyRecord).where(
            IdempotencyRecord.transporteur_id == carrier_id,
            IdempotencyRecord.caller == caller,
            IdempotencyRecord.key == key,
        )
    )
