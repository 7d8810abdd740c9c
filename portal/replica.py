"""Reads that may be served by a streaming replica (DATABASE_REPLICA_URL).

Which reads: those `reads.read(..., lag_ok=True)` sends, the lists a driver's phone polls
(its tasks, the questionnaires) and the unchanged poll before Flask. Everything else goes
to the primary: writes, every read of a request through the ORM session, the portal.

When the replica may answer a carrier's read: only once it has replayed every change of
that carrier this process has heard of. PostgreSQL's change feed (change_feed.py) hears a
notice after each commit that wrote the tables those lists read (tasks, drivers, active
questionnaires, the carrier); after each batch of notices it asks the primary for its WAL
insert position, which then lies beyond those commits: that position is the carrier's
fence. A read sent to the replica asks, in the same round trip, how far the replica has
replayed; its rows count only if that is past the fence, otherwise the read goes to the
primary (one more round trip, only while the replica lags behind a fresh change).

From the flush of this process's own write until its notice is back with a position, and
from another's notice until its position is known, that carrier's reads go to the primary
(a transaction that rolled back holds them there for PENDING_AT_MOST seconds). So a caller
reads its own writes on the worker that made them, and on any other worker or host once
the notice has arrived there (a millisecond or so after the commit; a read in between may
be answered as it would have been just before that commit, as the unchanged poll may).

Without a live feed (CHANGE_FEED_URL="", or its connection lost) nothing goes to the
replica. A replica that does not answer (stopped, restarting, unreachable) is left alone
for REPLICA_RETRY_SECONDS (default 5): its reads go to the primary meanwhile, and nothing
fails. Row-level security holds on the replica as on the primary: it is the same database,
read as the same role with the same carrier setting.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid

import psycopg
from flask import current_app
from prometheus_client import Counter
from sqlalchemy import create_engine, exc

from portal import change_feed
from portal.counters import REGISTRY

log = logging.getLogger(__name__)

PENDING_AT_MOST = 2.0  # seconds a written carrier waits for its notice's position
_EXTENSION = "rijplan_replica"
REPLAYED_SQL = "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text"

READS = Counter(
    "rijplan_replica_reads",
    "Reads that may be served by the replica, by where they went: replica, or primary "
    "because the replica was behind the carrier's last change (behind), a change of the "
    "carrier was not yet placed (fenced), the change feed was not live (no_feed), or the "
    "replica did not answer (down) or cancelled the read (error).",
    ["outcome"],
    registry=REGISTRY,
)


class Fences:
    """Per carrier, the WAL position the replica must have replayed to answer its reads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._floor: int | None = None  # None: the feed is not live, nothing is known
        self._fence: dict[uuid.UUID, int] = {}
        self._pending: dict[uuid.UUID | None, float] = {}
        self.down_until = 0.0

    def changed(self, carrier_id: uuid.UUID | None) -> None:
        """change_feed's subscriber: None when the feed (re)started or was lost, and
        anything may have changed. (A carrier's change is told as `unplaced` first.)"""
        if carrier_id is None:
            with self._lock:
                self._floor = None
                self._fence.clear()
                self._pending.clear()

    def unplaced(self, carrier_id: uuid.UUID | None) -> None:
        """A change of carrier_id whose WAL position is not known yet: flushed by this
        process (before its commit, so always before its notice), or noticed from another
        (None: a bulk write of an unknown carrier)."""
        with self._lock:
            self._pending[carrier_id] = time.monotonic()

    def positioned(self, carriers: frozenset[uuid.UUID] | None, lsn: int, asked_at: float):
        """change_feed's position subscriber: the changes of carriers (None: all before the
        feed started listening) are behind lsn."""
        with self._lock:
            if carriers is None:
                self._floor = lsn
                carriers = frozenset(self._pending)
            for carrier_id in carriers:
                if carrier_id is not None:
                    self._fence[carrier_id] = max(self._fence.get(carrier_id, 0), lsn)
                if self._pending.get(carrier_id, asked_at) < asked_at:
                    del self._pending[carrier_id]

    def fence(self, carrier_id: uuid.UUID) -> int | str:
        """The position the replica must have replayed for carrier_id's reads, or why the
        primary answers them (an outcome of READS)."""
        now = time.monotonic()
        with self._lock:
            if now < self.down_until:
                return "down"
            if self._floor is None:
                return "no_feed"
            for who in (carrier_id, None):  # None: a bulk write of an unknown carrier
                since = self._pending.get(who)
                if since is not None:
                    if now - since < PENDING_AT_MOST:
                        return "fenced"
                    del self._pending[who]  # rolled back, or its position is known by now
            return max(self._floor, self._fence.get(carrier_id, 0))

    def mark_down(self, seconds: float) -> None:
        with self._lock:
            self.down_until = time.monotonic() + seconds


FENCES = Fences()
change_feed.subscribe(FENCES.changed)
change_feed.subscribe_unplaced(FENCES.unplaced)
change_feed.subscribe_positions(FENCES.positioned)


def init_app(app, engine_options: dict) -> None:
    """The replica's engine, when DATABASE_REPLICA_URL is set (the same role as the app's:
    row-level security applies there as on the primary)."""
    url = app.config.get("DATABASE_REPLICA_URL")
    if url:
        options = {k: v for k, v in engine_options.items() if not k.startswith("json_")}
        app.extensions[_EXTENSION] = create_engine(url, **options)


def engine():
    return current_app.extensions.get(_EXTENSION)


def route(carrier_id: uuid.UUID):
    """(the replica's engine, the fence its answer must have passed) for a read of
    carrier_id, or None when the primary answers it (and counted so)."""
    replica = engine()
    if replica is None:
        return None
    conninfo = change_feed.app_conninfo(current_app)
    if conninfo is None or not change_feed.feed_for(conninfo).live:
        READS.labels("no_feed").inc()
        return None
    fence = FENCES.fence(carrier_id)
    if isinstance(fence, str):
        READS.labels(fence).inc()
        return None
    return replica, fence


def served(in_recovery: bool, replayed: str | None, fence: int) -> bool:
    """Whether the replica's answer counts: it has replayed past the fence (or it is no
    longer in recovery: promoted, it is the primary now)."""
    ok = not in_recovery or (replayed is not None and change_feed.lsn(replayed) >= fence)
    READS.labels("replica" if ok else "behind").inc()
    return ok


def failed(error: Exception) -> None:
    """The replica did not answer this read, which the primary answers instead. One that
    does not answer at all (stopped, unreachable) is left alone for a while; a statement it
    cancelled (a conflict with recovery) costs only this read."""
    if isinstance(error, DOWN_ERRORS):
        seconds = float(current_app.config.get("REPLICA_RETRY_SECONDS", 5))
        FENCES.mark_down(seconds)
        READS.labels("down").inc()
        log.warning("replica unavailable, reading from the primary for %ss: %s", seconds, error)
    else:
        READS.labels("error").inc()
        log.warning("replica read failed, read from the primary: %s", error)


REPLICA_ERRORS = (exc.DBAPIError,)
DOWN_ERRORS = (exc.OperationalError, exc.InterfaceError, psycopg.OperationalError)
