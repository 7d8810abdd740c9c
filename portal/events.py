"""Events of the carrier's changes, written to the outbox in the transaction of the change.

A domain service calls `emit()` where it changes something worth telling. The envelope is
made just before that transaction commits (a `before_commit` hook), from the state the
transaction ends in, by the shape registered for the event type (shapes.py, with the API's
own serialisers); it is written together with one delivery per endpoint that subscribed, in
the same commit. A rollback (also of the savepoint the change was made in) drops the event:
no event without its change, no change without its event. A carrier without endpoints for
a type writes nothing.

This module imports no domain, so every domain may import it: which endpoints subscribed
(`subscriptions`), how an event is recorded for delivery (`recorder`) and the shape of each
type's data (`register_shape`) are given by the webhooks domain, connected in
`portal/wiring.py`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session, scoped_session

from portal.hooks import Provider

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

# type -> shape(session, carrier_id, subject, params) -> data: webhooks/shapes.py's, connected
# in portal/wiring.py.
Shape = Callable[[Session, uuid.UUID, Any, dict], dict]
_shapes: dict[str, Shape] = {}
_PENDING = "webhook_events"
_ENDPOINTS = "webhook_endpoints"


def register_shape(event_type: str, shape: Shape) -> None:
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}")
    _shapes[event_type] = shape


subscriptions = Provider(
    "events.subscriptions",
    """subscriptions(session=, carrier_id=) -> [(endpoint_id, {event types}, active)]: the
    carrier's endpoints (the webhooks domain's table).""",
    default=[],
)
recorder = Provider(
    "events.recorder",
    """recorder(session=, told=[Told]): record the transaction's events, each with a
    delivery per target endpoint, in this transaction.""",
)


@dataclass(frozen=True)
class Told:
    """An event as it is recorded: its data made, its endpoints chosen."""

    carrier_id: uuid.UUID
    type: str
    order_key: uuid.UUID | None
    data: Any
    targets: list[tuple[uuid.UUID, bool]]  # (endpoint id, active)


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
        cache[carrier_id] = list(subscriptions(session=session, carrier_id=carrier_id))
    return cache[carrier_id]


def wanted(session: Session, *, carrier_id: uuid.UUID, type: str) -> bool:
    """Whether any endpoint of the carrier subscribed to type (to skip work for nothing)."""
    return any(type in types for _id, types, _active in _endpoints(session, carrier_id))


def forget_endpoints(session: Session) -> None:
    """The endpoints changed in this transaction: read them afresh when next asked."""
    session = _real(session)
    session.info.pop(_ENDPOINTS, None)


@event.listens_for(Session, "before_commit")
def _write_pending(session: Session) -> None:
    pending: list[_Pending] = session.info.pop(_PENDING, [])
    if not pending:
        return
    forget_endpoints(session)  # an endpoint made or changed in this transaction counts
    told: list[Told] = []
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
        told.append(Told(item.carrier_id, item.type, item.order_key, data, targets))
    if told:
        recorder(session=session, told=told)


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
