"""Webhook endpoints and their deliveries, as an admin manages them: register, change, pause
and resume, rotate the secret, delete; read the deliveries and their attempts (resending and
test events, within their limit: resending.py). With outbox.py, events.py and resending.py
the only door to the webhook tables."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import case, delete, func, select

from portal import events
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.audit.switching import Switchable, switch
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import db
from portal.outbound import ENGLISH as URL_ENGLISH
from portal.outbound import url_refusal
from portal.types import utcnow
from portal.webhooks.models import (
    URL_MAX,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from portal.webhooks.outbox import pause, reschedule
from portal.webhooks.signing import new_secret

MAX_ENDPOINTS = 20
DAY = timedelta(days=1)
DESCRIPTION_MAX = 200


@dataclass(frozen=True)
class EndpointIn:
    url: str
    gebeurtenissen: list[str]
    omschrijving: str = ""


def _check(data: EndpointIn, *, allow_private: bool) -> list[dict]:
    errors = []
    url = (data.url or "").strip()
    if not url:
        errors.append({"field": "url", "message": "required", "code": "required"})
    elif len(url) > URL_MAX:
        errors.append(
            {"field": "url", "message": f"at most {URL_MAX} characters", "code": "too_long"}
        )
    else:
        refusal = url_refusal(url, allow_private=allow_private)
        if refusal:
            errors.append({"field": "url", "message": URL_ENGLISH[refusal], "code": refusal})
    unknown = sorted(set(data.gebeurtenissen) - set(events.EVENT_TYPES))
    if unknown:
        errors.append(
            {
                "field": "gebeurtenissen",
                "message": "unknown event type(s): " + ", ".join(unknown),
                "code": "unknown_event",
            }
        )
    elif not data.gebeurtenissen:
        errors.append(
            {
                "field": "gebeurtenissen",
                "message": "choose at least one event",
                "code": "no_events",
            }
        )
    if len(data.omschrijving or "") > DESCRIPTION_MAX:
        errors.append(
            {
                "field": "omschrijving",
                "message": f"at most {DESCRIPTION_MAX} characters",
                "code": "too_long",
            }
        )
    return errors


def _types(chosen: list[str]) -> str:
    """The chosen types in the vocabulary's order, once each."""
    return " ".join(t for t in events.EVENT_TYPES if t in set(chosen))


def create_endpoint(
    *, carrier_id: uuid.UUID, data: EndpointIn, actor: Actor, allow_private: bool = False
) -> tuple[WebhookEndpoint, str]:
    """A new active endpoint and its signing secret (shown to the admin this once)."""
    errors = _check(data, allow_private=allow_private)
    if errors:
        raise ValidationFailed(errors)
    count = db.session.scalar(
        select(func.count())
        .select_from(WebhookEndpoint)
        .where(WebhookEndpoint.transporteur_id == carrier_id)
    )
    if count >= MAX_ENDPOINTS:
        raise Conflict(
            f"A carrier has at most {MAX_ENDPOINTS} webhook endpoints.", code="too_many_endpoints"
        )
    secret = new_secret()
    endpoint = WebhookEndpoint(
        transporteur_id=carrier_id,
        url=data.url.strip(),
        omschrijving=(data.omschrijving or "").strip(),
        gebeurtenissen=_types(data.gebeurtenissen),
        actief=True,
        geheim=secret,
    )
    db.session.add(endpoint)
    db.session.flush()
    events.forget_endpoints(db.session)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="webhook_endpoint",
        entity_id=endpoint.id,
        action="created",
        changes={"url": [None, endpoint.url], "gebeurtenissen": [None, endpoint.gebeurtenissen]},
    )
    return endpoint, secret


def get_endpoint(*, carrier_id: uuid.UUID, endpoint_id: uuid.UUID) -> WebhookEndpoint:
    endpoint = db.session.scalar(
        select(WebhookEndpoint).where(
            WebhookEndpoint.transporteur_id == carrier_id, WebhookEndpoint.id == endpoint_id
        )
    )
    if endpoint is None:
        raise NotFound("webhook endpoint not found")
    return endpoint


