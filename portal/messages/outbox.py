"""The outbox of messages: which carriers have due work, claiming due messages for one
worker pass, and recording each attempt's outcome. Used by the worker (worker.py); together
with service.py the only door to berichten, push_abonnementen and bericht_pogingen."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update

from portal import counters
from portal.extensions import db
from portal.messages.failures import failure
from portal.messages.models import DeliveryAttempt, Message, PushSubscription
from portal.messages.push import PushMessage, PushTarget, SendResult
from portal.outbox import Backoff, Decision, Held, Queue, decide

# After attempt n fails in a way worth retrying, wait BACKOFF[n - 1]; attempt 5 is the last.
# A push service's Retry-After may lengthen a wait, up to an hour.
RETRIES = Backoff(
    (timedelta(seconds=30), timedelta(minutes=2), timedelta(minutes=10), timedelta(hours=1))
)
BACKOFF, MAX_ATTEMPTS = RETRIES.steps, RETRIES.max_attempts
# How long a worker holds the messages it claimed; after that another worker may take over.
LEASE = timedelta(minutes=5)
NO_SUBSCRIPTION = failure("no_subscription")
QUEUE = Queue(
    Message,
    due_function="rijplan_berichten_te_versturen",
    backlog_function="rijplan_wachtrij_berichten",
)


@dataclass(frozen=True)
class Claimed(Held):
    """A message a worker holds: what to push, to which devices, as which attempt."""

    message: PushMessage
    targets: tuple[PushTarget, ...]


def claim_due(
    *, carrier_id: uuid.UUID, now: datetime, limit: int = 100, lease: timedelta = LEASE
) -> list[Claimed]:
    """Take up to limit due messages of the carrier for one worker pass.

    The claim moves the next attempt to the end of a lease and counts the attempt, so other
    workers pass these messages by; on PostgreSQL the candidates are also locked with
    FOR UPDATE SKIP LOCKED, so concurrent workers pick different rows without waiting."""
    candidates = (
        select(Message.id)
        .where(*QUEUE.due(carrier_id, now))
        .order_by(Message.volgende_poging_op)
        .limit(limit)
    )
    claim_id, ids = QUEUE.take(carrier_id, candidates, now=now, lease=lease)
    if not ids:
        return []
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
    targets = _targets(carrier_id, {r.chauffeur_id for r in rows}, now) if rows else {}
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


def _targets(
    carrier_id: uuid.UUID, driver_ids: set[uuid.UUID], now: datetime
) -> dict[uuid.UUID, list[PushTarget]]:
    """The drivers' devices to push to, oldest subscription first, per driver."""
    targets: dict[uuid.UUID, list[PushTarget]] = {}
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
            PushSubscription.chauffeur_id.in_(driver_ids),
        )
        .order_by(PushSubscription.created_at)
    ):
        if sub.verloopt_op is not None and sub.verloopt_op <= now:
            continue  # the browser said this subscription ends then
        targets.setdefault(sub.chauffeur_id, []).append(
            PushTarget(sub.endpoint, sub.p256dh, sub.auth)
        )
    return targets


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
    decision = _decide(claimed, [result for _, result in results], now)
    if not results:
        _attempt(carrier_id, claimed, now, "failed", None, NO_SUBSCRIPTION, None)
    for target, result in results:
        outcome = result.outcome
        kind = "sent" if outcome == "sent" else "retry" if outcome == "retry" else "failed"
        if kind == "retry" and decision.status != "queued":
            kind = "failed"
        _attempt(carrier_id, claimed, now, kind, result.http_status, result.fout, target.host)
        if outcome == "gone":
            db.session.execute(
                delete(PushSubscription).where(
                    PushSubscription.transporteur_id == carrier_id,
                    PushSubscription.endpoint == target.endpoint,
                )
            )
    changed = QUEUE.finish(
        carrier_id, claimed.id, claimed.claim_id, decision, now=now, only_queued=True
    )
    if changed:
        return decision.status
    return _kept(carrier_id, claimed, now, pushed=decision.status == "sent") or decision.status


def _decide(claimed: Claimed, results: list[SendResult], now: datetime) -> Decision:
    """Sent when any device accepted it; a retry (waiting as long as any push service asked)
    when one may pass; failed (with the first device's failure) otherwise."""
    if not results:
        return Decision("failed", NO_SUBSCRIPTION, None)
    retry = [r for r in results if r.outcome == "retry"]
    if any(r.outcome == "sent" for r in results):
        outcome, reason, asked = "sent", None, None
    elif retry:
        outcome, reason = "retry", retry[-1].fout
        asked = max((r.retry_after or 0) for r in retry)
    else:
        outcome, reason, asked = "failed", results[0].fout, None
    return decide(
        RETRIES,
        attempt=claimed.poging,
        outcome=outcome,
        reason=reason,
        now=now,
        given_up=lambda **params: failure("given_up", **params),
        retry_after=asked,
    )


def _kept(carrier_id: uuid.UUID, claimed: Claimed, now: datetime, *, pushed: bool) -> str | None:
    """A message read meanwhile (or taken over after the lease ran out) keeps its status,
    but notes a push that went out; answers its status."""
    held = QUEUE.held(carrier_id, claimed.id, claimed.claim_id)
    if pushed:
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
    return db.session.scalar(
        select(Message.status).where(
            Message.transporteur_id == carrier_id, Message.id == claimed.id
        )
    )


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
    return QUEUE.backlog(now)
