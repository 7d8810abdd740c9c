"""The worker's loop around an outbox: one pass (`run_pass`: the carriers with due entries,
then per carrier, in its scope, a claim committed at once so no lock is held while the
network is slow, and the domain's delivery of what was claimed), a draining run (`drain`),
and the service loop (`serve`) that stops cleanly on SIGTERM or Ctrl-C.

A worker that dies mid-pass leaves its claims to expire after the lease; the entries are
then tried again (at least once)."""

from __future__ import annotations

import logging
import signal
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from portal.extensions import db
from portal.outbox.queue import Queue
from portal.tenancy import carrier_scope

# claim(carrier_id, now, limit) -> the entries claimed (committed by the pass)
Claim = Callable[[uuid.UUID, datetime, int], list[Any]]
# deliver(carrier_id, claimed) -> each entry's status as it is recorded and committed
Deliver = Callable[[uuid.UUID, list[Any]], Iterable[str]]
# one_pass(limit, interval) -> how many entries ended in each status (interval: None for --once)
OnePass = Callable[[int, float | None], Counter[str]]


@dataclass(frozen=True)
class Run:
    """How a worker command runs: one draining run (once) or a service loop polling every
    interval seconds; batch entries per pass, each claim held for lease."""

    once: bool
    interval: float
    batch: int
    lease: timedelta


def run_pass(
    queue: Queue,
    *,
    clock: Callable[[], datetime],
    limit: int,
    claim: Claim,
    deliver: Deliver,
) -> Counter[str]:
    """One pass over the outbox: up to limit due entries; answers how many ended in each
    status."""
    done: Counter[str] = Counter()
    carriers = queue.due_carriers(now=clock())
    db.session.commit()
    for carrier_id in carriers:
        if done.total() >= limit:
            break
        with carrier_scope(db.session, carrier_id):
            claimed = claim(carrier_id, clock(), limit - done.total())
            db.session.commit()
            for status in deliver(carrier_id, claimed):
                done[status] += 1
    return done


def drain(one_pass: Callable[[], Counter[str]], *, batch: int) -> Counter[str]:
    """Pass after pass until a pass finds less than a full batch (--once); the total."""
    total: Counter[str] = Counter()
    while True:
        done = one_pass()
        total.update(done)
        if done.total() < batch:
            return total


def stop_on_signals(logger: logging.Logger, in_hand: str) -> threading.Event:
    """An event set by SIGTERM or SIGINT (the loop stops after the entry in hand); logs to
    the console when nothing else does."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    stop = threading.Event()

    def _stop(signum, _frame):
        logger.info("signal %s: stopping after the %s in hand", signum, in_hand)
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    return stop


def serve(
    one_pass: Callable[[], Counter[str]],
    *,
    interval: float,
    limit: int,
    stop: threading.Event,
    logger: logging.Logger,
    failed: str,
) -> None:
    """Pass after pass until stop is set: at once again after a full batch, else after
    interval seconds. A failing pass (database away) is logged (`failed`) and retried."""
    while not stop.is_set():
        try:
            done = one_pass()
        except Exception:  # keep serving; the next pass tries again
            logger.exception(failed)
            db.session.rollback()
            db.session.remove()
            stop.wait(interval)
            continue
        if done.total() < limit:
            stop.wait(interval)


@dataclass(frozen=True)
class Command:
    """What a worker command says: its name, what one entry is (in log lines), the
    statuses a draining run counts, and the log line of a failed pass."""

    name: str
    entry: str
    statuses: tuple[str, ...]
    failed: str


def command(
    one_pass: OnePass,
    run: Run,
    *,
    emit: Callable[[dict], None],
    about: Command,
    logger: logging.Logger,
) -> None:
    """A worker command: with --once, passes until the outbox has no full batch due, then
    the count per status; else the service loop, stopped cleanly by SIGTERM or Ctrl-C after
    the entry in hand."""
    if run.once:
        total = drain(lambda: one_pass(run.batch, None), batch=run.batch)
        emit({status: total.get(status, 0) for status in about.statuses})
        return
    stop = stop_on_signals(logger, about.entry)
    logger.info("%s: polling every %ss, %s per pass", about.name, run.interval, run.batch)
    serve(
        lambda: one_pass(run.batch, run.interval),
        interval=run.interval,
        limit=run.batch,
        stop=stop,
        logger=logger,
        failed=about.failed,
    )
