"""The webhook outbox: which carriers have deliveries due, claiming them for a worker pass,
and recording each attempt. Used by the worker (worker.py); with service.py the only door to
the webhook tables.

Deliveries of the same task reach an endpoint in the order of their events: a delivery is
claimed only when no earlier one of its task to that endpoint is still queued (also while
that one waits for its retry), or together with that earlier one by the worker that claims
it, which sends them in order and hands back the later ones when an earlier one must wait.
A failed one no longer holds the later ones back.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, exists, select, tuple_, update
from sqlalchemy.orm import aliased

from portal import counters
from portal.extensions import db
from portal.outbox import Backoff, Held, Queue, decide
from portal.webhooks.failures import failure
from portal.webhooks.models import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from portal.webhooks.sender import Answer

# The deliveries' table as the outbox core knows it, with the owner's functions that look
# across carriers.
QUEUE = Queue(
    WebhookDelivery,
    due_function="rijplan_webhooks_te_bezorgen",
    backlog_function="rijplan_wachtrij_webhooks",
)
# How long a worker holds what it claimed; after that another worker may take over. Longer
# than a pass can take: a batch of 50 with receivers at their 10-second limit.
LEASE = timedelta(minutes=15)
# An endpoint whose every attempt failed for this long is paused at its next failure.
PAUSE_AFTER = timedelta(days=1)
# How long sent and failed deliveries (with their attempts and events) are kept.
KEEP = timedelta(days=30)
# After attempt n fails in a way worth retrying, wait BACKOFF[n - 1]: about a day in all;
# attempt 10 is the last. A receiver's Retry-After may lengthen a wait, up to an hour.
RETRIES = Backoff(
    (
        timedelta(minutes=1),
        timedelta(minutes=5),
        timedelta(minutes=15),
        timedelta(minutes=30),
        timedelta(hours=1),
        timedelta(hours=2),
        timedelta(hours=4),
        timedelta(hours=8),
        timedelta(hours=8),
    )
)
BACKOFF, MAX_ATTEMPTS = RETRIES.steps, RETRIES.max_attempts


@dataclass(frozen=True)
class Claimed(Held):
    """A delivery a worker holds: what to post where, as which attempt."""

    endpoint_id: uuid.UUID
    url: str
    secret: str
    event_id: uuid.UUID
    type: str
    body: bytes
    order_key: uuid.UUID | None = None


def claim_due(
    *, carrier_id: uuid.UUID, now: datetime, limit: int = 100, lease: timedelta = LEASE
) -> list[Claimed]:
    """Take up to limit due deliveries of the carrier's active endpoints for one pass.

    The claim moves the next attempt to the end of a lease and counts the attempt, so other
    workers pass these by; on PostgreSQL the candidates are also locked with FOR UPDATE
    SKIP LOCKED, so concurrent workers pick different rows without waiting."""
    d = WebhookDelivery
    candidates = (
        select(d.id)
        .where(*QUEUE.due(carrier_id, now), _active(), ~and_(_ordered(), _held_back()))
        .order_by(d.volgnummer)
        .limit(limit)
    )
    claim_id, ids = QUEUE.take(carrier_id, candidates, now=now, lease=lease)
    if not ids:
        return []
    # The later due deliveries of the same tasks to the same endpoints: no other worker
    # takes them while the earlier ones are queued.
    room = limit - len(ids)
    followers = _followers(carrier_id, claim_id, now, room) if room > 0 else []
    if followers:
        QUEUE.claim(carrier_id, followers, now=now, lease=lease, claim_id=claim_id)
    return _claimed(carrier_id, claim_id)


def _ordered():
    return WebhookDelivery.volgorde_sleutel.is_not(None)


def _held_back():
    """An earlier delivery of the same task to the same endpoint is still queued."""
    d = WebhookDelivery
    earlier = aliased(WebhookDelivery)
    return exists().where(
        earlier.transporteur_id == d.transporteur_id,
        earlier.endpoint_id == d.endpoint_id,
        earlier.volgorde_sleutel == d.volgorde_sleutel,
        earlier.status == "queued",
        earlier.volgnummer < d.volgnummer,
    )


def _active():
    """The delivery's endpoint is active."""
    d = WebhookDelivery
    return exists().where(
        WebhookEndpoint.transporteur_id == d.transporteur_id,
        WebhookEndpoint.id == d.endpoint_id,
        WebhookEndpoint.actief.is_(True),
    )


