"""Compact driver scenarios for the EU 561/2006 tests, built as card days and as app work
days, so that every scenario can be checked on both shapes of input.

A scenario is a row of blocks from a Monday 00:00 UTC: ("D", "4:30") drives 4 h 30, then
("R", "0:45") rests 45 min, and so on. Kinds: D driving, W other work, A availability,
R rest or break, U unknown (card out, nothing entered; a gap inside an app work day), and
C/K/Y: driving/work/availability with the crew flag (multi-manning; card only, the app has
no crew).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from portal.tacho.rules import AppDay, app_segments
from portal.tacho.segments import (
    BESCHIKBAAR,
    RIJDEN,
    RUST,
    WERK,
    Change,
    Segment,
    day_segments,
    merge,
)

START = datetime(2026, 11, 2, tzinfo=UTC)  # a Monday

KIND = {
    "D": RIJDEN,
    "W": WERK,
    "A": BESCHIKBAAR,
    "R": RUST,
    "C": RIJDEN,
    "K": WERK,
    "Y": BESCHIKBAAR,
}
CREW = "CKY"
APP_SOORT = {"D": "rijden", "W": "laden", "A": "beschikbaarheid", "R": "pauze"}
# A rest this long or longer separates two app work days; shorter ones are a `pauze`.
DAY_GAP = 7 * 60


def minutes(value: str | int) -> int:
    if isinstance(value, int):
        return value
    hours, _, mins = value.partition(":")
    return int(hours) * 60 + int(mins or 0)


def blocks_of(rows) -> list[tuple[str, int]]:
    """Rows of (kind, duration) or nested lists of them, flattened."""
    out: list[tuple[str, int]] = []
    for row in rows:
        if isinstance(row, list):
            out += blocks_of(row)
        else:
            out.append((row[0], minutes(row[1])))
    return out


def timeline(rows, start: datetime = START) -> list[tuple[datetime, datetime, str]]:
    out = []
    cursor = start
    for kind, length in blocks_of(rows):
        if length <= 0:
            continue
        end = cursor + timedelta(minutes=length)
        if out and out[-1][2] == kind:
            out[-1] = (out[-1][0], end, kind)
        else:
            out.append((cursor, end, kind))
        cursor = end
    return out


def end_of(rows, start: datetime = START) -> datetime:
    return start + timedelta(minutes=sum(length for _k, length in blocks_of(rows)))


def card_segments(rows, start: datetime = START) -> list[Segment]:
    """The scenario as card days: a change at every block start (and at midnight), read
    through `day_segments`, the last day ending at the end of the scenario."""
    line = timeline(rows, start)
    end = line[-1][1]
    out: list[Segment] = []
    day = start.date()
    while datetime.combine(day, datetime.min.time(), tzinfo=UTC) < end:
        midnight = datetime.combine(day, datetime.min.time(), tzinfo=UTC)
        changes = []
        for begin, stop, kind in line:
            if stop <= midnight or begin >= midnight + timedelta(days=1):
                continue
            minute = max(0, int((begin - midnight).total_seconds() // 60))
            if kind == "U":
                changes.append(Change(minute, RUST, kaart_in=False))
            else:
                changes.append(Change(minute, KIND[kind], bemanning=kind in CREW))
        out += day_segments(day, changes, until=end)
        day += timedelta(days=1)
    return merge(out)


def app_days(rows, start: datetime = START) -> list[AppDay]:
    """The scenario as app work days: rests of 7 h or more between days, shorter ones a
    `pauze`, unknown time a gap inside a day."""
    line = timeline(rows, start)
    days: list[AppDay] = []
    current: list[tuple[str, datetime, datetime]] = []
    day_start = None
    day_end = None

    def close():
        nonlocal current, day_start
        if day_start is not None:
            days.append(AppDay(day_start, day_end, [a for a in current if a[0] is not None]))
        current, day_start = [], None

    for begin, stop, kind in line:
        if kind == "R" and stop - begin >= timedelta(minutes=DAY_GAP):
            close()
            continue
        if kind in CREW:
            raise ValueError("the app has no multi-manning")
        if day_start is None:
            day_start = begin
        day_end = stop
        if kind != "U":
            current.append((APP_SOORT[kind], begin, stop))
    close()
    return days


def app_segments_of(rows, start: datetime = START) -> list[Segment]:
    return app_segments(app_days(rows, start), now=end_of(rows, start))


def at(value: str | int, day: int = 0) -> datetime:
    """A moment: `day` days after START, at `value` (h:mm)."""
    return START + timedelta(days=day, minutes=minutes(value))
