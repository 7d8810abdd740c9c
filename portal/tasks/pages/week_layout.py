"""Where the week view draws things: a period of days side by side on one time axis, the
lanes (per driver, vehicle or combination) and each task's place in its lane (from its
planned start and expected duration; a task that runs past midnight spans its days).

Plain data, no request: the planner's proposal draws its cards with the same `place` (a
card marked `proposed`), and the bench times it without a page."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from portal.tasks.conflicts import expected_duration
from portal.tasks.period import PERIOD_FIELDS

DAY_MIN = 24 * 60
# The hours every day shows at least; a task earlier or later widens them for the period.
FIRST_HOUR, LAST_HOUR = 6, 20
NIGHT = 0.25  # an hour outside the day's hours is drawn this wide (a quarter of a day hour)
MIN_WIDTH = 0.35  # the least width of a card, in per cent of the lane (a short task)
# Places on the axis are drawn in steps of a thousandth of a lane, by class (the page's
# Content-Security-Policy allows no style attributes): `position_css` writes those classes.
STEPS = 1000
MAX_ROWS = 16  # sub-rows a lane draws; a card beyond them shares the last one


@dataclass(frozen=True)
class Period:
    """The days shown, in the carrier's zone, and the hours of each day drawn."""

    first: date
    days: int
    zone: ZoneInfo
    first_hour: int = FIRST_HOUR
    last_hour: int = LAST_HOUR

    @property
    def last(self) -> date:
        return self.first + timedelta(days=self.days - 1)

    @property
    def dates(self) -> list[date]:
        return [self.first + timedelta(days=n) for n in range(self.days)]

    @property
    def start(self) -> datetime:
        """The period's first instant (UTC)."""
        return datetime.combine(self.first, time(0), tzinfo=self.zone).astimezone(UTC)

    @property
    def end(self) -> datetime:
        """The instant after the period (UTC)."""
        return datetime.combine(
            self.last + timedelta(days=1), time(0), tzinfo=self.zone
        ).astimezone(UTC)

    @property
    def ticks(self) -> list[tuple[int, int]]:
        """The axis' ticks of a day: (hour, hours until the next tick); every other hour for
        a few days, fewer as the days get narrower."""
        step = 2 if self.days <= 4 else 3 if self.days <= 7 else 6
        hours = list(range(self.first_hour, self.last_hour, step))
        return [(h, min(step, self.last_hour - h)) for h in hours]

    @property
    def units(self) -> float:
        """A day's width in hours drawn (the night's hours count NIGHT each)."""
        return (24 - (self.last_hour - self.first_hour)) * NIGHT + self.last_hour - self.first_hour

    def widened(self, spans: list[tuple[datetime, datetime]]) -> Period:
        """This period, its day hours widened to hold every (start, end) within one day that
        lies in it (work past midnight is drawn across the narrower night); in its zone."""
        low, high = self.first_hour, self.last_hour
        for local_start, local_end in spans:
            if local_start.date() == local_end.date() or local_end.time() == time(0):
                low = min(low, local_start.hour)
                high = max(high, _ceil_hour(local_end))
        return Period(self.first, self.days, self.zone, low, high)

    def x(self, moment: datetime) -> float:
        """Where a moment lies on the axis, in per cent of a lane (0..100)."""
        local = moment if moment.tzinfo is self.zone else moment.astimezone(self.zone)
        index = (local.date() - self.first).days
        if index < 0:
            return 0.0
        if index >= self.days:
            return 100.0
        hour = local.hour + local.minute / 60
        low, high = self.first_hour, self.last_hour
        if hour < low:
            drawn = hour * NIGHT
        elif hour < high:
            drawn = low * NIGHT + hour - low
        else:
            drawn = low * NIGHT + high - low + (hour - high) * NIGHT
        return (index + drawn / self.units) * 100 / self.days


def _ceil_hour(moment: datetime) -> int:
    if moment.time() == time(0):
        return 24
    return min(24, moment.hour + (1 if moment.minute or moment.second else 0))


@dataclass(slots=True)
class Placed:
    """One task on the axis: from `left` for `width` (per cent), in sub-row `row` of its
    lane; `start` and `end` in the carrier's zone. `estimated`: its duration is the default
    of its kind, not its own."""

    task: object
    start: datetime
    end: datetime
    minutes: int
    estimated: bool
    left: float = 0.0
    width: float = 0.0
    row: int = 0
    before: bool = False  # it began before the period
    after: bool = False  # it ends after the period
    proposed: bool = False  # drawn as a proposal, not as saved
    copy: bool = False  # a copy for print (a longer period prints a page per week)
    clock: str = ""  # "07:00-07:45" (an en dash) in the carrier's zone ("+1": it ends a later day)
    place: str = ""  # its position's classes: "wk-l123 wk-w45 wk-r0"
    day: int = 0  # the index of the day it starts on (0: the first; -1: before the period)


@dataclass
class Lane:
    """One lane: a driver, a vehicle or a combination; key "" holds the tasks without one.
    `driver`: the driver a card dropped here is given ("" unassigned, None: a drop here
    moves the day only)."""

    key: str
    title: str
    driver: str | None = None
    subtitle: str | None = None
    inactive: bool = False
    budget: object = None  # tacho.driving.DriverBudget of a driver's lane
    cards: list[Placed] = field(default_factory=list)
    rows: int = 1


