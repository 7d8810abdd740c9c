"""Messages to drivers: sending, the inbox, the portal's history and push subscriptions.
With outbox.py (the worker's side) the only door to berichten, push_abonnementen,
bericht_pogingen and push_worker_status (the worker's heartbeat).

Sending creates one queued row per driver (sharing a verzending_id); the worker claims due
rows, pushes them through a channel and records the outcome (outbox.py). The driver's inbox
reads the same rows, so a message is readable in the app whether or not a push ever reached
the phone.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import case, delete, func, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from portal import events
from portal.audit.service import Actor, record
from portal.drivers import service as drivers
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.messages.models import (
    TEXT_MAX,
    TITLE_MAX,
    Message,
    PushSubscription,
    WorkerStatus,
)
from portal.messages.schemas import serialize_message
from portal.types import utcnow

logger = logging.getLogger(__name__)

# Devices one driver may register; registering another forgets the oldest.
MAX_SUBSCRIPTIONS = 10


# --- sending and reading ----------------------------------------------------------------


def send_message(
    *,
    carrier_id: uuid.UUID,
    driver_ids: Iterable[uuid.UUID],
    titel: str,
    tekst: str,
    actor: Actor,
    user_id: uuid.UUID | None = None,
    now: datetime | None = None,
) -> list[Message]:
    """Queue one message per driver (active drivers of the carrier only), as one batch."""
    ids = list(dict.fromkeys(driver_ids))
    titel, tekst = (titel or "").strip(), (tekst or "").strip()
    errors = []
    if not ids:
        errors.append({"field": "ontvangers", "message": "choose at least one driver"})
    else:
        active = {d.id for d in drivers.list_drivers(carrier_id=carrier_id, active_only=True)}
        if any(i not in active for i in ids):
            errors.append({"field": "ontvangers", "message": "not an active driver"})
    if not titel:
        errors.append({"field": "titel", "message": "required"})
    elif len(titel) > TITLE_MAX:
        errors.append({"field": "titel", "message": f"at most {TITLE_MAX} characters"})
    if not tekst:
        errors.append({"field": "tekst", "message": "required"})
    elif len(tekst) > TEXT_MAX:
        errors.append({"field": "tekst", "message": f"at most {TEXT_MAX} characters"})
    if errors:
        raise ValidationFailed(errors)
    now = now or utcnow()
    batch = uuid.uuid4()
    rows = [
        Message(
            transporteur_id=carrier_id,
            verzending_id=batch,
            chauffeur_id=driver_id,
            titel=titel,
            tekst=tekst,
            status="queued",
            created_at=now,
            verzonden_door=user_id,
            afzender=actor.label[:200],
            pogingen=0,
            volgende_poging_op=now,
        )
        for driver_id in ids
    ]
    db.session.add_all(rows)
    record(
        carrier_id=carrier_id,
        actor=actor,
        entity="verzending",
        entity_id=batch,
        action="verzonden",
        changes={"titel": titel, "ontvangers": len(rows)},
    )
    db.session.flush()
    logger.info("queued message batch %s for %s driver(s)", batch, len(rows))
    return rows


def get_message(*, carrier_id: uuid.UUID, message_id: uuid.UUID) -> Message:
    """The carrier's message; NotFound when absent or another carrier's."""
    message = db.session.scalar(
        select(Message).where(Message.transporteur_id == carrier_id, Message.id == message_id)
    )
    if message is None:
        raise NotFound("message not found")
    return message


@dataclass
class InboxPage:
    messages: list[Message]
    total: int
    unread: int


def inbox(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    unread_only: bool = False,
    limit: int = 100,
    offset: int = 0,
) -> InboxPage:
    """A driver's messages, newest first; total counts the selection, unread all unread."""
    mine = (Message.transporteur_id == carrier_id, Message.chauffeur_id == driver_id)
    unread_filter = Message.status != "read"
    counts = db.session.execute(
        select(func.count(), func.count(case((unread_filter, 1)))).where(*mine)
    ).one()
    stmt = select(Message).where(*mine)
    if unread_only:
        stmt = stmt.where(unread_filter)
    rows = db.session.scalars(
        stmt.order_by(Message.created_at.desc(), Message.id.desc()).limit(limit).offset(offset)
    )
    return InboxPage(list(rows), counts[1] if unread_only else counts[0], counts[1])