def _followers(carrier_id, claim_id, now: datetime, room: int) -> list[uuid.UUID]:
    """Unclaimed due deliveries of the tasks and endpoints this claim holds, in order."""
    d = WebhookDelivery
    heads = select(d.endpoint_id, d.volgorde_sleutel).where(
        d.transporteur_id == carrier_id, d.claim_id == claim_id, _ordered()
    )
    return list(
        db.session.scalars(
            select(d.id)
            .where(
                *QUEUE.due(carrier_id, now),
                d.claim_id.is_(None),
                tuple_(d.endpoint_id, d.volgorde_sleutel).in_(heads),
            )
            .order_by(d.volgnummer)
            .limit(room)
        )
    )


def _claimed(carrier_id, claim_id) -> list[Claimed]:
    """What the claim holds, with each delivery's endpoint and event, in order."""
    d = WebhookDelivery
    rows = db.session.execute(
        select(
            d.id,
            d.pogingen,
            d.endpoint_id,
            d.gebeurtenis_id,
            d.type,
            d.volgnummer,
            d.volgorde_sleutel,
            WebhookEndpoint.url,
            WebhookEndpoint.geheim,
            WebhookEvent.body,
        )
        .join(
            WebhookEndpoint,
            and_(
                WebhookEndpoint.transporteur_id == d.transporteur_id,
                WebhookEndpoint.id == d.endpoint_id,
            ),
        )
        .join(
            WebhookEvent,
            and_(
                WebhookEvent.transporteur_id == d.transporteur_id,
                WebhookEvent.id == d.gebeurtenis_id,
            ),
        )
        .where(d.transporteur_id == carrier_id, d.claim_id == claim_id)
        .order_by(d.volgnummer)
    ).all()
    return [
        Claimed(
            id=row.id,
            claim_id=claim_id,
            poging=row.pogingen,
            endpoint_id=row.endpoint_id,
            url=row.url,
            secret=row.geheim,
            event_id=row.gebeurtenis_id,
            type=row.type,
            body=row.body.encode(),
            order_key=row.volgorde_sleutel,
        )
        for row in rows
    ]


def release(*, carrier_id: uuid.UUID, claimed: Claimed, now: datetime) -> None:
    """Hand back a claimed delivery unsent (an earlier one of its task must wait): due again
    as soon as that one is through, this attempt not counted."""
    QUEUE.release(carrier_id, claimed.id, claimed.claim_id, now=now)


def record_outcome(
    *, carrier_id: uuid.UUID, claimed: Claimed, answer: Answer, now: datetime
) -> str:
    """Record one attempt and move the delivery on; answers its status (sent, queued for a
    retry, failed). A failure that may pass is retried after BACKOFF until the last attempt;
    one that will not (a 4xx, a refused address) fails at once. An endpoint failing since
    PAUSE_AFTER, or whose delivery was given up, is paused with the reason."""
    decision = decide(
        RETRIES,
        attempt=claimed.poging,
        outcome=answer.outcome,
        reason=answer.fout,
        now=now,
        given_up=lambda **params: failure("given_up", **params),
        retry_after=answer.retry_after,
    )
    status = decision.status
    counters.attempt("webhook", "retry" if status == "queued" else status)
    db.session.add(
        WebhookAttempt(
            transporteur_id=carrier_id,
            levering_id=claimed.id,
            poging=claimed.poging,
            at=now,
            resultaat="retry" if status == "queued" else status,
            http_status=answer.http_status,
            duur_ms=answer.duration_ms,
            antwoord=answer.start,
            fout=answer.fout,
        )
    )
    changed = QUEUE.finish(carrier_id, claimed.id, claimed.claim_id, decision, now=now)
    _endpoint_after(carrier_id, claimed.endpoint_id, status, decision.reason, now)
    return status if changed else "queued"


