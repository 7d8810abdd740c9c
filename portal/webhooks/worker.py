"""The webhook worker: `flask --app wsgi deliver-webhooks` posts queued deliveries.

One pass finds the carriers with deliveries due (the owner's narrow look-up, carrier ids
only), then per carrier, in its scope: claims due deliveries (committed at once, so no lock
is held while a receiver is slow), posts each, signed, and records the outcome in its own
transaction. A worker that dies between posting and recording leaves its claim to expire
after the lease; the delivery is then posted again with the same event id (at least once:
receivers deduplicate by `Rijplan-Event-Id`). Several workers may run side by side.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta

from flask import current_app

from portal.extensions import db
from portal.outbox import worker as loop
from portal.types import utcnow
from portal.webhooks import outbox
from portal.webhooks.failures import failure
from portal.webhooks.sender import Answer, HttpSender, Sender
from portal.webhooks.signing import HEADER, signature_header

logger = logging.getLogger(__name__)
USER_AGENT = "Rijplan-Webhooks/1.0"
# Each carrier's old deliveries are pruned when the worker is there anyway, at most this often.
PRUNE_EVERY = timedelta(hours=1)
_pruned: dict = {}  # carrier id: when this process last pruned its deliveries


def sender_from_config(app) -> HttpSender:
    return HttpSender(
        timeout=app.config.get("WEBHOOKS_TIMEOUT", 10.0),
        allow_private=app.config.get("WEBHOOKS_ALLOW_PRIVATE", False),
    )


def headers_for(item: outbox.Claimed, now: datetime) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Rijplan-Event-Id": str(item.event_id),
        "Rijplan-Event-Type": item.type,
        "Rijplan-Delivery-Attempt": str(item.poging),
        HEADER: signature_header(item.secret, int(now.timestamp()), item.body),
    }


def deliver_due(
    *,
    sender: Sender,
    now: datetime | None = None,
    clock: Callable[[], datetime] | None = None,
    limit: int = 100,
    lease: timedelta = outbox.LEASE,
) -> Counter[str]:
    """One pass: post up to limit due deliveries; answers how many ended in each status
    (sent, queued for a retry, failed)."""
    clock = clock or ((lambda: now) if now is not None else utcnow)

    def claim(carrier_id: uuid.UUID, at: datetime, room: int) -> list[outbox.Claimed]:
        return outbox.claim_due(carrier_id=carrier_id, now=at, limit=room, lease=lease)

    def deliver(carrier_id: uuid.UUID, claimed: list[outbox.Claimed]):
        _prune(carrier_id, clock())
        yield from _deliver(sender, carrier_id, claimed, clock)

    return loop.run_pass(outbox.QUEUE, clock=clock, limit=limit, claim=claim, deliver=deliver)


def _deliver(
    sender: Sender,
    carrier_id: uuid.UUID,
    claimed: list[outbox.Claimed],
    clock: Callable[[], datetime],
):
    """Post the carrier's claimed deliveries in order, each recorded and committed; a later
    one of a task whose earlier delivery must wait is handed back. Yields each status."""
    waiting: set[tuple] = set()  # (endpoint, task) whose earlier delivery must wait
    for item in claimed:
        key = (item.endpoint_id, item.order_key)
        if item.order_key is not None and key in waiting:
            outbox.release(carrier_id=carrier_id, claimed=item, now=clock())
            db.session.commit()
            continue
        answer = _send(sender, item, clock())
        status = outbox.record_outcome(
            carrier_id=carrier_id, claimed=item, answer=answer, now=clock()
        )
        db.session.commit()
        if status == "queued":
            waiting.add(key)
        logger.info(
            "webhook %s (%s) to endpoint %s attempt %s: %s",
            item.event_id,
            item.type,
            item.endpoint_id,
            item.poging,
            status,
        )
        yield status


def _prune(carrier_id, now: datetime) -> None:
    last = _pruned.get(carrier_id)
    if last is not None and now - last < PRUNE_EVERY:
        return
    gone = outbox.prune(carrier_id=carrier_id, before=now - outbox.KEEP)
    db.session.commit()
    _pruned[carrier_id] = now
    if gone:
        logger.info("pruned %s old webhook deliveries of carrier %s", gone, carrier_id)


def _send(sender: Sender, item: outbox.Claimed, now: datetime) -> Answer:
    """The sender's answer; an unexpected error becomes a retry, so one bad delivery cannot
    stop the worker."""
    try:
        return sender.send(item.url, item.body, headers_for(item, now))
    except Exception as exc:  # the worker must go on with the next delivery
        logger.exception("webhook %s failed unexpectedly", item.id)
        return Answer("retry", fout=failure("internal_error", error=type(exc).__name__))


COMMAND = loop.Command(
    name="deliver-webhooks",
    entry="delivery",
    statuses=("sent", "queued", "failed"),
    failed="webhook pass failed",
)


def main(run: loop.Run, *, emit: Callable[[dict], None]) -> None:
    """The deliver-webhooks command: one draining run (--once) or a service loop that stops
    cleanly on SIGTERM or Ctrl-C after the delivery in hand."""
    sender = sender_from_config(current_app._get_current_object())

    def one_pass(limit: int, _interval: float | None) -> Counter[str]:
        return deliver_due(sender=sender, limit=limit, lease=run.lease)

    loop.command(one_pass, run, emit=emit, about=COMMAND, logger=logger)
