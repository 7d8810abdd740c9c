"""The shared walk of every article group: a driver's segments as one row of whole UTC
minutes (begin, end, kind, crew), read once with unknown time as rest and once as work
(`Reading`), with what the articles ask of it: the driving and the solo work between two
minutes, whether work is multi-manned, the rests in order, the fixed weeks and their
driving. The article modules add their findings to the reading (`Reading.add`).

- All time is in whole UTC minutes; a week is Monday 00:00 to Monday 00:00 UTC (Art. 4(i),
  as the tachograph counts).
- Availability outside multi-manning is plain work to every rule, and the crew flag
  matters to no rest, so both are folded when the segments become a row (`base`).
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import accumulate

from portal.tacho.rules.limits import DAY, WEEK
from portal.tacho.segments import APP, BESCHIKBAAR, ONBEKEND, RIJDEN, RUST, WERK, Segment

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MONDAY = 4 * DAY  # 1970-01-05, the first Monday after the epoch, in minutes

# Activity kinds of a reading.
D, W, B, R, U = 0, 1, 2, 3, 4
BY_BEGIN = operator.attrgetter("begin")
KIND = {RIJDEN: D, WERK: W, BESCHIKBAAR: B, RUST: R, ONBEKEND: U}


# --- minutes -------------------------------------------------------------------------------


def minute(moment: datetime) -> int:
    return int((moment - EPOCH).total_seconds() // 60)


def moment(minute: int) -> datetime:
    return EPOCH + timedelta(minutes=minute)


def week_of(minute: int) -> int:
    return (minute - MONDAY) // WEEK


def week_start(week: int) -> int:
    return MONDAY + week * WEEK


# --- one reading ---------------------------------------------------------------------------


@dataclass(slots=True)
class Raw:
    """A finding of one reading, in minutes."""

    regel: str
    artikel: str
    begin: int
    eind: int
    gemeten: int | None
    grens: int | None
    over: int | None
    ernst: str | None


@dataclass(slots=True)
class State:
    """Where a reading stands at its end, for the budget."""

    since_break: int = 0
    shift_start: int = 0
    shift_driving: int = 0
    shift_crew: bool = False
    shift_week: int = 0
    extensions: dict[int, int] | None = None
    reductions: int = 0
    weekly_end: int = 0


class Reading:
    """One reading of a driver's time: a contiguous row of (begin, end, kind, crew) from
    `start` to `end` with unknown time read as rest or as work."""

    def __init__(self, base: list[list], start: int, end: int, unknown: int | None):
        iv = base if unknown is None else _read_unknown(base, unknown)
        self.iv = iv
        self.start, self.end = start, end
        self.origin = start
        self.starts = [x[0] for x in iv]
        self._drive = [0, *accumulate(e - s if k == D else 0 for s, e, k, _c in iv)]
        self._solo = [0, *accumulate(e - s if k != R and not c else 0 for s, e, k, c in iv)]
        self.rests = [(s, e) for s, e, k, _c in iv if k == R]
        self.raw: list[Raw] = []
        self.state = State()

    def _upto(self, cum: list[int], minute: int, kind_ok) -> int:
        i = bisect.bisect_right(self.starts, minute) - 1
        if i < 0:
            return 0
        s, e, k, c = self.iv[i]
        return cum[i] + (min(minute, e) - s if kind_ok(k, c) else 0)

    def driving(self, a: int, b: int) -> int:
        if b <= a:
            return 0
        ok = _is_drive
        return self._upto(self._drive, b, ok) - self._upto(self._drive, a, ok)

    def solo_work(self, a: int, b: int) -> int:
        if b <= a:
            return 0
        ok = _is_solo
        return self._upto(self._solo, b, ok) - self._upto(self._solo, a, ok)

    def crew_at(self, minute: int) -> bool:
        """Whether the first work after `minute` is multi-manned."""
        i = max(0, bisect.bisect_right(self.starts, minute) - 1)
        for _s, e, k, c in self.iv[i:]:
            if e <= minute or k == R:
                continue
            return c
        return False

    def add(self, regel, artikel, begin, eind, gemeten, grens, over, ernst) -> None:
        self.raw.append(Raw(regel, artikel, begin, eind, gemeten, grens, over, ernst))


def _read_unknown(base: list[list], unknown: int) -> list:
    """The row with unknown time read as `unknown`: unknown read as its neighbour joins it."""
    iv = []
    for item in base:
        if item[2] == U:
            item = (item[0], item[1], unknown, False)
        if iv:
            last = iv[-1]
            if last[1] == item[0] and last[2] == item[2] and last[3] == item[3]:
                iv[-1] = (last[0], item[1], item[2], item[3])
                continue
        iv.append(item)
    return iv


def _is_drive(kind: int, _crew: bool) -> bool:
    return kind == D


def _is_solo(kind: int, crew: bool) -> bool:
    return kind != R and not crew


def week_driving(iv) -> dict[int, int]:
    """Minutes of driving per fixed week."""
    per_week: dict[int, int] = {}
    week, boundary = 0, None
    for s, e, k, _c in iv:
        if k != D:
            continue
        while s < e:
            if boundary is None or s >= boundary or s < boundary - WEEK:
                week = week_of(s)
                boundary = week_start(week + 1)
            cut = e if e < boundary else boundary
            per_week[week] = per_week.get(week, 0) + cut - s
            s = cut
    return per_week


# --- from segments to a row ----------------------------------------------------------------


def base(segments: Sequence[Segment], end: int | None = None):
    """(begin, end, kind, crew) in minutes, gaps as unknown, equal neighbours joined; the
    app's intervals; start; end. Availability outside multi-manning is plain work to every
    rule, and the crew flag matters to no rest, so both are folded here. `end`: cut there
    (and unknown up to it)."""
    ordered = sorted(segments, key=BY_BEGIN)
    row: list[list] = []
    app: list[list[int]] = []
    cursor = None
    kinds = KIND
    previous_end, e = None, 0
    for seg in ordered:
        # Neighbours share their boundary: convert it once.
        s = e if seg.begin == previous_end else int(seg.begin.timestamp()) // 60
        previous_end = seg.eind
        e = int(previous_end.timestamp()) // 60
        if end is not None and e > end:
            e = end
        if cursor is not None:
            if s > cursor:
                if row[-1][2] == U:
                    row[-1][1] = s
                else:
                    row.append([cursor, s, U, False])
            elif s < cursor:
                s = cursor
        if e <= s:
            continue
        _append(row, s, e, *_kind_and_crew(kinds.get(seg.activiteit, U), seg.bemanning))
        if seg.bron == APP:
            if app and app[-1][1] >= s:
                app[-1][1] = max(app[-1][1], e)
            else:
                app.append([s, e])
        cursor = e
    if not row:
        return row, app, 0, 0
    if end is not None and row[-1][1] < end:
        row.append([row[-1][1], end, U, False])
    return row, app, row[0][0], row[-1][1]


def _kind_and_crew(k: int, c: bool) -> tuple[int, bool]:
    """Availability outside multi-manning is work; rest and unknown have no crew."""
    if k == B and not c:
        k = W
    elif k in (R, U):
        c = False
    return k, c


def _append(row: list[list], s: int, e: int, k: int, c: bool) -> None:
    """Add (s, e, k, c) to the row, joined to its last item when that is alike."""
    last = row[-1] if row else None
    if last is not None and last[1] == s and last[2] == k and last[3] == c:
        last[1] = e
    else:
        row.append([s, e, k, c])
