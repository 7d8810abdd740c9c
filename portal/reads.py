"""Reads on the hot path: a carrier-scoped read in one round trip.

Through the ORM session a read costs four round trips on PostgreSQL: BEGIN, the carrier
setting (tenancy's after_begin hook), the statement and the ROLLBACK at the end of the
request. `read()` sends the carrier setting and all of its statements in psycopg's pipeline
mode, on a pooled connection in autocommit mode, and waits once. In the extended protocol a
transaction runs until the Sync that ends the pipeline, so the transaction-local setting
covers exactly these statements (behind pgbouncer in transaction mode too) and ends with
them: no BEGIN, no ROLLBACK. The statements are SQLAlchemy Core selects with named bind
parameters, compiled once per statement object; psycopg prepares those it sends often.

Only for requests that read: a separate connection does not see the session's unflushed or
uncommitted writes. On SQLite (no row-level security, no network) the session runs them.

A pooled connection the server has closed meanwhile is replaced without a round trip of its
own: `install_liveness_check` looks at its socket when the pool hands it out (a closed
connection's socket is readable: end of file, or the server's last words), instead of the
pool's pre-ping (a `SELECT 1` per checkout). A read that still finds its connection broken
is sent again once, on another; a read is safe to repeat.
"""

from __future__ import annotations

import select as _select
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import psycopg
from sqlalchemy import Select, event, exc, select, true
from sqlalchemy.pool import Pool

from portal import replica
from portal.extensions import db
from portal.tenancy import activate

_SET_CARRIER = "SELECT set_config('app.transporteur_id', %s, true)"


@dataclass(frozen=True)
class Query:
    """One statement of a read and its parameters (the names of its `bindparam()`s)."""

    statement: Select
    params: dict = field(default_factory=dict)


def postgres() -> bool:
    return db.engine.dialect.name == "postgresql"


# Who wants to see what read() sends (tests and benchmarks count statements): each gets
# the list of (sql, parameters) of one message.
listeners: list[Callable[[list[tuple[str, object]]], None]] = []


def read(carrier_id: uuid.UUID, *queries: Query, lag_ok: bool = False) -> list[list[tuple]]:
    """The rows of each query, read as carrier_id: one round trip on PostgreSQL.

    lag_ok: a read that a streaming replica may answer, once it has replayed the carrier's
    latest change (replica.py); else, and whenever the replica cannot, the primary."""
    if not postgres():
        activate(db.session, carrier_id)
        return [[tuple(row) for row in db.session.execute(q.statement, q.params)] for q in queries]
    sent = [(_SET_CARRIER, (str(carrier_id),))]
    for query in queries:
        sql, defaults = _compiled(query.statement)
        sent.append((sql, {**defaults, **query.params}))
    for listener in listeners:
        listener(sent)
    routed = replica.route(carrier_id) if lag_ok else None
    if routed is not None:
        engine, fence = routed
        try:
            (((in_recovery, replayed),), _, *rows) = _read_on(
                engine, [(replica.REPLAYED_SQL, None), *sent]
            )
        except (psycopg.Error, *replica.REPLICA_ERRORS) as error:
            replica.failed(error)
        else:
            if replica.served(in_recovery, replayed, fence):
                return rows
    return _read_on(db.engine, sent)[1:]


def _read_on(engine, sent: list[tuple[str, object]]) -> list[list[tuple]]:
    """The rows of every statement of sent, on a pooled connection of engine."""
    for attempt in (1, 2):
        raw = engine.raw_connection()
        connection = raw.driver_connection
        try:
            connection.autocommit = True
            try:
                return _send(connection, sent)
            finally:
                if not connection.closed:
                    connection.autocommit = False
        except psycopg.OperationalError:
            # A connection that broke on the way (the server restarted, a pooler dropped
            # it): discarded; a read is safe to send again, once, on another.
            if connection.closed or connection.broken:
                raw.invalidate()
                if attempt == 1:
                    continue
            raise
        finally:
            raw.close()  # back to the pool (or gone, when invalidated)
    raise AssertionError("unreachable")