def _endpoint_after(carrier_id, endpoint_id, status: str, reason: str | None, now) -> None:
    endpoint = db.session.scalar(
        select(WebhookEndpoint)
        .where(WebhookEndpoint.transporteur_id == carrier_id, WebhookEndpoint.id == endpoint_id)
        .with_for_update()
    )
    if endpoint is None:
        return
    if status == "sent":
        endpoint.fouten_sinds = None
        endpoint.laatste_succes_op = now
        return
    if endpoint.fouten_sinds is None:
        endpoint.fouten_sinds = now
    given_up = status == "failed" and (reason or "").startswith('{"code":"given_up"')
    failing_long = endpoint.fouten_sinds <= now - PAUSE_AFTER
    if endpoint.actief and status == "failed" and (given_up or failing_long):
        pause(carrier_id=carrier_id, endpoint=endpoint, reason=reason, now=now)


def pause(*, carrier_id: uuid.UUID, endpoint: WebhookEndpoint, reason: str | None, now) -> None:
    """Stop delivering to the endpoint; its queued deliveries wait, unscheduled."""
    endpoint.actief = False
    endpoint.pauze_reden = reason
    endpoint.gepauzeerd_op = now
    reschedule(carrier_id=carrier_id, endpoint_id=endpoint.id, at=None)


def reschedule(*, carrier_id: uuid.UUID, endpoint_id: uuid.UUID, at: datetime | None) -> None:
    """The endpoint's queued deliveries, unclaimed, due at `at` (None: wait unscheduled)."""
    db.session.execute(
        update(WebhookDelivery)
        .where(
            WebhookDelivery.transporteur_id == carrier_id,
            WebhookDelivery.endpoint_id == endpoint_id,
            WebhookDelivery.status == "queued",
        )
        .values(volgende_poging_op=at, claim_id=None)
        .execution_options(synchronize_session=False)
    )


def prune(*, carrier_id: uuid.UUID, before: datetime) -> int:
    """Forget the carrier's sent and failed deliveries made before `before`, with their
    attempts, and the events no delivery refers to any more; queued ones stay whatever
    their age. Answers how many deliveries went."""
    d = WebhookDelivery
    old = select(d.id).where(
        d.transporteur_id == carrier_id, d.status != "queued", d.created_at < before
    )
    db.session.execute(
        delete(WebhookAttempt)
        .where(WebhookAttempt.transporteur_id == carrier_id, WebhookAttempt.levering_id.in_(old))
        .execution_options(synchronize_session=False)
    )
    gone = db.session.execute(
        delete(d)
        .where(d.transporteur_id == carrier_id, d.status != "queued", d.created_at < before)
        .execution_options(synchronize_session=False)
    ).rowcount
    referred = select(d.gebeurtenis_id).where(d.transporteur_id == carrier_id)
    db.session.execute(
        delete(WebhookEvent)
        .where(
            WebhookEvent.transporteur_id == carrier_id,
            WebhookEvent.created_at < before,
            WebhookEvent.id.not_in(referred),
        )
        .execution_options(synchronize_session=False)
    )
    return gone


def backlog(now: datetime | None = None) -> tuple[int, int]:
    """How many entries wait across all carriers: (due now, queued in all). One query;
    on PostgreSQL the owner's function `rijplan_wachtrij_webhooks` counts (the app role sees
    one carrier)."""
    return QUEUE.backlog(now)
