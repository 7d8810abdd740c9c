"""Idempotency-Key records: a retried write answers its first response.

Keys are scoped to carrier and caller and kept 7 days (phones go offline for days). A retry
with the same key and body replays the stored response; with another body it is refused
(422); while the first is still running it is refused with 409.

The claim is committed before the write runs, as a lease (LEASE): a worker that dies
mid-request (a timeout, a restart, its host gone) leaves it running, and once the lease has
ended a retry takes it over and runs the write. Only the holder of the current lease may
finish: the first request, if it was only slow and comes back after a takeover, finds its
lease gone and rolls its write back (`complete` answers False), so the write happens once.

On PostgreSQL a retry need not wait for the lease: the write's transaction holds a
transaction-level advisory lock on the claim (`hold`), which ends with that transaction,
however it ends: committed, rolled back, or its connection dropped because its worker or
host died, or the database restarted. A retry that finds the claim running but its lock
free knows no request is working on it, and takes it over at once.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

import orjson
from sqlalchemy import delete, or_, select, text, update
from sqlalchemy.exc import IntegrityError

from portal.errors import Conflict, ValidationFailed
from portal.extensions import db
from portal.idempotency.models import IdempotencyRecord
from portal.types import utcnow

KEEP = timedelta(days=7)
# Longer than any request may take: gunicorn.conf.py restarts a worker silent for 30 s
# and gives a stopping one 30 s more.
LEASE = timedelta(seconds=90)
STILL_RUNNING = "A request with this Idempotency-Key is still being processed; retry later."


def still_running() -> Conflict:
    """The 409 for a key whose first request is at work: retry in a second (a header,
    Retry-After; the body is the plain conflict)."""
    error = Conflict(STILL_RUNNING)
    error.retry_after = 1
    return error


@dataclass(frozen=True)
class Replay:
    status: int
    body: str
    headers: dict


def claim(
    *, carrier_id: uuid.UUID, caller: str, key: str, request_hash: str
) -> Replay | IdempotencyRecord:
    """Claim key for this request (the record, with its lease), or answer the stored
    response of an earlier one."""
    now = utcnow()
    existing = _find(carrier_id, caller, key)
    if existing is not None and existing.verloopt_op <= now:
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
            verloopt_op=now + KEEP,
            lease_until=now + LEASE,
        )
        try:
            with db.session.begin_nested():
                db.session.add(record)
        except IntegrityError:
            # Another request claimed the same key a moment ago.
            raise still_running() from None
        return record
    if existing.request_hash != request_hash:
        raise ValidationFailed(
            [{"field": "Idempotency-Key", "message": "already used for a different request"}],
            detail="This Idempotency-Key was used for a different request.",
        )
    if existing.status == "running":
        return _take_over(existing, now, abandoned=_abandoned(existing))
    return Replay(
        existing.response_status,
        existing.response_body or "",
        orjson.loads(existing.response_headers or "{}"),
    )


def _take_over(record: IdempotencyRecord, now, *, abandoned: bool) -> IdempotencyRecord:
    """A running claim whose lease has ended, or that no request holds any more (its
    worker died): this request's now. Of retries that try at once, the database lets one
    through (the row's lock, and the lease re-read after it)."""
    if not abandoned and record.lease_until is not None and record.lease_until > now:
        raise still_running()
    lease = now + LEASE
    if abandoned:  # the very claim found free: not one another retry took over meanwhile
        free = IdempotencyRecord.lease_until.is_not_distinct_from(record.lease_until)
    else:
        free = or_(IdempotencyRecord.lease_until.is_(None), IdempotencyRecord.lease_until <= now)
    taken = db.session.execute(
        update(IdempotencyRecord)
        .where(
            IdempotencyRecord.transporteur_id == record.transporteur_id,
            IdempotencyRecord.id == record.id,
            IdempotencyRecord.status == "running",
            free,
        )
        .values(lease_until=lease)
        .execution_options(synchronize_session=False)
    )
    if taken.rowcount != 1:
        raise still_running()
    db.session.expire(record)
    return record


_TRY_LOCK = text("SELECT pg_try_advisory_xact_lock(:k)")


def _lock_key(record_id: uuid.UUID) -> int:
    return int.from_bytes(record_id.bytes[:8], "big", signed=True)


def _postgres() -> bool:
    return db.session.get_bind().dialect.name == "postgresql"


def hold(*, claim: Claim) -> None:
    """Mark the claim worked on, for as long as the write's transaction lasts (PostgreSQL;
    elsewhere the lease alone). Never waits: if a request that lost the claim to this one
    (slower than its lease) still holds the lock, this one goes on all the same; the lease
    decides which of the two may finish (`complete`)."""
    if _postgres():
        db.session.execute(_TRY_LOCK, {"k": _lock_key(claim.record_id)})


def _abandoned(record: IdempotencyRecord) -> bool:
    """Whether no request works on this running claim: its transaction-level lock is free
    (taken here, it is held until this claim's own transaction ends)."""
    if not _postgres():
        return False
    return bool(db.session.scalar(_TRY_LOCK, {"k": _lock_key(record.id)}))


def _held(record_id: uuid.UUID, carrier_id: uuid.UUID, lease) -> list:
    return [
        IdempotencyRecord.transporteur_id == carrier_id,
        IdempotencyRecord.id == record_id,
        IdempotencyRecord.status == "running",
        IdempotencyRecord.lease_until == lease,
    ]


@dataclass(frozen=True)
class Claim:
    """A claimed key as the write that holds it remembers it: which record, which lease."""

    record_id: uuid.UUID
    carrier_id: uuid.UUID
    lease_until: object

    @classmethod
    def of(cls, record: IdempotencyRecord) -> Claim:
        return cls(record.id, record.transporteur_id, record.lease_until)


def complete(*, claim: Claim, status: int, body: str, headers: dict) -> bool:
    """Store the response of a claimed request, to replay it to retries, in the write's own
    transaction. False when the lease is no longer this request's (a retry took it over
    after it ended): the caller must roll its write back."""
    stored = db.session.execute(
        update(IdempotencyRecord)
        .where(*_held(claim.record_id, claim.carrier_id, claim.lease_until))
        .values(
            status="done",
            response_status=status,
            response_body=body,
            response_headers=orjson.dumps(headers).decode(),
        )
        .execution_options(synchronize_session=False)
    )
    return stored.rowcount == 1


def release(*, claim: Claim) -> None:
    """Forget a claim whose request failed, so a retry runs it again (not if another
    request holds it by now)."""
    db.session.execute(
        delete(IdempotencyRecord)
        .where(*_held(claim.record_id, claim.carrier_id, claim.lease_until))
        .execution_options(synchronize_session=False)
    )


def _find(carrier_id: uuid.UUID, caller: str, key: str) -> IdempotencyRecord | None:
    return db.session.scalar(
        select(IdempotencyRecord).where(
            IdempotencyRecord.transporteur_id == carrier_id,
            IdempotencyRecord.caller == caller,
            IdempotencyRecord.key == key,
        )
    )
