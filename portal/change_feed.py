"""Which carriers' rows changed: PostgreSQL's notices, and this process's own commits.

Triggers on the tables a driver's poll depends on (migration c0d1c0de0160) send
`NOTIFY rijplan_wijziging, '<transporteur_id>'` when a transaction that wrote them commits.
A `ChangeFeed` is one connection per process that LISTENs for them on a thread of its own
and tells its subscribers which carrier changed. Commits of this process's own sessions are
told at once (`after_commit`), before the notice has made its way back, so a worker that
wrote never answers from what it knew before its own write.

A subscriber keeps what it derived from a carrier's rows only while the feed is `live`:
whenever the connection is lost or (re)established it is told that everything may have
changed (`None`), since notices sent meanwhile are lost. Notices of different transactions
arrive in the order in which those committed, which `sync()` uses: its own notice, once
back, means every earlier commit's notice has been handled.

Not through a pooler in transaction mode (LISTEN needs a session of its own): point
`CHANGE_FEED_URL` at the database itself, or set it to "" to do without (every unchanged
poll then asks the database, as before).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable

import psycopg
from sqlalchemy import event
from sqlalchemy.orm import Session

CHANNEL = "rijplan_wijziging"
APPLICATION_NAME = "rijplan-change-feed"
_SYNC_PREFIX = "sync:"
log = logging.getLogger(__name__)

Subscriber = Callable[[uuid.UUID | None], None]
_subscribers: list[Subscriber] = []
# Told, after each batch of notices, the primary's WAL insert position once they had all
# arrived: beyond every commit they announced (replica.py's fences). (None, position) when
# the feed (re)starts listening: every commit before it is behind that position.
PositionSubscriber = Callable[[frozenset[uuid.UUID] | None, int, float], None]
_position_subscribers: list[PositionSubscriber] = []
# Told of a change whose WAL position is not known yet: this process's, when flushed (before
# its commit), and another's, when its notice arrives (before the position is asked).
_unplaced_subscribers: list[Subscriber] = []
_POSITION_SQL = "SELECT pg_current_wal_insert_lsn()::text"


def subscribe(subscriber: Subscriber) -> None:
    """subscriber(carrier_id) after a carrier's rows changed; (None): anything may have."""
    if subscriber not in _subscribers:
        _subscribers.append(subscriber)


def changed(carrier_id: uuid.UUID | None) -> None:
    for subscriber in list(_subscribers):
        subscriber(carrier_id)


def subscribe_positions(subscriber: PositionSubscriber) -> None:
    """subscriber(carriers, position, asked_at) after each batch of notices (carriers:
    those the batch named; None when the feed starts listening), asked_at the monotonic
    time at which the position was asked."""
    if subscriber not in _position_subscribers:
        _position_subscribers.append(subscriber)


def subscribe_unplaced(subscriber: Subscriber) -> None:
    """subscriber(carrier_id) for a change not yet placed (None: a bulk write whose carrier
    is not known)."""
    if subscriber not in _unplaced_subscribers:
        _unplaced_subscribers.append(subscriber)


def _unplaced(carrier_id: uuid.UUID | None) -> None:
    for subscriber in list(_unplaced_subscribers):
        subscriber(carrier_id)


def lsn(text_position: str) -> int:
    """A WAL position ('16/B374D848') as a number, to compare."""
    high, low = text_position.split("/")
    return (int(high, 16) << 32) | int(low, 16)


def _tell_position(connection: psycopg.Connection, carriers: frozenset[uuid.UUID] | None) -> None:
    if not _position_subscribers:
        return
    asked_at = time.monotonic()
    (position,) = connection.execute(_POSITION_SQL).fetchone()
    for subscriber in list(_position_subscribers):
        subscriber(carriers, lsn(position), asked_at)