def update_endpoint(
    *,
    carrier_id: uuid.UUID,
    endpoint_id: uuid.UUID,
    data: EndpointIn,
    actor: Actor,
    allow_private: bool = False,
) -> WebhookEndpoint:
    endpoint = get_endpoint(carrier_id=carrier_id, endpoint_id=endpoint_id)
    errors = _check(data, allow_private=allow_private)
    if errors:
        raise ValidationFailed(errors)
    changes = {}
    for name, value in (
        ("url", data.url.strip()),
        ("omschrijving", (data.omschrijving or "").strip()),
        ("gebeurtenissen", _types(data.gebeurtenissen)),
    ):
        if getattr(endpoint, name) != value:
            changes[name] = [getattr(endpoint, name), value]
            setattr(endpoint, name, value)
    if changes:
        db.session.flush()
        events.forget_endpoints(db.session)
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="webhook_endpoint",
            entity_id=endpoint.id,
            action="updated",
            changes=changes,
        )
    return endpoint


# Pausing and resuming an endpoint, audited as "paused" and "resumed" with its flag.
ENDPOINT = Switchable("webhook_endpoint", off_action="paused", on_action="resumed")


def set_active(
    *, carrier_id: uuid.UUID, endpoint_id: uuid.UUID, active: bool, actor: Actor
) -> WebhookEndpoint:
    """Pause (deliveries wait) or resume (waiting deliveries are due at once) an endpoint."""
    endpoint = get_endpoint(carrier_id=carrier_id, endpoint_id=endpoint_id)
    now = utcnow()

    def then() -> None:
        if active:
            endpoint.pauze_reden = None
            endpoint.gepauzeerd_op = None
            endpoint.fouten_sinds = None
            reschedule(carrier_id=carrier_id, endpoint_id=endpoint.id, at=now)
        else:
            pause(carrier_id=carrier_id, endpoint=endpoint, reason=None, now=now)
        db.session.flush()
        events.forget_endpoints(db.session)

    switch(endpoint, kind=ENDPOINT, on=active, carrier_id=carrier_id, actor=actor, then=then)
    return endpoint


def rotate_secret(*, carrier_id: uuid.UUID, endpoint_id: uuid.UUID, actor: Actor) -> str:
    """A new signing secret for the endpoint (shown this once); the old one stops at once."""
    endpoint = get_endpoint(carrier_id=carrier_id, endpoint_id=endpoint_id)
    endpoint.geheim = new_secret()
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="webhook_endpoint",
        entity_id=endpoint.id,
        action="secret_rotated",
    )
    return endpoint.geheim


def delete_endpoint(*, carrier_id: uuid.UUID, endpoint_id: uuid.UUID, actor: Actor) -> None:
    """Remove the endpoint with its deliveries and their attempts."""
    endpoint = get_endpoint(carrier_id=carrier_id, endpoint_id=endpoint_id)
    deliveries = select(WebhookDelivery.id).where(
        WebhookDelivery.transporteur_id == carrier_id,
        WebhookDelivery.endpoint_id == endpoint.id,
    )
    db.session.execute(
        delete(WebhookAttempt)
        .where(
            WebhookAttempt.transporteur_id == carrier_id,
            WebhookAttempt.levering_id.in_(deliveries),
        )
        .execution_options(synchronize_session=False)
    )
    db.session.execute(
        delete(WebhookDelivery)
        .where(
            WebhookDelivery.transporteur_id == carrier_id,
            WebhookDelivery.endpoint_id == endpoint.id,
        )
        .execution_options(synchronize_session=False)
    )
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="webhook_endpoint",
        entity_id=endpoint.id,
        action="deleted",
        changes={"url": [endpoint.url, None]},
    )
    db.session.delete(endpoint)
    db.session.flush()
    events.forget_endpoints(db.session)


@dataclass(frozen=True)
class EndpointRow:
    endpoint: WebhookEndpoint
    queued: int
    failed: int
    sent_last_day: int