def _send(connection: psycopg.Connection, sent: list[tuple[str, object]]) -> list[list[tuple]]:
    """The statements in pipeline mode: sent together, answered after one Sync. Until that
    Sync they are one transaction (the protocol's rule), so the transaction-local carrier
    setting covers the statements after it and ends with them. psycopg prepares a statement
    it has sent five times, so PostgreSQL stops planning the same query again and again."""
    cursors = [connection.cursor() for _ in sent]
    with connection.pipeline():
        for cursor, (sql, params) in zip(cursors, sent, strict=True):
            cursor.execute(sql, params)
    return [cursor.fetchall() for cursor in cursors]


_beside_cache: dict[tuple[int, int], tuple[Select, Select, Select]] = {}


def beside(one_row: Query, maybe_row: Query) -> Query:
    """One statement for two: the single row of one_row (an aggregate) with the row of
    maybe_row beside it, or nulls where it has none. One statement costs less than two,
    on both ends, even in one round trip. Parameters of the same name must agree."""
    common = one_row.params.keys() & maybe_row.params.keys()
    if any(one_row.params[k] != maybe_row.params[k] for k in common):
        raise ValueError(f"the two queries disagree on {sorted(common)}")
    key = (id(one_row.statement), id(maybe_row.statement))
    hit = _beside_cache.get(key)
    if hit is None or hit[0] is not one_row.statement or hit[1] is not maybe_row.statement:
        first = one_row.statement.subquery()
        second = maybe_row.statement.subquery()
        joined = select(first, second).select_from(first.outerjoin(second, true()))
        if len(_beside_cache) > 1000:
            _beside_cache.clear()
        hit = _beside_cache[key] = (one_row.statement, maybe_row.statement, joined)
    return Query(hit[2], {**one_row.params, **maybe_row.params})


def apart(rows: list[tuple], width: int) -> tuple[list[tuple], list[tuple]]:
    """beside()'s row taken apart: the first query's row, and the second's (none if null;
    its first column must be one that is never null)."""
    (row,) = rows
    return [row[:width]], ([row[width:]] if row[width] is not None else [])


_compiled_cache: dict[int, tuple[Select, str, dict]] = {}


def _compiled(statement: Select) -> tuple[str, dict]:
    """The statement as psycopg SQL (%(name)s placeholders) with its constant parameters."""
    hit = _compiled_cache.get(id(statement))
    if hit is None or hit[0] is not statement:
        compiled = statement.compile(
            dialect=db.engine.dialect, compile_kwargs={"render_postcompile": True}
        )
        hit = (statement, str(compiled), dict(compiled.params))
        if len(_compiled_cache) > 1000:
            _compiled_cache.clear()
        _compiled_cache[id(statement)] = hit
    return hit[1], hit[2]


# --- a bounded cache of bytes, per process -----------------------------------------------


class ByteCache:
    """Least recently used bytes by key, bounded by their total size; thread-safe."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> bytes | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: bytes) -> None:
        if len(value) > self.max_bytes // 4:
            return  # one answer may not push out everything else
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= len(old)
            self._items[key] = value
            self._size += len(value)
            while self._size > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self._size -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._size = 0

    def __len__(self) -> int:
        return len(self._items)


# --- a pooled connection's liveness, without a round trip -------------------------------


def _closed_by_server(dbapi_connection) -> bool:
    """A psycopg connection the server has closed (or is closing): its socket reads."""
    if dbapi_connection.closed or dbapi_connection.broken:
        return True
    try:
        readable, _, _ = _select.select([dbapi_connection.pgconn.socket], [], [], 0)
    except (OSError, ValueError, psycopg.OperationalError):
        return True
    return bool(readable)


def _on_checkout(dbapi_connection, record, proxy) -> None:
    if isinstance(dbapi_connection, psycopg.Connection) and _closed_by_server(dbapi_connection):
        # The pool discards this connection and hands out another (a new one if need be).
        raise exc.DisconnectionError("the server closed this pooled connection")


def install_liveness_check() -> None:
    if not event.contains(Pool, "checkout", _on_checkout):
        event.listen(Pool, "checkout", _on_checkout)