def span_of(task) -> tuple[datetime, int, bool] | None:
    """A task's start, expected minutes and whether they are estimated; None without a time."""
    if task.gepland_op is None:
        return None
    minutes = expected_duration(task.type, task.duur_min)
    return task.gepland_op, minutes, not task.duur_min


def placements(tasks, period: Period) -> tuple[list[Placed], Period]:
    """The tasks that lie in the period, placed; and the period widened to show them all.
    Instants are compared as timestamps (a thousand tasks' datetimes compare slowly)."""
    found = []
    first, last, zone = period.start.timestamp(), period.end.timestamp(), period.zone
    for task in tasks:
        span = span_of(task)
        if span is None:
            continue
        start, minutes, estimated = span
        begin = start.timestamp()
        if begin + minutes * 60 <= first or begin >= last:
            continue
        placed = Placed(task, start, start + timedelta(minutes=minutes), minutes, estimated)
        placed.before, placed.after = begin < first, begin + minutes * 60 > last
        placed.start, placed.end = placed.start.astimezone(zone), placed.end.astimezone(zone)
        found.append(placed)
    period = period.widened([(p.start, p.end) for p in found if not (p.before or p.after)])
    for placed in found:
        _place(placed, period)
    return found, period


def _place(placed: Placed, period: Period) -> None:
    """Where a task of the period is drawn, and its times as the card shows them."""
    start, end = placed.start, placed.end
    placed.left = period.x(start) if not placed.before else 0.0
    right = period.x(end) if not placed.after else 100.0
    placed.width = right - placed.left if right - placed.left > MIN_WIDTH else MIN_WIDTH
    if placed.left + placed.width > 100:
        placed.left = 100 - placed.width if placed.width < 100 else 0.0
    later = (end.date() - start.date()).days - (1 if end.time() == time(0) else 0)
    placed.clock = f"{start:%H:%M}\u2013{end:%H:%M}" + (f" (+{later})" if later > 0 else "")
    index = (start.date() - period.first).days
    placed.day = index if index >= 0 else -1


def stack(lane: Lane) -> None:
    """Sort a lane's cards by start and give each the first sub-row where it overlaps none."""
    lane.cards.sort(key=lambda p: (p.left, -p.width))
    ends: list[float] = []
    for placed in lane.cards:
        for row, end in enumerate(ends):
            if end <= placed.left + 1e-9:
                placed.row = row
                ends[row] = placed.left + placed.width
                break
        else:
            placed.row = len(ends)
            ends.append(placed.left + placed.width)
    lane.rows = max(1, len(ends))


def fill(lanes: dict[str, Lane], placed: list[Placed], key_of) -> list[Lane]:
    """Put each placed task in the lane key_of(task) names (none: it is left out); stack."""
    for item in placed:
        lane = lanes.get(key_of(item.task))
        if lane is not None:
            lane.cards.append(item)
    for lane in lanes.values():
        stack(lane)
        for item in lane.cards:
            item.place = place_classes(item)
        lane.rows = min(lane.rows, MAX_ROWS)
    return list(lanes.values())


def place_classes(item: Placed) -> str:
    left = min(STEPS - 1, round(item.left * STEPS / 100))
    width = max(1, min(STEPS - left, round(item.width * STEPS / 100)))
    return f"wk-l{left} wk-w{width} wk-r{min(item.row, MAX_ROWS - 1)}"


def position_css() -> str:
    """The classes that place cards, rows and lanes' heights (see STEPS)."""
    rules = [f".wk-l{n}{{left:{n * 100 / STEPS:g}%}}" for n in range(STEPS)]
    rules += [f".wk-w{n}{{width:{n * 100 / STEPS:g}%}}" for n in range(1, STEPS + 1)]
    rules += [f".wk-days-{n}{{--wk-days:{n}}}" for n in range(1, 15)]
    rules += [f".wk-night-{n}{{flex-grow:{n * NIGHT:g}}}" for n in range(1, 25)]
    rules += [f".wk-r{n}{{top:calc({n} * var(--wk-row))}}" for n in range(MAX_ROWS)]
    rules += [
        f".wk-rows-{n}{{min-height:calc({n} * var(--wk-row) + .3rem)}}"
        for n in range(1, MAX_ROWS + 1)
    ]
    return "\n".join(rules) + "\n"


def proposal(task, **changes) -> SimpleNamespace:
    """A task as a proposal would leave it (changes: chauffeur_id, vehicle_id, gepland_op):
    placed like any task, then drawn `proposed` by the lane's week_card."""
    return SimpleNamespace(**{**{name: getattr(task, name) for name in PERIOD_FIELDS}, **changes})


def weeks_of(period: Period) -> list[Period]:
    """A period cut into pages of at most seven days, for print."""
    return [
        Period(period.first + timedelta(days=n), min(7, period.days - n), period.zone)
        for n in range(0, period.days, 7)
    ]


def monday(day: date) -> date:
    return day - timedelta(days=day.weekday())
