"""An independent checker of every hard rule of a plan (pure): it recomputes each driver's
driving per day and week, rests and overlaps from the work itself and the driver's
remaining budget, in plain Python, without the engine's model. Tests use it on what the
solver proposes and what a planner accepts; accepting runs it before anything is written;
the suggestions and the explanation of unplaced tasks ask it what stops a task.

A rule that cannot be decided for lack of data is not a violation but a warning
(`warnings_of`): the assignment may stand, and says so."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from portal.planner.problem import (
    CAPABILITIES,
    COMBINATION_LICENCE_UNKNOWN,
    DAILY_REST,
    DAILY_REST_RULE,
    DAY_SPAN,
    DRIVE_DAY,
    DRIVE_DAY_RULE,
    DRIVE_TWO_WEEKS,
    DRIVE_TWO_WEEKS_RULE,
    DRIVE_WEEK,
    DRIVE_WEEK_RULE,
    LICENCE,
    LICENCES_UNKNOWN,
    NO_COMBINATION,
    NO_DRIVING_DATA,
    OPENING_HOURS,
    OPENING_UNKNOWN,
    OVERLAP,
    VEHICLE_BUSY,
    WEEKLY_REST_EVERY,
    WEEKLY_REST_RULE,
    WEEKLY_REST_UNKNOWN,
    Assignment,
    Combination,
    Driver,
    Problem,
    Task,
    covers,
    overlaps,
    week_key,
)


@dataclass(frozen=True)
class Violation:
    rule: str
    driver_id: Hashable | None
    task_id: Hashable | None
    detail: str = ""


@dataclass(frozen=True)
class Work:
    id: Hashable
    start: datetime
    finish: datetime
    driving: bool


def _work(driver: Driver, tasks: Iterable[Task], now: datetime) -> list[Work]:
    items = [Work(p.id, p.start, p.finish, p.driving) for p in driver.planned]
    items += [Work(t.id, t.start, t.finish, t.driving) for t in tasks]
    return sorted((w for w in items if w.finish > now), key=lambda w: w.start)


def task_problems(problem: Problem, task: Task, combination: Combination) -> list[str]:
    """The rules a task breaks on a combination whoever drives it: capabilities and the
    places' opening hours."""
    out = []
    if combination.days is not None and problem.day_of(task.start) not in combination.days:
        out.append(NO_COMBINATION)
    if not task.needs <= combination.capabilities:
        out.append(CAPABILITIES)
    if opening_closed(problem, task):
        out.append(OPENING_HOURS)
    return out


def opening_closed(problem: Problem, task: Task) -> bool:
    """Whether a place is known to be closed at the task's start (loading) or end."""
    start = task.start.astimezone(problem.zone)
    end = task.finish.astimezone(problem.zone)
    at_start = task.opening_start.admits(start) if task.opening_start else True
    at_end = task.opening_end.admits(end, closing=True) if task.opening_end else True
    return at_start is False or at_end is False


def licence_ok(driver: Driver, combination: Combination) -> bool:
    """False only when both are known and the driver's licences do not cover it."""
    if driver.licences is None or combination.licence is None:
        return True
    return covers(driver.licences, combination.licence)


def warnings_of(problem: Problem, task: Task, driver: Driver, combination: Combination):
    """What could not be decided for this assignment (codes), in a fixed order."""
    out = []
    if task.driving and driver.budget is None:
        out.append(NO_DRIVING_DATA)
    elif task.driving and driver.budget.weekly_rest_due is None:
        out.append(WEEKLY_REST_UNKNOWN)
    if driver.licences is None:
        out.append(LICENCES_UNKNOWN)
    if combination.licence is None:
        out.append(COMBINATION_LICENCE_UNKNOWN)
    for opening in (task.opening_start, task.opening_end):
        if opening is not None and not opening.known:
            out.append(OPENING_UNKNOWN)
            break
    return tuple(out)


def _day_caps(problem: Problem, driver: Driver, day: date) -> int:
    budget = driver.budget
    if day == problem.today and budget is not None and budget.today_min is not None:
        return min(DRIVE_DAY, budget.today_min)
    return DRIVE_DAY


