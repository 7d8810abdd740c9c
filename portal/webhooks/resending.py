"""Deliveries sent again and test events, as an admin asks for them: one delivery, every
failed one of a period, or a `webhook.test` event; each within a limit per carrier.

Each of these makes the server post to the carrier's own URL at will, so together they are
limited per carrier (MANUAL_LIMIT, the config's WEBHOOK_MANUAL_LIMIT): past it, a
TooManyRequests (429) says when the next may go. The count is the carrier's audit trail,
which records each of them in the same transaction; on PostgreSQL a lock per carrier makes
requests at the same moment count one after the other."""

from __future__ import annotations

import math
import uuid
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import case, select, text, update

from portal import events
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import Conflict, TooManyRequests, ValidationFailed
from portal.extensions import db
from portal.types import utcnow
from portal.webhooks.models import WebhookDelivery, WebhookEndpoint
from portal.webhooks.service import get_delivery, get_endpoint

# Test events and resends (of one delivery, or of a period's failed ones) per carrier.
MANUAL_LIMIT = (30, timedelta(hours=1))
MANUAL_ACTIONS = ("test_sent", "resent", "resent_failed")


def check_limit(*, carrier_id: uuid.UUID, now: datetime | None = None) -> None:
    """Refuse (429) when the carrier asked for MANUAL_LIMIT test events and resends within
    its window; the error's retry_after says in how many seconds the next may go."""
    now = now or utcnow()
    limit, window = current_app.config.get("WEBHOOK_MANUAL_LIMIT", MANUAL_LIMIT)
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(
            text("SELECT pg_advisory_xact_lock(hashtext('webhook-manual:' || :carrier))"),
            {"carrier": str(carrier_id)},
        )
    count, oldest = audit.count_since(
        carrier_id=carrier_id, entity="webhook_endpoint", actions=MANUAL_ACTIONS, since=now - window
    )
    if count < limit:
        return
    wait = max(1, math.ceil(((oldest or now) + window - now).total_seconds()))
    raise TooManyRequests(
        f"At most {limit} test events and resends per {_span(window)}; the next may go in "
        f"{_span(timedelta(seconds=wait))}.",
        retry_after=wait,
        code="too_many_sends",
        limit=limit,
        window_seconds=int(window.total_seconds()),
    )


def _span(span: timedelta) -> str:
    minutes = max(1, math.ceil(span.total_seconds() / 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


def _requeue(carrier_id: uuid.UUID, where: list, now: datetime) -> int:
    """Queue deliveries again with a fresh schedule; those of a paused endpoint wait."""
    d = WebhookDelivery
    active = (
        select(WebhookEndpoint.actief)
        .where(
            WebhookEndpoint.transporteur_id == d.transporteur_id,
            WebhookEndpoint.id == d.endpoint_id,
        )
        .scalar_subquery()
    )
    return db.session.execute(
        update(d)
        .where(d.transporteur_id == carrier_id, d.status != "queued", *where)
        .values(
            status="queued",
            pogingen=0,
            fout=None,
            claim_id=None,
            volgende_poging_op=case((active.is_(True), now), else_=None),
        )
        .execution_options(synchronize_session=False)
    ).rowcount


def resend(
    *, carrier_id: uuid.UUID, delivery_id: uuid.UUID, actor: Actor, now: datetime | None = None
) -> WebhookDelivery:
    """Send a delivery (sent or failed) again, as the same event."""
    delivery = get_delivery(carrier_id=carrier_id, delivery_id=delivery_id)
    if delivery.status == "queued":
        raise Conflict("This delivery is queued already.", code="already_queued")
    now = now or utcnow()
    check_limit(carrier_id=carrier_id, now=now)
    _requeue(carrier_id, [WebhookDelivery.id == delivery.id], now)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="webhook_endpoint",
        entity_id=delivery.endpoint_id,
        action="resent",
        changes={"levering": [None, str(delivery.id)]},
    )
    db.session.refresh(delivery)
    return delivery


def resend_failed(
    *,
    carrier_id: uuid.UUID,
    endpoint_id: uuid.UUID,
    since: datetime,
    until: datetime,
    actor: Actor,
    now: datetime | None = None,
) -> int:
    """Queue again every failed delivery of the endpoint whose event happened in
    [since, until); answers how many."""
    endpoint = get_endpoint(carrier_id=carrier_id, endpoint_id=endpoint_id)
    if until <= since:
        raise ValidationFailed(
            [{"field": "tot", "message": "must be after the start", "code": "bad_period"}]
        )
    now = now or utcnow()
    check_limit(carrier_id=carrier_id, now=now)
    d = WebhookDelivery
    count = _requeue(
        carrier_id,
        [
            d.endpoint_id == endpoint.id,
            d.status == "failed",
            d.created_at >= since,
            d.created_at < until,
        ],
        now,
    )
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="webhook_endpoint",
        entity_id=endpoint.id,
        action="resent_failed",
        changes={"aantal": [None, count]},
    )
    return count


def send_test(
    *, carrier_id: uuid.UUID, endpoint_id: uuid.UUID, actor: Actor, now: datetime | None = None
) -> None:
    """A `webhook.test` event for this endpoint only, queued like any other."""
    endpoint = get_endpoint(carrier_id=carrier_id, endpoint_id=endpoint_id)
    check_limit(carrier_id=carrier_id, now=now)
    events.emit_test(db.session, carrier_id=carrier_id, endpoint_id=endpoint.id)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="webhook_endpoint",
        entity_id=endpoint.id,
        action="test_sent",
    )
