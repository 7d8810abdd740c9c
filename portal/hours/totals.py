"""Calendar arithmetic of hours: ISO weeks, the carrier's days, and the totals per day, week
and activity kind. Plain values in, plain values out: the service, the pages, the timeline
and the export all count the same way.

Rules:
- A day is a calendar day in the carrier's time zone: from local 00:00 to the next local
  00:00 (23 or 25 hours long when daylight saving time starts or ends). An activity that
  crosses midnight counts on each day for the part that falls in it.
- A week is an ISO week (Monday to Sunday) of those days.
- Durations are real elapsed time. Seconds are summed per day and kind, then rounded to
  whole minutes (half a minute up); weeks and periods add up those day minutes, so every
  total is the sum of the figures shown beside it.
- A running activity counts up to now, but never beyond 24 hours after its work day began
  (a work day lasts at most 24 hours, so a day nobody ended does not swell the totals).
"""

from __future__ import annotations

import math
import re
import uuid
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from portal.hours.models import SOORTEN, WERKTIJD_SOORTEN

MAX_DAY = timedelta(hours=24)  # the longest work day
WEEK_PATTERN = re.compile(r"^(\d{4})-W(\d{2})$")


@dataclass(frozen=True, order=True)
class IsoWeek:
    """An ISO week: its year (which may differ from the calendar year around New Year) and
    number."""

    jaar: int
    week: int

    @classmethod
    def of(cls, day: date) -> IsoWeek:
        year, week, _ = day.isocalendar()
        return cls(year, week)

    @classmethod
    def parse(cls, value: str) -> IsoWeek:
        """'2026-W47' as a week; ValueError when it names none."""
        match = WEEK_PATTERN.match(value or "")
        if not match:
            raise ValueError("not a week like 2026-W47")
        year, week = int(match.group(1)), int(match.group(2))
        if not 2000 <= year <= 2099:
            raise ValueError("a week of the years 2000 to 2099")
        try:
            monday = date.fromisocalendar(year, week, 1)
        except ValueError:
            raise ValueError(f"{year} has no week {week}") from None
        return cls.of(monday)

    @property
    def label(self) -> str:
        return f"{self.jaar}-W{self.week:02d}"

    @property
    def key(self) -> int:
        """A number that orders weeks: 202647."""
        return self.jaar * 100 + self.week

    @property
    def monday(self) -> date:
        return date.fromisocalendar(self.jaar, self.week, 1)

    @property
    def sunday(self) -> date:
        return self.monday + timedelta(days=6)

    def days(self) -> list[date]:
        monday = self.monday
        return [monday + timedelta(days=n) for n in range(7)]

    def shifted(self, weeks: int) -> IsoWeek:
        return IsoWeek.of(self.monday + timedelta(weeks=weeks))

    def __str__(self) -> str:
        return self.label


def day_start(day: date, zone: ZoneInfo) -> datetime:
    """Local 00:00 of day, as a UTC instant."""
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def period_bounds(start: date, end: date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """Days van through tot (both included) as UTC instants [start, end)."""
    return day_start(start, zone), day_start(end + timedelta(days=1), zone)


def weeks_between(start: date, end: date) -> list[IsoWeek]:
    """Every ISO week that days van through tot touch, in order."""
    weeks = []
    week = IsoWeek.of(start)
    last = IsoWeek.of(end)
    while week <= last:
        weeks.append(week)
        week = week.shifted(1)
    return weeks


def pieces(
    begin: datetime, end: datetime, zone: ZoneInfo
) -> Iterator[tuple[date, datetime, datetime]]:
    """[begin, end) cut at local midnights: (local day, piece begin, piece end), in order."""
    day = begin.astimezone(zone).date()
    cursor = begin
    while cursor < end:
        midnight = day_start(day + timedelta(days=1), zone)
        stop = min(end, midnight)
        if stop > cursor:
            yield day, cursor, stop
        cursor = stop
        day += timedelta(days=1)


def local_days(begin: datetime, end: datetime | None, zone: ZoneInfo) -> list[date]:
    """The local days [begin, end) touches; a running span (end None) its first day only."""
    if end is None or end <= begin:
        return [begin.astimezone(zone).date()]
    return [day for day, _, _ in pieces(begin, end, zone)]


def weeks_touched(begin: datetime, end: datetime | None, zone: ZoneInfo) -> set[IsoWeek]:
    return {IsoWeek.of(day) for day in local_days(begin, end, zone)}


def counted_end(begin: datetime, einde: datetime | None, day_began: datetime, now: datetime):
    """Where an activity stops counting: its end, or for a running one now (at most 24 hours
    after its work day began), never before its begin."""
    if einde is not None:
        return einde
    return max(begin, min(now, day_began + MAX_DAY))


def minutes(seconds: float) -> int:
    """Seconds as whole minutes, half a minute rounded up."""
    return math.floor(seconds / 60 + 0.5)


def hours(minutes_: int) -> float:
    """Minutes as hours with two decimals (what payroll enters)."""
    return round(minutes_ / 60, 2)


@dataclass
class Totals:
    """Minutes per activity kind, and what they add up to."""

    minuten: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SOORTEN, 0))

    @property
    def werktijd(self) -> int:
        return sum(self.minuten[s] for s in WERKTIJD_SOORTEN)

    @property
    def totaal(self) -> int:
        return sum(self.minuten.values())

    def add(self, other: Totals) -> None:
        for soort, value in other.minuten.items():
            self.minuten[soort] += value

    def value(self, column: str) -> int:
        """A column of the overview: a kind, 'werktijd' or 'totaal'."""
        if column == "werktijd":
            return self.werktijd
        if column == "totaal":
            return self.totaal
        return self.minuten[column]

    def __bool__(self) -> bool:
        return any(self.minuten.values())


