"""The outbox worker: `flask --app wsgi send-notifications` pushes queued messages.

One pass finds the carriers with due messages (a narrow, read-only look across carriers: see
outbox.QUEUE.due_carriers), then per carrier, in that carrier's scope: claims due messages
(committed at once, so no lock is held while the network is slow), pushes each through the
channel, and records the outcome in its own transaction. A worker that dies mid-pass leaves
its claims to expire after the lease; the messages are then tried again (at least once).
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta

import click
from flask import Flask, current_app

from portal.extensions import db
from portal.messages import outbox, service
from portal.messages.failures import failure
from portal.messages.push import Channel, PushTarget, SendResult, WebPushChannel, load_vapid
from portal.outbox import worker as loop
from portal.types import utcnow

logger = logging.getLogger(__name__)


class NotConfigured(RuntimeError):
    """Web Push lacks its VAPID settings."""


def config_problem(app: Flask) -> str | None:
    """What keeps Web Push from sending (VAPID key or subject missing or bad), or None."""
    private_key = app.config.get("VAPID_PRIVATE_KEY")
    subject = app.config.get("VAPID_SUBJECT")
    if not private_key:
        return (
            "VAPID_PRIVATE_KEY is not set: create a key pair with "
            "'flask --app wsgi generate-vapid-keys' and put it in the environment."
        )
    if not subject or not subject.startswith(("mailto:", "https://")):
        return (
            "VAPID_SUBJECT must be a mailto: address or https URL push services can reach "
            "you at, e.g. mailto:planning@example.nl."
        )
    try:
        load_vapid(private_key)
    except (ValueError, TypeError) as exc:
        return f"VAPID_PRIVATE_KEY is not a valid P-256 private key ({exc})."
    return None


def channel_from_config(app: Flask) -> WebPushChannel:
    """The Web Push channel with the app's VAPID key; NotConfigured when it has none."""
    problem = config_problem(app)
    if problem is not None:
        raise NotConfigured(problem)
    return WebPushChannel(
        private_key=app.config["VAPID_PRIVATE_KEY"],
        subject=app.config["VAPID_SUBJECT"],
        ttl=app.config.get("WEBPUSH_TTL", 86400),
        timeout=app.config.get("WEBPUSH_TIMEOUT", 10.0),
        allow_private=app.config.get("WEBPUSH_ALLOW_PRIVATE", False),
    )


def deliver_due(
    *,
    channel: Channel,
    now: datetime | None = None,
    limit: int = 100,
    interval: float | None = None,
    lease: timedelta = outbox.LEASE,
) -> Counter[str]:
    """One pass over the outbox: push up to limit due messages; answers how many ended in
    each status (sent, queued for a retry, failed, read meanwhile). Each pass first notes
    the worker's heartbeat (interval: seconds between idle passes; None for a single run),
    so the portal can tell whether anyone pushes."""
    clock: Callable[[], datetime] = (lambda: now) if now is not None else utcnow
    service.record_heartbeat(now=clock(), interval=interval)

    def claim(carrier_id: uuid.UUID, at: datetime, room: int) -> list[outbox.Claimed]:
        return outbox.claim_due(carrier_id=carrier_id, now=at, limit=room, lease=lease)

    def deliver(carrier_id: uuid.UUID, claimed: list[outbox.Claimed]):
        for item in claimed:
            results = [(target, _send(channel, target, item)) for target in item.targets]
            status = outbox.record_outcome(
                carrier_id=carrier_id, claimed=item, results=results, now=clock()
            )
            db.session.commit()
            logger.info("message %s attempt %s: %s", item.id, item.poging, status)
            yield status

    return loop.run_pass(outbox.QUEUE, clock=clock, limit=limit, claim=claim, deliver=deliver)


def _send(channel: Channel, target: PushTarget, item: outbox.Claimed) -> SendResult:
    """The channel's result; an unexpected error becomes a retry, so one bad message cannot
    stop the worker."""
    try:
        return channel.send(target, item.message)
    except Exception as exc:  # the worker must go on with the next message
        logger.exception("push of message %s to %s failed unexpectedly", item.id, target.host)
        return SendResult("retry", fout=failure("internal_error", error=type(exc).__name__))


COMMAND = loop.Command(
    name="send-notifications",
    entry="message",
    statuses=("sent", "queued", "failed", "read"),
    failed="outbox pass failed",
)


def main(run: loop.Run, *, emit: Callable[[dict], None]) -> None:
    """The send-notifications command: one draining run (--once) or a service loop that
    stops cleanly on SIGTERM or Ctrl-C after the message in hand."""
    app = current_app._get_current_object()
    try:
        channel = channel_from_config(app)
    except NotConfigured as problem:
        click.echo(f"error: {problem}", err=True)
        sys.exit(1)

    def one_pass(limit: int, interval: float | None) -> Counter[str]:
        return deliver_due(channel=channel, limit=limit, interval=interval, lease=run.lease)

    loop.command(one_pass, run, emit=emit, about=COMMAND, logger=logger)