def list_endpoints(*, carrier_id: uuid.UUID, now: datetime | None = None) -> list[EndpointRow]:
    """The carrier's endpoints, oldest first, with counts of their deliveries (one query)."""
    now = now or utcnow()
    since = now - DAY
    d = WebhookDelivery
    counts = (
        select(
            d.endpoint_id,
            func.sum(case((d.status == "queued", 1), else_=0)).label("queued"),
            func.sum(case((d.status == "failed", 1), else_=0)).label("failed"),
            func.sum(case(((d.status == "sent") & (d.verzonden_op >= since), 1), else_=0)).label(
                "sent"
            ),
        )
        .where(d.transporteur_id == carrier_id)
        .group_by(d.endpoint_id)
        .subquery()
    )
    rows = db.session.execute(
        select(WebhookEndpoint, counts.c.queued, counts.c.failed, counts.c.sent)
        .outerjoin(counts, counts.c.endpoint_id == WebhookEndpoint.id)
        .where(WebhookEndpoint.transporteur_id == carrier_id)
        .order_by(WebhookEndpoint.created_at, WebhookEndpoint.id)
    ).all()
    return [EndpointRow(row[0], row[1] or 0, row[2] or 0, row[3] or 0) for row in rows]


@dataclass(frozen=True)
class DeliveryRow:
    delivery: WebhookDelivery
    event_created_at: datetime


@dataclass(frozen=True)
class DeliveryPage:
    rows: list[DeliveryRow]
    total: int


def deliveries(
    *,
    carrier_id: uuid.UUID,
    endpoint_id: uuid.UUID,
    status: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> DeliveryPage:
    """One page of an endpoint's deliveries, newest first."""
    d = WebhookDelivery
    where = [d.transporteur_id == carrier_id, d.endpoint_id == endpoint_id]
    if status:
        where.append(d.status == status)
    total = db.session.scalar(select(func.count()).select_from(d).where(*where))
    rows = db.session.execute(
        select(d, WebhookEvent.created_at)
        .join(
            WebhookEvent,
            (WebhookEvent.transporteur_id == d.transporteur_id)
            & (WebhookEvent.id == d.gebeurtenis_id),
        )
        .where(*where)
        .order_by(d.volgnummer.desc())
        .limit(limit)
        .offset(offset)
    ).all()
    return DeliveryPage([DeliveryRow(r[0], r[1]) for r in rows], total or 0)


def get_delivery(*, carrier_id: uuid.UUID, delivery_id: uuid.UUID) -> WebhookDelivery:
    delivery = db.session.scalar(
        select(WebhookDelivery).where(
            WebhookDelivery.transporteur_id == carrier_id, WebhookDelivery.id == delivery_id
        )
    )
    if delivery is None:
        raise NotFound("webhook delivery not found")
    return delivery


def event_body(*, carrier_id: uuid.UUID, event_id: uuid.UUID) -> str:
    """The envelope an event's deliveries send, as stored."""
    body = db.session.scalar(
        select(WebhookEvent.body).where(
            WebhookEvent.transporteur_id == carrier_id, WebhookEvent.id == event_id
        )
    )
    if body is None:
        raise NotFound("webhook event not found")
    return body


def attempts(*, carrier_id: uuid.UUID, delivery_id: uuid.UUID) -> list[WebhookAttempt]:
    """A delivery's attempts, in the order they were made."""
    return list(
        db.session.scalars(
            select(WebhookAttempt)
            .where(
                WebhookAttempt.transporteur_id == carrier_id,
                WebhookAttempt.levering_id == delivery_id,
            )
            .order_by(WebhookAttempt.at, WebhookAttempt.poging, WebhookAttempt.id)
        )
    )


def attempts_for(
    *, carrier_id: uuid.UUID, delivery_ids: list[uuid.UUID]
) -> dict[uuid.UUID, list[WebhookAttempt]]:
    """The attempts of several deliveries (a page of them), in one query."""
    found: dict[uuid.UUID, list[WebhookAttempt]] = {d: [] for d in delivery_ids}
    if not delivery_ids:
        return found
    for attempt in db.session.scalars(
        select(WebhookAttempt)
        .where(
            WebhookAttempt.transporteur_id == carrier_id,
            WebhookAttempt.levering_id.in_(delivery_ids),
        )
        .order_by(WebhookAttempt.at, WebhookAttempt.poging, WebhookAttempt.id)
    ):
        found[attempt.levering_id].append(attempt)
    return found


def oldest_due(*, carrier_id: uuid.UUID) -> datetime | None:
    """When the longest-waiting due delivery became due (a stalled worker shows here)."""
    return db.session.scalar(
        select(func.min(WebhookDelivery.volgende_poging_op)).where(
            WebhookDelivery.transporteur_id == carrier_id,
            WebhookDelivery.status == "queued",
            WebhookDelivery.claim_id.is_(None),
        )
    )