@dataclass(frozen=True)
class Span:
    """One activity as the totals see it."""

    chauffeur_id: uuid.UUID
    soort: str
    begin: datetime
    einde: datetime | None
    day_began: datetime  # its work day's start: caps a running activity


@dataclass
class DriverHours:
    """One driver's hours over a period: per day (days with time only), per ISO week (every
    week the period touches, counting only its days inside the period) and in total."""

    chauffeur_id: uuid.UUID
    per_dag: dict[date, Totals] = field(default_factory=dict)
    per_week: dict[IsoWeek, Totals] = field(default_factory=dict)
    totaal: Totals = field(default_factory=Totals)
    lopend: bool = False  # a running activity counts in


def summarize(
    spans: Iterable[Span],
    *,
    zone: ZoneInfo,
    start: date,
    end: date,
    now: datetime,
    driver_ids: Iterable[uuid.UUID] = (),
) -> dict[uuid.UUID, DriverHours]:
    """Each driver's hours over days van through tot; drivers in chauffeur_ids appear even
    without any time."""
    rows = (
        (
            s.chauffeur_id,
            s.soort,
            s.begin.timestamp(),
            s.einde.timestamp() if s.einde is not None else None,
            s.day_began.timestamp(),
        )
        for s in spans
    )
    return summarize_rows(
        rows, zone=zone, first_day=start, last_day=end, now=now, driver_ids=driver_ids
    )


def _driver_hours(
    chauffeur_id: uuid.UUID, buckets, start: date, weeks: list[IsoWeek], running: bool
) -> DriverHours:
    """A driver's totals per day, week and period from the seconds per day and kind."""
    driver = DriverHours(chauffeur_id, lopend=running)
    driver.per_week = {week: Totals() for week in weeks}
    for n, bucket in enumerate(buckets):
        if bucket is None:
            continue
        # Rounded to the millisecond first: times read as floats carry a little noise.
        totals = Totals({s: minutes(round(v, 3)) for s, v in bucket.items()})
        if not totals:
            continue
        day = start + timedelta(days=n)
        driver.per_dag[day] = totals
        driver.per_week[IsoWeek.of(day)].add(totals)
        driver.totaal.add(totals)
    return driver


def summarize_rows(
    rows: Iterable[tuple],
    *,
    zone: ZoneInfo,
    first_day: date,
    last_day: date,
    now: datetime,
    driver_ids: Iterable[uuid.UUID] = (),
) -> dict[uuid.UUID, DriverHours]:
    """summarize() over plain rows (chauffeur_id, soort, begin, einde or None, day began),
    times as POSIX seconds: what the overview of hundreds of drivers reads from the database
    without building a datetime per value.

    The period's local midnights are computed once; each activity is cut at those that fall
    inside it, found by bisection."""
    days = (last_day - first_day).days + 1
    edges = [day_start(first_day + timedelta(days=n), zone).timestamp() for n in range(days + 1)]
    first, last = edges[0], edges[-1]
    now_s = now.timestamp()
    cap = MAX_DAY.total_seconds()
    seconds: dict[uuid.UUID, list[dict[str, float] | None]] = {}
    running: set[uuid.UUID] = set()
    for chauffeur_id, soort, begin, einde, began in rows:
        end = einde if einde is not None else max(begin, min(now_s, began + cap))
        start = max(begin, first)
        end = min(end, last)
        if end <= start:
            continue
        per_day = seconds.get(chauffeur_id)
        if per_day is None:
            per_day = seconds[chauffeur_id] = [None] * days
        n = bisect_right(edges, start) - 1
        while start < end:
            stop = min(end, edges[n + 1])
            bucket = per_day[n]
            if bucket is None:
                bucket = per_day[n] = dict.fromkeys(SOORTEN, 0.0)
            bucket[soort] += stop - start
            start = stop
            n += 1
        if einde is None:
            running.add(chauffeur_id)
    weeks = weeks_between(first_day, last_day)
    result = {}
    for chauffeur_id in [*driver_ids, *seconds]:
        if chauffeur_id in result:
            continue
        result[chauffeur_id] = _driver_hours(
            chauffeur_id, seconds.get(chauffeur_id, ()), first_day, weeks, chauffeur_id in running
        )
    return result