class ChangeFeed:
    """LISTEN on one connection, on a daemon thread; reconnects after a second when lost."""

    def __init__(self, conninfo: str, *, retry_after: float = 1.0, idle: float = 5.0) -> None:
        self.conninfo = conninfo
        self.retry_after = retry_after
        self.idle = idle
        self.pid = os.getpid()
        self._live = threading.Event()
        self._stop = threading.Event()
        self._syncs: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="rijplan-change-feed", daemon=True)
        self._thread.start()

    @property
    def live(self) -> bool:
        return self._live.is_set()

    def wait_live(self, timeout: float = 10.0) -> bool:
        return self._live.wait(timeout)

    def stop(self) -> None:
        """Stop listening (subscribers hear None); feed_for() starts a new one after."""
        with _feeds_lock:
            if _feeds.get(self.conninfo) is self:
                del _feeds[self.conninfo]
        self._stop.set()
        if self.live:  # wake the thread from its wait for notices
            try:
                with psycopg.connect(self.conninfo, autocommit=True) as connection:
                    connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, _SYNC_PREFIX))
            except psycopg.Error:
                pass  # then it wakes when its wait ends
        self._thread.join(timeout=self.idle + 1)

    def sync(self, timeout: float = 10.0) -> bool:
        """Wait until every notice of a transaction committed before this call has been
        handled (True), by sending one of our own and waiting for it to come back."""
        if not self.wait_live(timeout):
            return False
        marker = _SYNC_PREFIX + uuid.uuid4().hex
        arrived = threading.Event()
        with self._lock:
            self._syncs[marker] = arrived
        try:
            with psycopg.connect(self.conninfo, autocommit=True) as connection:
                connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, marker))
            return arrived.wait(timeout)
        finally:
            with self._lock:
                self._syncs.pop(marker, None)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(
                    self.conninfo,
                    autocommit=True,
                    keepalives_idle=10,
                    keepalives_interval=5,
                    application_name=APPLICATION_NAME,  # for an operator's pg_stat_activity
                ) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    changed(None)  # whatever happened while nobody listened
                    _tell_position(connection, None)
                    self._live.set()
                    while not self._stop.is_set():
                        carriers: set[uuid.UUID] = set()
                        for notice in connection.notifies(timeout=self.idle, stop_after=1):
                            carrier_id = self._handle(notice.payload)
                            if carrier_id is not None:
                                carriers.add(carrier_id)
                            if self._stop.is_set():
                                break
                        if carriers:
                            _tell_position(connection, frozenset(carriers))
            except psycopg.Error as error:
                if self._live.is_set():
                    log.warning("change feed lost its connection: %s", error)
            except Exception:  # a subscriber's error must not end the feed
                log.exception("change feed failed")
            finally:
                self._live.clear()
                changed(None)
            self._stop.wait(self.retry_after)

    def _handle(self, payload: str) -> uuid.UUID | None:
        if payload.startswith(_SYNC_PREFIX):
            with self._lock:
                arrived = self._syncs.get(payload)
            if arrived is not None:
                arrived.set()
            return None
        try:
            carrier_id = uuid.UUID(payload)
        except ValueError:
            carrier_id = None  # not ours to read: assume anything changed
        if carrier_id is not None:
            _unplaced(carrier_id)
        changed(carrier_id)
        return carrier_id


_feeds: dict[str, ChangeFeed] = {}
_feeds_lock = threading.Lock()


def app_conninfo(app) -> str | None:
    """The database to hear changes from: CHANGE_FEED_URL, else the app's own (not through
    a pooler in transaction mode: LISTEN needs a session); None on SQLite or when off."""
    configured = app.config.get("CHANGE_FEED_URL")
    if configured == "":
        return None
    if configured:
        return configured
    from portal.extensions import db

    if db.engine.dialect.name != "postgresql":
        return None
    return db.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


def feed_for(conninfo: str) -> ChangeFeed:
    """This process's feed of conninfo's database, started on first use (after a fork, a
    worker starts its own: a thread does not survive the fork)."""
    feed = _feeds.get(conninfo)
    if feed is not None and feed.pid == os.getpid():
        return feed
    with _feeds_lock:
        feed = _feeds.get(conninfo)
        if feed is None or feed.pid != os.getpid():
            feed = _feeds[conninfo] = ChangeFeed(conninfo)
    return feed


# --- this process's own commits ---------------------------------------------------------

_WRITTEN = "rijplan_written_carriers"
# The tables whose triggers send notices (the migration's), and the column naming the carrier.
WATCHED = {
    "taken": "transporteur_id",
    "chauffeurs": "transporteur_id",
    "activity_questionnaires": "transporteur_id",
    "transporteurs": "id",
}


@event.listens_for(Session, "after_flush")
def _note_flushed(session, flush_context) -> None:
    for instance in (*session.new, *session.dirty, *session.deleted):
        column = WATCHED.get(getattr(type(instance), "__tablename__", ""))
        if column is not None:
            carrier_id = getattr(instance, column)
            session.info.setdefault(_WRITTEN, set()).add(carrier_id)
            _unplaced(carrier_id)


@event.listens_for(Session, "do_orm_execute")
def _note_statement(state) -> None:
    if state.is_insert or state.is_update or state.is_delete:
        table = getattr(state.statement, "table", None)
        if getattr(table, "name", None) in WATCHED:
            # A bulk statement: its rows are not at hand; the carrier in scope wrote them
            # (none in scope: any may have changed).
            from portal.tenancy import current_carrier

            state.session.info.setdefault(_WRITTEN, set()).add(current_carrier())
            _unplaced(current_carrier())


@event.listens_for(Session, "before_commit")
def _note_committing(session) -> None:
    # Told again as it commits: a transaction may have flushed long before.
    for carrier_id in session.info.get(_WRITTEN, ()):
        _unplaced(carrier_id)


@event.listens_for(Session, "after_commit")
def _tell_committed(session) -> None:
    for carrier_id in session.info.pop(_WRITTEN, ()):
        changed(carrier_id)


@event.listens_for(Session, "after_soft_rollback")
def _forget_rolled_back(session, previous_transaction) -> None:
    if not session.in_transaction():
        session.info.pop(_WRITTEN, None)
