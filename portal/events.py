"""Events of the carrier's changes, written to the outbox in the transaction of the change.

A domain service calls `emit()` where it changes something worth telling. The envelope is
made just before that transaction commits (a `before_commit` hook), from the state the
transaction ends in, by the shape registered for the event type (shapes.py, with the API's
own serialisers); it is written together with one delivery per endpoint that subscribed, in
the same commit. A rollback (also of the savepoint the change was made in) drops the event:
no event without its change, no change without its event. A carrier without endpoints for
a type writes nothing.

This module imports no domain, so every domain may import it.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import event, select
from sqlalchemy.orm import Session, scoped_session

from portal.types import iso, utcnow
from portal.webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent

EVENT_TYPES = (
    "taak.aangemaakt",
    "taak.gewijzigd",
    "taak.status_gewijzigd",
    "taak.afgerond",
    "taak.verwijderd",
    "antwoorden.ingediend",
    "bericht.gelezen",
    "voertuigsessie.actief",
    "werkweek.goedgekeurd",
)
TEST_EVENT = "webhook.test"

# type -> shape(session, carrier_id, subject, params) -> data: registered by shapes.py.
Shape = Callable[[Session, uuid.UUID, Any, dict], dict]
_shapes: dict[str, Shape] = {}
_PENDING = "webhook_events"
_ENDPOINTS = "webhook_endpoints"


def register_shape(event_type: str, shape: Shape) -> None:
    _shapes[event_type] = shape


@dataclass
class _Pending:
    carrier_id: uuid.UUID
    type: str
    subject: Any
    params: dict
    order_key: uuid.UUID | None
    data: dict | None
    savepoint: Any
    only_endpoint: uuid.UUID | None = None
    extra: dict = field(default_factory=dict)


def emit(
    session: Session,
    *,
    carrier_id: uuid.UUID,
    type: str,
    subject: Any = None,
    params: dict | None = None,
    order_key: uuid.UUID | None = None,
    data: dict | None = None,
    once_per: Any = None,
    unless: str | None = None,
) -> None:
    """Tell type about subject when this transaction commits. data: the event's data as it
    is now (for what will be gone by then, e.g. a deleted task); otherwise the registered
    shape makes it at commit. once_per: events of this type with the same key in one
    transaction are told once (a task edited twice in one request). order_key: deliveries
    with the same key reach an endpoint in the order of their events (a task's id). unless:
    not when an event of that type with the same once_per key is pending (a task created
    and then adjusted in one request is told as created, in its final state)."""
    if type not in EVENT_TYPES and type != TEST_EVENT:
        raise ValueError(f"unknown event type {type!r}")
    session = _real(session)
    pending: list[_Pending] = session.info.setdefault(_PENDING, [])
    if once_per is not None:
        for item in pending:
            if (
                item.carrier_id == carrier_id
                and item.type in (type, unless)
                and item.extra.get("once_per") == once_per
            ):
                return
    pending.append(
        _Pending(
            carrier_id=carrier_id,
            type=type,
            subject=subject,
            params=params or {},
            order_key=order_key,
            data=data,
            savepoint=session.get_nested_transaction(),
            extra={"once_per": once_per} if once_per is not None else {},
        )
    )


def emit_test(session: Session, *, carrier_id: uuid.UUID, endpoint_id: uuid.UUID) -> None:
    """A test event for one endpoint, whatever it subscribed to (the admin's button)."""
    session = _real(session)
    session.info.setdefault(_PENDING, []).append(
        _Pending(
            carrier_id=carrier_id,
            type=TEST_EVENT,
            subject=None,
            params={},
            order_key=None,
            data={"bericht": "Test event from Rijplan"},
            savepoint=session.get_nested_transaction(),
            only_endpoint=endpoint_id,
        )
    )


def _real(session) -> Session:
    return session() if isinstance(session, scoped_session) else session


def _endpoints(session: Session, carrier_id: uuid.UUID) -> list[tuple[uuid.UUID, set[str], bool]]:
    """The carrier's endpoints (id, event types, active), read once per transaction."""
    session = _real(session)
    cache = session.info.setdefault(_ENDPOINTS, {})
    if carrier_id not in cache:
        cache[carrier_id] = [
            (row.id, set(row.gebeurtenissen.split()), row.actief)
            for row in session.execute(
                select(
                    WebhookEndpoint.id, WebhookEndpoint.gebeurtenissen, WebhookEndpoint.actief
                ).where(WebhookEndpoint.transporteur_id == carrier_id)
            )
        ]
    return cache[carrier_id]


def wanted(session: Session, *, carrier_id: uuid.UUID, type: str) -> bool:
    """Whether any endpoint of the carrier subscribed to type (to skip work for nothing)."""
    return any(type in types for _id, types, _active in _endpoints(session, carrier_id))


def forget_endpoints(session: Session) -> None:
    """The endpoints changed in this transaction: read them afresh when next asked."""
    session = _real(session)
    session.info.pop(_ENDPOINTS, None)


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


@event.listens_for(Session, "before_commit")
def _write_pending(session: Session) -> None:
    pending: list[_Pending] = session.info.pop(_PENDING, [])
    if not pending:
        return
    forget_endpoints(session)  # an endpoint made or changed in this transaction counts
    made: list[WebhookDelivery] = []
    for item in pending:
        targets = [
            (endpoint_id, active)
            for endpoint_id, types, active in _endpoints(session, item.carrier_id)
            if (endpoint_id == item.only_endpoint if item.only_endpoint else item.type in types)
        ]
        if not targets:
            continue
        data = item.data
        if data is None:
            shape = _shapes.get(item.type)
            if shape is None:
                raise RuntimeError(f"no shape registered for {item.type}")
            data = shape(session, item.carrier_id, item.subject, item.params)
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
                body=envelope(event_id, item.type, now, item.carrier_id, data).decode(),
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
                # A paused endpoint's deliveries wait, unscheduled, until it is resumed.
                volgende_poging_op=now if active else None,
                created_at=now,
            )
            for endpoint_id, active in targets
        ]
    if made:
        session.flush()  # the events first: the deliveries refer to them
        session.add_all(made)
        session.flush()


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    session.info.pop(_ENDPOINTS, None)


@event.listens_for(Session, "after_soft_rollback")
def _drop_pending(session: Session, previous_transaction) -> None:
    if previous_transaction.parent is None:
        session.info.pop(_ENDPOINTS, None)
    pending: list[_Pending] | None = session.info.get(_PENDING)
    if not pending:
        return
    if previous_transaction.nested:
        # Only what was told inside the savepoint that rolled back.
        session.info[_PENDING] = [p for p in pending if p.savepoint is not previous_transaction]
    elif previous_transaction.parent is None:
        session.info.pop(_PENDING, None)