def _driving_violations(problem: Problem, driver: Driver, work: list[Work]) -> list[Violation]:
    per_day: dict[date, int] = defaultdict(int)
    per_week: dict[tuple[int, int], int] = defaultdict(int)
    for w in work:
        if w.driving and w.start >= problem.now:
            minutes = int((w.finish - w.start).total_seconds() // 60)
            per_day[problem.day_of(w.start)] += minutes
            per_week[week_key(problem.day_of(w.start))] += minutes
    out = []
    for day, minutes in sorted(per_day.items()):
        if minutes > _day_caps(problem, driver, day):
            out.append(Violation(DRIVE_DAY_RULE, driver.id, None, f"{day} {minutes} min"))
    budget = driver.budget
    this_week = week_key(problem.today)
    driven = (budget.driven_week_min or 0) if budget else 0
    for week, minutes in sorted(per_week.items()):
        cap = DRIVE_WEEK
        if week == this_week and budget is not None:
            known = [v for v in (budget.week_min, budget.two_weeks_min) if v is not None]
            cap = min([DRIVE_WEEK, *known])
        if minutes > cap:
            out.append(Violation(DRIVE_WEEK_RULE, driver.id, None, f"{week} {minutes} min"))
        before = _week_before(week, per_week, this_week, driven)
        if before + minutes > DRIVE_TWO_WEEKS:
            out.append(Violation(DRIVE_TWO_WEEKS_RULE, driver.id, None, f"{week}"))
    return out


def _week_before(week, per_week, this_week, driven_this_week: int) -> int:
    monday = date.fromisocalendar(week[0], week[1], 1)
    previous = week_key(monday - timedelta(days=7))
    before = per_week.get(previous, 0)
    if previous == this_week:
        before += driven_this_week
    return before


def _rest_violations(problem: Problem, driver: Driver, work: list[Work]) -> list[Violation]:
    by_day: dict[date, list[Work]] = defaultdict(list)
    for w in work:
        by_day[problem.day_of(w.start)].append(w)
    out = []
    for day, items in by_day.items():
        span = max(w.finish for w in items) - min(w.start for w in items)
        if span > timedelta(minutes=DAY_SPAN):
            out.append(Violation(DAILY_REST_RULE, driver.id, None, f"{day} span"))
        following = by_day.get(day + timedelta(days=1))
        if following:
            gap = min(w.start for w in following) - max(w.finish for w in items)
            if gap < timedelta(minutes=DAILY_REST):
                out.append(Violation(DAILY_REST_RULE, driver.id, None, f"{day} rest"))
    due = driver.budget.daily_rest_due if driver.budget else None
    if due is not None:
        for w in by_day.get(problem.today, []):
            if w.finish > due and w.start < due + timedelta(minutes=DAILY_REST):
                out.append(Violation(DAILY_REST_RULE, driver.id, w.id, "due"))
    out += _weekly_rest_violations(problem, driver, set(by_day))
    return out


def weekly_rest_day(problem: Problem, driver: Driver) -> date:
    """The first day that needs a new weekly rest before it (unknown: six days on)."""
    due = driver.budget.weekly_rest_due if driver.budget else None
    if due is None:
        return problem.today + timedelta(days=WEEKLY_REST_EVERY)
    return problem.day_of(due)


def _weekly_rest_violations(problem: Problem, driver: Driver, busy: set[date]) -> list[Violation]:
    """Work on a day from the due day on needs two whole free days that begin at most seven
    days before it (and from today on: days before today are not known to be free)."""
    first_due = weekly_rest_day(problem, driver)
    out = []
    for day in sorted(busy):
        if day < first_due:
            continue
        earliest = max(problem.today, day - timedelta(days=WEEKLY_REST_EVERY + 1))
        candidate, found = earliest, False
        while candidate <= day - timedelta(days=2):
            if candidate not in busy and candidate + timedelta(days=1) not in busy:
                found = True
                break
            candidate += timedelta(days=1)
        if not found:
            out.append(Violation(WEEKLY_REST_RULE, driver.id, None, f"{day}"))
    return out


def driver_violations(problem: Problem, driver: Driver, tasks: Iterable[Task]) -> list[Violation]:
    """Every hard rule of one driver's work (their planned work with these tasks)."""
    work = _work(driver, tasks, problem.now)
    out = []
    for a, b in itertools.pairwise(work):
        if overlaps(a.start, a.finish, b.start, b.finish):
            out.append(Violation(OVERLAP, driver.id, b.id, f"{a.id}"))
    later = [w for w in work if w.start >= problem.now]
    out += _driving_violations(problem, driver, later)
    out += _rest_violations(problem, driver, work)
    return out


def _vehicle_violations(problem: Problem, assignments: list[Assignment]) -> list[Violation]:
    tasks = {t.id: t for t in problem.tasks}
    combos = {c.id: c for c in problem.combinations}
    per_vehicle: dict[Hashable, list[tuple[datetime, datetime, Hashable]]] = defaultdict(list)
    for vehicle, spans in problem.vehicle_busy.items():
        per_vehicle[vehicle] += [(s, e, None) for s, e in spans]
    for a in assignments:
        task = tasks[a.task_id]
        for vehicle in combos[a.combination_id].vehicle_ids:
            per_vehicle[vehicle].append((task.start, task.finish, task.id))
    out = []
    for vehicle, spans in per_vehicle.items():
        spans.sort(key=lambda s: s[0])
        for x, y in itertools.pairwise(spans):
            if overlaps(x[0], x[1], y[0], y[1]):
                out.append(Violation(VEHICLE_BUSY, None, y[2] or x[2], f"{vehicle}"))
    return out


def check(problem: Problem, assignments: list[Assignment]) -> list[Violation]:
    """Every hard rule the assignments break, with the drivers' planned work: [] when none."""
    tasks = {t.id: t for t in problem.tasks}
    drivers = {d.id: d for d in problem.drivers}
    combos = {c.id: c for c in problem.combinations}
    out: list[Violation] = []
    per_driver: dict[Hashable, list[Task]] = defaultdict(list)
    seen: set[Hashable] = set()
    for a in assignments:
        task, driver, combo = tasks[a.task_id], drivers[a.driver_id], combos[a.combination_id]
        if a.task_id in seen:
            out.append(Violation(OVERLAP, a.driver_id, a.task_id, "twice"))
        seen.add(a.task_id)
        per_driver[a.driver_id].append(task)
        out += [Violation(r, a.driver_id, a.task_id) for r in task_problems(problem, task, combo)]
        if not licence_ok(driver, combo):
            out.append(Violation(LICENCE, a.driver_id, a.task_id, combo.licence or ""))
    for driver_id, work in per_driver.items():
        out += driver_violations(problem, drivers[driver_id], work)
    return out + _vehicle_violations(problem, assignments)


def _keys(found: list[Violation]) -> set[tuple]:
    return {(v.rule, v.detail) for v in found}


def added_violations(
    problem: Problem, driver: Driver, before: list[Task], task: Task
) -> list[Violation]:
    """The driver's violations with `task` added that were not there without it."""
    had = _keys(driver_violations(problem, driver, before))
    now = driver_violations(problem, driver, [*before, task])
    return [v for v in now if (v.rule, v.detail) not in had]


def vehicles_free(problem: Problem, combination: Combination, task: Task, taken: dict) -> bool:
    """Whether the combination's vehicles are free for the task: not busy with work that
    stays, nor in `taken` (vehicle id -> [(start, end)] of the plan so far)."""
    for vehicle in combination.vehicle_ids:
        spans = [*problem.vehicle_busy.get(vehicle, ()), *taken.get(vehicle, ())]
        if any(overlaps(task.start, task.finish, s, e) for s, e in spans):
            return False
    return True


def new_violations(problem: Problem, assignments: list[Assignment]) -> list[Violation]:
    """The violations of the assignments that the drivers' planned work alone has not."""
    had = {(v.rule, v.driver_id, v.detail) for v in check(problem, [])}
    return [v for v in check(problem, assignments) if (v.rule, v.driver_id, v.detail) not in had]
