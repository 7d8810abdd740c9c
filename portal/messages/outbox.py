"""The outbox of messages: which carriers have due work, claiming due messages for one
worker pass, and recording each attempt's outcome. Used by the worker (worker.py); together
with service.py the only door to berichten, push_abonnementen and bericht_pogingen."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update

from portal import counters
from portal.extensions import db
from portal.messages.failures import failure
from portal.messages.models import DeliveryAttempt, Message, PushSubscription
from portal.messages.push import PushMessage, PushTarget, SendResult
from portal.tenancy import lookup
from portal.types import utcnow

# After attempt n fails in a way worth retrying, wait BACKOFF[n - 1]; attempt 5 is the last.
BACKOFF = (
    timedelta(seconds=30),
    timedelta(minutes=2),
    timedelta(minutes=10),
    timedelta(hours=1),
)
MAX_ATTEMPTS = len(BACKOFF) + 1
MAX_RETRY_AFTER = timedelta(hours=1)
# How long a worker holds the messages it claimed; after that another worker may take over.
LEASE = timedelta(minutes=5)
NO_SUBSCRIPTION = failure("no_subscription")


def due_carriers(*, now: datetime, limit: int = 1000) -> list[uuid.UUID]:
    """Carriers with queued messages whose next attempt is due, most overdue first. Asked
    before the worker acts per carrier: on PostgreSQL through the owner's function, which
    answers carrier ids only (tenancy.lookup); everything else the worker does runs in one
    carrier's scope."""
    oldest = func.min(Message.volgende_poging_op)
    found = lookup(
        db.session,
        "rijplan_berichten_te_versturen",
        select(Message.transporteur_id)
        .where(Message.status == "queued", Message.volgende_poging_op <= now)
        .group_by(Message.transporteur_id)
        .order_by(oldest)
        .limit(limit),
        now=now,
        limit=limit,
    )
    return [row[0] for row in found]


@dataclass(frozen=True)
class Claimed:
    """A message a worker holds: what to push, to which devices, as which attempt."""

    id: uuid.UUID
    claim_id: uuid.UUID
    poging: int
    message: PushMessage
    targets: tuple[PushTarget, ...]


def claim_due(
    *, carrier_id: uuid.UUID, now: datetime, limit: int = 100, lease: timedelta = LEASE
) -> list[Claimed]:
    """Take up to limit due messages of the carrier for one worker pass.

    The claim moves the next attempt to the end of a lease and counts the attempt, so other
    workers pass these messages by; on PostgreSQL the candidates are also locked with
    FOR UPDATE SKIP LOCKED, so concurrent workers pick different rows without waiting."""
    due = (
        Message.transporteur_id == carrier_id,
        Message.status == "queued",
        Message.volgende_poging_op <= now,
    )
    candidates = select(Message.id).where(*due).order_by(Message.volgende_poging_op).limit(limit)
    if db.session.get_bind().dialect.name == "postgresql":
        candidates = candidates.with_for_update(skip_locked=True)
    ids = list(db.session.scalars(candidates))
    if not ids:
        return []
    claim_id = uuid.uuid4()
    db.session.execute(
        update(Message)
        .where(*due, Message.id.in_(ids))
        .values(claim_id=claim_id, volgende_poging_op=now + lease, pogingen=Message.pogingen + 1)
        .execution_options(synchronize_session=False)
    )
    rows = db.session.execute(
        select(
            Message.id,
            Message.chauffeur_id,
            Message.verzending_id,
            Message.titel,
            Message.tekst,
            Message.created_at,
            Message.pogingen,
        ).where(Message.transporteur_id == carrier_id, Message.claim_id == claim_id)
    ).all()
    targets: dict[uuid.UUID, list[PushTarget]] = {}
    if rows:
        for sub in db.session.execute(
            select(
                PushSubscription.chauffeur_id,
                PushSubscription.endpoint,
                PushSubscription.p256dh,
                PushSubscription.auth,
                PushSubscription.verloopt_op,
            )
            .where(
                PushSubscription.transporteur_id == carrier_id,
                PushSubscription.chauffeur_id.in_({r.chauffeur_id for r in rows}),
            )
            .order_by(PushSubscription.created_at)
        ):
            if sub.verloopt_op is not None and sub.verloopt_op <= now:
                continue  # the browser said this subscription ends then
            targets.setdefault(sub.chauffeur_id, []).append(
                PushTarget(sub.endpoint, sub.p256dh, sub.auth)
            )
    return [
        Claimed(
            id=row.id,
            claim_id=claim_id,
            poging=row.pogingen,
            message=PushMessage(
                id=str(row.id),
                verzending_id=str(row.verzending_id),
                titel=row.titel,
                tekst=row.tekst,
                created_at=row.created_at,
            ),
            targets=tuple(targets.get(row.chauffeur_id, ())),
        )
        for row in sorted(rows, key=lambda r: ids.index(r.id))
    ]


