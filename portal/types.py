"""Column types and small value helpers shared by every domain."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import DateTime
from sqlalchemy.types import TypeDecorator

# Set by replay(): the moment utcnow() answers while past work is replayed through the
# services (the demo's history), so each step carries the time it happened.
_replayed: ContextVar[datetime | None] = ContextVar("rijplan_replayed_now", default=None)


def utcnow() -> datetime:
    """The current time, timezone-aware in UTC, at millisecond precision."""
    now = _replayed.get() or datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


@contextmanager
def replay(moment: datetime):
    """Let utcnow() answer moment (a past one) within the block: demo data goes through the
    same services as real use, each step stamped with the time it happened. Column defaults
    are taken when the session flushes: flush within the block."""
    if moment.tzinfo is None or moment > datetime.now(UTC):
        raise ValueError("replay takes a timezone-aware moment that has passed")
    token = _replayed.set(moment.astimezone(UTC))
    try:
        yield
    finally:
        _replayed.reset(token)


def period_bound(value: date | datetime, zone: ZoneInfo, *, end: bool) -> datetime:
    """A filter bound (van/tot) as a UTC instant; a date means its whole day in the carrier's
    zone (`tot` a date: up to the end of that day), a naive time is read in that zone."""
    if isinstance(value, datetime):
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=zone).astimezone(UTC)
    day = value + timedelta(days=1) if end else value
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def new_id() -> uuid.UUID:
    return uuid.uuid4()


class UTCDateTime(TypeDecorator):
    """A timestamp stored in UTC that always reads back timezone-aware (SQLite included)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; use timezone-aware UTC values")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with milliseconds and Z, the API's one timestamp format."""
    if value is None:
        return None
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


Expected = int | Collection[int] | None
"""A write's expected version: one, any of several (an If-Match list), or None for any."""


def version_stale(current: int, expected: Expected) -> bool:
    """Whether a row at version `current` is not what the caller expected."""
    if expected is None:
        return False
    return current not in ((expected,) if isinstance(expected, int) else expected)


def versions_text(expected: Expected) -> str:
    """The expected version(s) for a message: "2", or "1 or 2"."""
    if isinstance(expected, int) or expected is None:
        return str(expected)
    return " or ".join(str(v) for v in sorted(expected))
