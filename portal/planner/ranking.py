"""Suggestions for one task (pure): every driver ranked with a combination for them and the
reasons, asked of the independent checker. A driver who fails a hard rule is listed with
why, never hidden: first those who break nothing, then by what could not be decided, the
empty kilometres and the driving time left."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from portal.planner import checks
from portal.planner.measures import empty_km
from portal.planner.problem import (
    CAPABILITIES,
    DRIVE_DAY,
    DRIVE_WEEK,
    LICENCE,
    OPENING_HOURS,
    RULES,
    VEHICLE_BUSY,
    Combination,
    Driver,
    Problem,
    Task,
    week_key,
)


@dataclass(frozen=True)
class Suggestion:
    driver: Driver
    combination: Combination | None
    failures: tuple[str, ...]  # hard rules broken (codes), in the rules' order
    warnings: tuple[str, ...]  # rules not decided for lack of data
    empty_km: float
    day_left_min: int | None  # driving left on the task's day before it (None: not known)
    week_left_min: int | None
    missing: frozenset[str] = frozenset()  # capabilities no free combination has

    @property
    def fits(self) -> bool:
        return not self.failures


def _planned_driving(problem: Problem, driver: Driver, same) -> int:
    return sum(
        p.minutes
        for p in driver.planned
        if p.driving and p.start >= problem.now and same(problem.day_of(p.start))
    )


def driving_left(problem: Problem, driver: Driver, day: date) -> tuple[int | None, int | None]:
    """Driving time left on a day and in its week, with the work planned then."""
    budget = driver.budget
    if budget is None:
        return None, None
    day_cap = DRIVE_DAY
    if day == problem.today and budget.today_min is not None:
        day_cap = min(day_cap, budget.today_min)
    week_cap = DRIVE_WEEK
    if week_key(day) == week_key(problem.today):
        known = [v for v in (budget.week_min, budget.two_weeks_min) if v is not None]
        week_cap = min([week_cap, *known])
    day_used = _planned_driving(problem, driver, lambda d: d == day)
    week_used = _planned_driving(problem, driver, lambda d: week_key(d) == week_key(day))
    return max(0, day_cap - day_used), max(0, week_cap - week_used)


def _combination(problem: Problem, driver: Driver, task: Task):
    """The combination for this driver, and the rule that stops every one (or None)."""
    able = [c for c in problem.combinations if not checks.task_problems(problem, task, c)]
    free = [c for c in able if checks.vehicles_free(problem, c, task, {})]
    allowed = [c for c in free if checks.licence_ok(driver, c)]
    known = [c for c in allowed if c.licence is not None]
    if known or allowed:
        return (known or allowed)[0], None
    if free:
        return free[0], LICENCE
    if able:
        return able[0], VEHICLE_BUSY
    return None, CAPABILITIES


def _missing(problem: Problem, task: Task) -> frozenset[str]:
    if not problem.combinations:
        return task.needs
    return min((task.needs - c.capabilities for c in problem.combinations), key=len)


def suggest(problem: Problem, driver: Driver, task: Task) -> Suggestion:
    combo, stopped = _combination(problem, driver, task)
    failures = {v.rule for v in checks.added_violations(problem, driver, [], task)}
    if stopped:
        failures.add(stopped)
    if checks.opening_closed(problem, task):
        failures.add(OPENING_HOURS)
    warnings = checks.warnings_of(problem, task, driver, combo) if combo else ()
    day, week = driving_left(problem, driver, problem.day_of(task.start))
    return Suggestion(
        driver=driver,
        combination=combo,
        failures=tuple(sorted(failures, key=RULES.index)),
        warnings=warnings,
        empty_km=round(empty_km(problem, driver, task, []), 1),
        day_left_min=day,
        week_left_min=week,
        missing=_missing(problem, task) if CAPABILITIES in failures else frozenset(),
    )


def rank(problem: Problem, task: Task) -> list[Suggestion]:
    """Every driver for the task, best first."""
    found = [suggest(problem, driver, task) for driver in problem.drivers]
    return sorted(
        found,
        key=lambda s: (
            len(s.failures),
            len(s.warnings),
            s.empty_km,
            -(s.day_left_min or 0),
            s.driver.name.lower(),
        ),
    )
