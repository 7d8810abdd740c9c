"""Time as the computation counts it: aware datetimes as whole epoch minutes (half a minute
rounded up), and epoch minutes as local dates and wall-clock minutes of the carrier's time
zone, a day running from local 00:00 to the next local 00:00 (23 or 25 real hours when the
clocks change)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from portal.hours.cao.rules import CaoError

AMSTERDAM = ZoneInfo("Europe/Amsterdam")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
ETMAAL = 24 * 60


class Clock:
    """Epoch minutes as local dates and wall-clock minutes of the day in a time zone."""

    def __init__(self, zone: ZoneInfo):
        self.zone = zone
        self._offsets: dict[int, int | None] = {}

    def _offset(self, minute: int) -> int:
        moment = datetime.fromtimestamp(minute * 60, self.zone)
        return int(moment.utcoffset().total_seconds() // 60)

    def step(self, minute: int) -> tuple[date, int, int]:
        """(local date, wall-clock minute, how many minutes from here on surely keep the
        same UTC offset: to the end of the UTC hour, or 1 in an hour the clocks change)."""
        hour = minute // 60
        if hour not in self._offsets:
            first = self._offset(hour * 60)
            self._offsets[hour] = first if self._offset(hour * 60 + 59) == first else None
        offset = self._offsets[hour]
        rest = (hour + 1) * 60 - minute
        if offset is None:
            offset, rest = self._offset(minute), 1
        local = minute + offset
        return date.fromordinal(EPOCH_ORDINAL + local // 1440), local % 1440, rest

    def runs(self, begin: int, einde: int) -> Iterator[tuple[date, int, int]]:
        """[begin, einde) as runs (local date, first wall-clock minute, length) within which
        the wall clock runs on minute by minute on one local day."""
        cursor = begin
        while cursor < einde:
            datum, wall, rest = self.step(cursor)
            length = min(einde - cursor, 1440 - wall, rest)
            yield datum, wall, length
            cursor += length

    def midnight(self, day: date) -> int:
        """Local 00:00 of day as epoch minutes."""
        return minute_at(datetime(day.year, day.month, day.day, tzinfo=self.zone))


def minute_at(moment: datetime) -> int:
    """An aware datetime as whole epoch minutes, half a minute rounded up."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise CaoError("tijd_zonder_zone", f"{moment.isoformat()} has no time zone")
    delta = moment - EPOCH
    micro = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    return (micro + 30_000_000) // 60_000_000


@dataclass
class Shift:
    """A work day (one trip) in epoch minutes, with its activities as (kind, begin, end)."""

    begin: int
    einde: int
    activiteiten: list[tuple[str, int, int]]

    @property
    def eendaags(self) -> bool:
        """Departure and return within 24 hours: a one-day trip (CAO art. 40 lid 3a)."""
        return self.einde - self.begin <= ETMAAL