def mark_read(
    *, carrier_id: uuid.UUID, message_id: uuid.UUID, now: datetime | None = None
) -> Message:
    """The driver has read the message: status read, gelezen_op stamped once (idempotent).
    A message still waiting in the outbox is not pushed any more."""
    get_message(carrier_id=carrier_id, message_id=message_id)
    changed = db.session.execute(
        update(Message)
        .where(
            Message.transporteur_id == carrier_id,
            Message.id == message_id,
            Message.status != "read",
        )
        .values(status="read", gelezen_op=now or utcnow(), volgende_poging_op=None)
        .execution_options(synchronize_session=False)
    ).rowcount
    message = db.session.scalar(
        select(Message)
        .where(Message.transporteur_id == carrier_id, Message.id == message_id)
        .execution_options(populate_existing=True)
    )
    if changed:
        events.emit(
            db.session,
            carrier_id=carrier_id,
            type="bericht.gelezen",
            data=serialize_message(message),
        )
    return message


# --- the portal's history ----------------------------------------------------------------


@dataclass
class Recipient:
    message: Message
    naam: str


@dataclass
class Batch:
    """One send: the same title and text to one or more drivers."""

    verzending_id: uuid.UUID
    titel: str
    tekst: str
    afzender: str
    created_at: datetime
    recipients: list[Recipient] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for r in self.recipients if r.message.status == status)


@dataclass
class HistoryPage:
    batches: list[Batch]
    total: int


def history(*, carrier_id: uuid.UUID, limit: int = 20, offset: int = 0) -> HistoryPage:
    """Sent batches, newest first, each with its recipients' status (four queries)."""
    mine = Message.transporteur_id == carrier_id
    total = db.session.scalar(select(func.count(func.distinct(Message.verzending_id))).where(mine))
    newest = func.max(Message.created_at).label("at")
    page = db.session.execute(
        select(Message.verzending_id, newest)
        .where(mine)
        .group_by(Message.verzending_id)
        .order_by(newest.desc(), Message.verzending_id.desc())
        .limit(limit)
        .offset(offset)
    ).all()
    ids = [row.verzending_id for row in page]
    if not ids:
        return HistoryPage([], total or 0)
    rows = list(
        db.session.scalars(
            select(Message)
            .where(mine, Message.verzending_id.in_(ids))
            .order_by(Message.created_at, Message.id)
        )
    )
    names = drivers.names_by_id(carrier_id=carrier_id, driver_ids={m.chauffeur_id for m in rows})
    batches: dict[uuid.UUID, Batch] = {}
    for message in rows:
        batch = batches.get(message.verzending_id)
        if batch is None:
            batch = batches[message.verzending_id] = Batch(
                message.verzending_id,
                message.titel,
                message.tekst,
                message.afzender,
                message.created_at,
            )
        batch.recipients.append(Recipient(message, names.get(message.chauffeur_id, "—")))
    for batch in batches.values():
        batch.recipients.sort(key=lambda r: r.naam.lower())
    return HistoryPage([batches[i] for i in ids if i in batches], total or 0)


# --- push subscriptions ----------------------------------------------------------------