def record_outcome(
    *,
    carrier_id: uuid.UUID,
    claimed: Claimed,
    results: list[tuple[PushTarget, SendResult]],
    now: datetime,
) -> str:
    """Record one attempt's results and move the message on; answers its status.

    Sent when any device's push service accepted it; retried later (30 s, 2 min, 10 min, 1 h)
    when one failed in a way that may pass, until the fifth attempt; failed otherwise. A
    subscription the push service no longer knows (404/410) is removed. The status changes
    only while this pass still holds the message and it is still queued, so a driver who
    read it meanwhile stays read."""
    sent = [r for _, r in results if r.outcome == "sent"]
    retry = [r for _, r in results if r.outcome == "retry"]
    final_attempt = claimed.poging >= MAX_ATTEMPTS
    if not results:
        status, reason, next_at = "failed", NO_SUBSCRIPTION, None
    elif sent:
        status, reason, next_at = "sent", None, None
    elif retry and not final_attempt:
        wait = BACKOFF[claimed.poging - 1]
        asked = max((r.retry_after or 0) for r in retry)
        wait = max(wait, min(timedelta(seconds=asked), MAX_RETRY_AFTER))
        status, reason, next_at = "queued", retry[-1].fout, now + wait
    elif retry:
        status = "failed"
        reason = failure("given_up", attempts=claimed.poging, last=retry[-1].fout)
        next_at = None
    else:
        status, reason, next_at = "failed", results[0][1].fout, None

    if not results:
        _attempt(carrier_id, claimed, now, "failed", None, NO_SUBSCRIPTION, None)
    for target, result in results:
        outcome = result.outcome
        kind = "sent" if outcome == "sent" else "retry" if outcome == "retry" else "failed"
        if kind == "retry" and status != "queued":
            kind = "failed"
        _attempt(carrier_id, claimed, now, kind, result.http_status, result.fout, target.host)
        if outcome == "gone":
            db.session.execute(
                delete(PushSubscription).where(
                    PushSubscription.transporteur_id == carrier_id,
                    PushSubscription.endpoint == target.endpoint,
                )
            )

    values: dict = {"status": status, "fout": reason, "volgende_poging_op": next_at}
    values["claim_id"] = None
    if status == "sent":
        values["verzonden_op"] = now
    held = (
        Message.transporteur_id == carrier_id,
        Message.id == claimed.id,
        Message.claim_id == claimed.claim_id,
    )
    changed = db.session.execute(
        update(Message)
        .where(*held, Message.status == "queued")
        .values(**values)
        .execution_options(synchronize_session=False)
    ).rowcount
    if changed:
        return status
    # Read meanwhile (or taken over after the lease ran out): keep its status, but note a
    # push that went out.
    if sent:
        db.session.execute(
            update(Message)
            .where(*held, Message.verzonden_op.is_(None))
            .values(verzonden_op=now)
            .execution_options(synchronize_session=False)
        )
    db.session.execute(
        update(Message)
        .where(*held)
        .values(claim_id=None)
        .execution_options(synchronize_session=False)
    )
    current = db.session.scalar(
        select(Message.status).where(
            Message.transporteur_id == carrier_id, Message.id == claimed.id
        )
    )
    return current or status


def _attempt(carrier_id, claimed: Claimed, now, kind, http_status, fout, host) -> None:
    counters.attempt("push", kind)
    db.session.add(
        DeliveryAttempt(
            transporteur_id=carrier_id,
            bericht_id=claimed.id,
            poging=claimed.poging,
            at=now,
            resultaat=kind,
            http_status=http_status,
            fout=(fout or None) and fout[:500],
            push_dienst=host or None,
        )
    )


def attempts(*, carrier_id: uuid.UUID, message_id: uuid.UUID) -> list[DeliveryAttempt]:
    """The delivery attempts of one message, in order."""
    return list(
        db.session.scalars(
            select(DeliveryAttempt)
            .where(
                DeliveryAttempt.transporteur_id == carrier_id,
                DeliveryAttempt.bericht_id == message_id,
            )
            .order_by(DeliveryAttempt.poging, DeliveryAttempt.at, DeliveryAttempt.id)
        )
    )


def backlog(now: datetime | None = None) -> tuple[int, int]:
    """How many entries wait across all carriers: (due now, queued in all). One query;
    on PostgreSQL the owner's function `rijplan_wachtrij_berichten` counts (the app role sees
    one carrier)."""
    now = now or utcnow()
    fallback = select(func.count().filter(Message.volgende_poging_op <= now), func.count()).where(
        Message.status == "queued"
    )
    ((due, queued),) = lookup(db.session, "rijplan_wachtrij_berichten", fallback, p_now=now)
    return int(due or 0), int(queued or 0)
