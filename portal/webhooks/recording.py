"""How the transaction's events are recorded for delivery: one row per event (its envelope,
the bytes every delivery sends) and one delivery per endpoint, in the transaction of the
change. `portal.events` decides what is told and to whom; this module writes it (connected
as `events.recorder`, and `subscriptions` as `events.subscriptions`, in portal/wiring.py)."""

from __future__ import annotations

import threading
import time
import uuid

import orjson
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.events import Told
from portal.types import iso, utcnow
from portal.webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent


def subscriptions(*, session: Session, carrier_id: uuid.UUID) -> list:
    """The carrier's endpoints: (id, the event types it subscribed to, active)."""
    rows = session.execute(
        select(WebhookEndpoint.id, WebhookEndpoint.gebeurtenissen, WebhookEndpoint.actief).where(
            WebhookEndpoint.transporteur_id == carrier_id
        )
    )
    return [(row.id, set(row.gebeurtenissen.split()), row.actief) for row in rows]


_sequence_lock = threading.Lock()
_last_sequence = 0


def _next_sequence() -> int:
    """Microseconds since the epoch, strictly increasing within this process: the order of
    events. Changes of one task are serialised by its row lock, so the later change's event
    has the higher number across processes too (given clocks in step)."""
    global _last_sequence
    with _sequence_lock:
        _last_sequence = max(time.time_ns() // 1000, _last_sequence + 1)
        return _last_sequence


def envelope(event_id: uuid.UUID, type: str, created_at, carrier_id: uuid.UUID, data) -> bytes:
    """The bytes every delivery of an event sends."""
    return orjson.dumps(
        {
            "id": str(event_id),
            "type": type,
            "created_at": iso(created_at),
            "transporteur_id": str(carrier_id),
            "data": data,
        }
    )


def record(*, session: Session, told: list[Told]) -> None:
    """Each event with a delivery per endpoint it goes to; a paused endpoint's deliveries
    wait, unscheduled, until it is resumed."""
    made: list[WebhookDelivery] = []
    for item in told:
        now = utcnow()
        event_id = uuid.uuid4()
        sequence = _next_sequence()
        session.add(
            WebhookEvent(
                id=event_id,
                transporteur_id=item.carrier_id,
                type=item.type,
                created_at=now,
                volgorde_sleutel=item.order_key,
                volgnummer=sequence,
                body=envelope(event_id, item.type, now, item.carrier_id, item.data).decode(),
            )
        )
        made += [
            WebhookDelivery(
                transporteur_id=item.carrier_id,
                endpoint_id=endpoint_id,
                gebeurtenis_id=event_id,
                type=item.type,
                volgorde_sleutel=item.order_key,
                volgnummer=sequence,
                status="queued",
                volgende_poging_op=now if active else None,
                created_at=now,
            )
            for endpoint_id, active in item.targets
        ]
    if made:
        session.flush()  # the events first: the deliveries refer to them
        session.add_all(made)
        session.flush()