def subscribe(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    endpoint: str,
    p256dh: str,
    auth: str,
    verloopt_op: datetime | None = None,
) -> tuple[PushSubscription, bool]:
    """Register a device of the driver; the same endpoint again updates it (also when it
    moved to another driver's phone). Answers the subscription and whether it is new."""
    existing = db.session.scalar(
        select(PushSubscription).where(
            PushSubscription.transporteur_id == carrier_id, PushSubscription.endpoint == endpoint
        )
    )
    if existing is not None:
        existing.chauffeur_id = driver_id
        existing.p256dh = p256dh
        existing.auth = auth
        existing.verloopt_op = verloopt_op
        db.session.flush()
        return existing, False
    subscription = PushSubscription(
        transporteur_id=carrier_id,
        chauffeur_id=driver_id,
        endpoint=endpoint,
        p256dh=p256dh,
        auth=auth,
        verloopt_op=verloopt_op,
    )
    db.session.add(subscription)
    db.session.flush()
    older = db.session.scalars(
        select(PushSubscription.id)
        .where(
            PushSubscription.transporteur_id == carrier_id,
            PushSubscription.chauffeur_id == driver_id,
        )
        .order_by(PushSubscription.created_at.desc(), PushSubscription.id.desc())
        .offset(MAX_SUBSCRIPTIONS)
    ).all()
    if older:
        db.session.execute(
            delete(PushSubscription).where(
                PushSubscription.transporteur_id == carrier_id, PushSubscription.id.in_(older)
            )
        )
    return subscription, True


def forget_phones(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor) -> None:
    """A listener of drivers.deactivated and drivers.phone_signed_out: no more pushes to the
    driver's phones (every subscription forgotten)."""
    unsubscribe(carrier_id=carrier_id, driver_id=driver_id)


def unsubscribe(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, endpoint: str | None = None) -> int:
    """Forget one device of the driver (by endpoint) or all of them; answers how many."""
    stmt = delete(PushSubscription).where(
        PushSubscription.transporteur_id == carrier_id,
        PushSubscription.chauffeur_id == driver_id,
    )
    if endpoint is not None:
        stmt = stmt.where(PushSubscription.endpoint == endpoint)
    return db.session.execute(stmt).rowcount or 0


def drivers_with_push(*, carrier_id: uuid.UUID) -> set[uuid.UUID]:
    """The carrier's drivers that have at least one registered device."""
    return set(
        db.session.scalars(
            select(PushSubscription.chauffeur_id)
            .where(PushSubscription.transporteur_id == carrier_id)
            .distinct()
        )
    )


# --- the push worker's heartbeat --------------------------------------------------------

PUSH_WORKER = "push"
# A worker that has not polled for this long (or three of its intervals, if longer) is
# taken for stopped. A single run (--once, e.g. from cron) counts for ONE_RUN.
STALE_AFTER = timedelta(minutes=2)
ONE_RUN = timedelta(minutes=10)


@dataclass(frozen=True)
class WorkerState:
    """Whether pushes go out: Web Push configured, and a worker polling lately."""

    configured: bool
    running: bool
    last_seen: datetime | None

    @property
    def pushing(self) -> bool:
        return self.configured and self.running


def record_heartbeat(*, now: datetime, interval: float | None) -> None:
    """Note that the push worker polls now (and how often it does when idle). An upsert:
    several workers may beat at once."""
    dialect = db.session.get_bind().dialect.name
    insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
    values = {"naam": PUSH_WORKER, "laatst_actief_op": now, "interval_seconden": interval}
    stmt = insert(WorkerStatus).values(**values)
    db.session.execute(
        stmt.on_conflict_do_update(
            index_elements=[WorkerStatus.naam],
            set_={"laatst_actief_op": now, "interval_seconden": interval},
        )
    )


def worker_state(*, configured: bool, now: datetime | None = None) -> WorkerState:
    """What the portal tells planners about pushes: configured, and a recent heartbeat."""
    now = now or utcnow()
    row = db.session.execute(
        select(WorkerStatus.laatst_actief_op, WorkerStatus.interval_seconden).where(
            WorkerStatus.naam == PUSH_WORKER
        )
    ).one_or_none()
    if row is None:
        return WorkerState(configured=configured, running=False, last_seen=None)
    if row.interval_seconden is None:
        allowed = ONE_RUN
    else:
        allowed = max(STALE_AFTER, timedelta(seconds=3 * row.interval_seconden))
    running = now - row.laatst_actief_op <= allowed
    return WorkerState(configured=configured, running=running, last_seen=row.laatst_actief_op)
