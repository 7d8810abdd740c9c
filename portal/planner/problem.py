"""The planning problem as plain data (pure): tasks, drivers with their remaining EU 561
budget and already planned work, vehicle combinations, and the answer (assignments,
tasks not placed with the rule that stopped each). The engine, the greedy baseline and the
independent checker all read these; none of them touches a table.

What every rule means is written once here (`LIMITS`, `covers`, `day_of`), so the engine's
model and the checker's plain Python read the same rules from the same words."""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import cached_property
from zoneinfo import ZoneInfo

from portal.planner.opening import Opening

# The driving and rest limits the plan keeps, in minutes. Conservative: all of a task's time
# counts as driving, no extended (10 h) days or reduced (9 h) rests are assumed.
DRIVE_DAY = 9 * 60
DRIVE_WEEK = 56 * 60
DRIVE_TWO_WEEKS = 90 * 60
DAY_SPAN = 13 * 60  # a day's work within 24 h less an 11 h daily rest
DAILY_REST = 11 * 60  # between the last work of one day and the first of the next
WEEKLY_REST_DAYS = 2  # a weekly rest (45 h) is two whole free days
WEEKLY_REST_EVERY = 6  # ... that begins at the latest six days after the last one ended

# The hard rules, by their stable codes (the `regel` of an unplaced task or a violation).
OVERLAP = "overlap"
VEHICLE_BUSY = "voertuig_bezet"
DRIVE_DAY_RULE = "rijtijd_dag"
DRIVE_WEEK_RULE = "rijtijd_week"
DRIVE_TWO_WEEKS_RULE = "rijtijd_twee_weken"
DAILY_REST_RULE = "dagrust"
WEEKLY_REST_RULE = "weekrust"
CAPABILITIES = "capaciteiten"
LICENCE = "rijbewijs"
OPENING_HOURS = "openingstijden"
RULES = (
    OVERLAP,
    VEHICLE_BUSY,
    DRIVE_DAY_RULE,
    DRIVE_WEEK_RULE,
    DRIVE_TWO_WEEKS_RULE,
    DAILY_REST_RULE,
    WEEKLY_REST_RULE,
    CAPABILITIES,
    LICENCE,
    OPENING_HOURS,
    "geen_combinatie",
)
# Rules that could not be decided for lack of data: the assignment stands, with this warning.
NO_DRIVING_DATA = "geen_rijtijdgegevens"
WEEKLY_REST_UNKNOWN = "weekrust_onbekend"
LICENCES_UNKNOWN = "rijbewijzen_onbekend"
COMBINATION_LICENCE_UNKNOWN = "rijbewijs_combinatie_onbekend"
OPENING_UNKNOWN = "openingstijden_onbekend"
NO_COMBINATION = "geen_combinatie"


@dataclass(frozen=True, slots=True)
class Place:
    lat: float
    lng: float


def km_between(a: Place | None, b: Place | None) -> float:
    """Straight-line (haversine) kilometres; 0 when either place is unknown."""
    if a is None or b is None:
        return 0.0
    la1, la2 = math.radians(a.lat), math.radians(b.lat)
    dla, dlo = la2 - la1, math.radians(b.lng - a.lng)
    h = math.sin(dla / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin(dlo / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(h)))


@dataclass(frozen=True)
class Task:
    """A task to place: its fixed time, where it starts (loading) and ends (unloading),
    what the combination must be able to do, and the places' opening hours (None: the place
    states none, nothing to keep; an unknown Opening: stated but not readable)."""

    id: Hashable
    start: datetime
    minutes: int
    begin: Place | None = None
    end: Place | None = None
    needs: frozenset[str] = frozenset()
    opening_start: Opening | None = None
    opening_end: Opening | None = None
    driving: bool = True  # EU 561/2006 applies; exempt work still takes the driver's time
    version: int = 0
    label: str = ""

    @cached_property
    def finish(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)


@dataclass(frozen=True)
class Budget:
    """What a driver may still drive at the problem's `now` (portal.tacho's budget, in
    minutes); None where the card and app data do not tell."""

    today_min: int | None = None
    week_min: int | None = None
    two_weeks_min: int | None = None
    driven_week_min: int | None = None
    daily_rest_due: datetime | None = None
    weekly_rest_due: datetime | None = None


@dataclass(frozen=True)
class Planned:
    """Work a driver already has (not re-planned): it counts for every rule."""

    id: Hashable
    start: datetime
    minutes: int
    end: Place | None = None
    begin: Place | None = None
    driving: bool = True

    @cached_property
    def finish(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)


@dataclass(frozen=True)
class Driver:
    id: Hashable
    name: str = ""
    licences: frozenset[str] | None = None  # None: not known
    budget: Budget | None = None  # None: no card or app data
    home: Place | None = None
    planned: tuple[Planned, ...] = ()


@dataclass(frozen=True)
class Combination:
    """A motorised vehicle, alone or with what it tows: the capabilities of both and the
    licence category it needs (None: not known)."""

    id: Hashable
    label: str = ""
    vehicle_ids: tuple[Hashable, ...] = ()
    capabilities: frozenset[str] = frozenset()
    licence: str | None = None
    days: frozenset[date] | None = None  # the days it is coupled so (None: every day)


@dataclass(frozen=True)
class Problem:
    tasks: tuple[Task, ...]
    drivers: tuple[Driver, ...]
    combinations: tuple[Combination, ...]
    now: datetime
    zone: ZoneInfo = field(default_factory=lambda: ZoneInfo("Europe/Amsterdam"))
    road_factor: float = 1.3
    # when vehicles are already taken by work that is not re-planned: id -> [(start, end)]
    vehicle_busy: dict = field(default_factory=dict)

    def day_of(self, moment: datetime) -> date:
        return moment.astimezone(self.zone).date()

    @property
    def today(self) -> date:
        return self.day_of(self.now)


@dataclass(frozen=True)
class Assignment:
    task_id: Hashable
    driver_id: Hashable
    combination_id: Hashable
    warnings: tuple[str, ...] = ()
    empty_km: float = 0.0


@dataclass(frozen=True)
class Unplaced:
    task_id: Hashable
    rule: str


@dataclass
class Solution:
    assignments: list[Assignment]
    unplaced: list[Unplaced]
    timed_out: bool = False
    seconds: float = 0.0
    solver: str = "cp-sat"

    @property
    def placed(self) -> int:
        return len(self.assignments)

    @property
    def empty_km(self) -> float:
        return round(sum(a.empty_km for a in self.assignments), 1)


def covers(held: frozenset[str], needed: str) -> bool:
    """Whether a licence holder of `held` may drive what needs `needed` (CE includes C, as
    the drivers' licences (portal.drivers.licences.covered) already say)."""
    return needed in held or (needed == "C" and "CE" in held)


def overlaps(a_start: datetime, a_end: datetime, b_start: datetime, b_end: datetime) -> bool:
    return a_start < b_end and b_start < a_end


def week_key(day: date) -> tuple[int, int]:
    iso = day.isocalendar()
    return iso[0], iso[1]


def next_week(key: tuple[int, int]) -> tuple[int, int]:
    monday = date.fromisocalendar(key[0], key[1], 1) + timedelta(days=7)
    return week_key(monday)
