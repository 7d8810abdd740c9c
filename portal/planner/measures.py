"""What a plan costs, measured the same way for the solver, the greedy baseline and the bench
(pure): empty kilometres (straight line times the road factor, from home or the end of the
driver's previous work that day to the start of the next) and the spread of workload."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from dataclasses import replace

from portal.planner.problem import Assignment, Driver, Place, Problem, Task, km_between


def reference(problem: Problem, driver: Driver, task: Task, before: list) -> Place | None:
    """Where the driver comes from to this task: the end of their latest work ending by its
    start on the same day (planned or in `before`), else their home base."""
    day = problem.day_of(task.start)
    best, best_end = driver.home, None
    for item in [*driver.planned, *before]:
        later = best_end is None or item.finish > best_end
        if item.finish <= task.start and problem.day_of(item.start) == day and later:
            best, best_end = (item.end or item.begin or best), item.finish
    return best


def empty_km(problem: Problem, driver: Driver, task: Task, before: list) -> float:
    return km_between(reference(problem, driver, task, before), task.begin) * problem.road_factor


def with_empty_km(problem: Problem, assignments: list[Assignment]) -> list[Assignment]:
    """The assignments, each with the empty kilometres to reach it in its driver's day."""
    tasks = {t.id: t for t in problem.tasks}
    drivers = {d.id: d for d in problem.drivers}
    mine: dict[Hashable, list[Task]] = defaultdict(list)
    for a in assignments:
        mine[a.driver_id].append(tasks[a.task_id])
    out = []
    for a in assignments:
        driver, task = drivers[a.driver_id], tasks[a.task_id]
        others = [t for t in mine[a.driver_id] if t.id != task.id]
        km = round(empty_km(problem, driver, task, others), 1)
        out.append(replace(a, empty_km=km))
    return out


def loads(problem: Problem, assignments: list[Assignment]) -> dict[Hashable, int]:
    """Minutes of work per driver in the problem's period: planned from now on, and new."""
    tasks = {t.id: t for t in problem.tasks}
    out = {
        d.id: sum(p.minutes for p in d.planned if p.finish > problem.now) for d in problem.drivers
    }
    for a in assignments:
        out[a.driver_id] += tasks[a.task_id].minutes
    return out


def spread(problem: Problem, assignments: list[Assignment]) -> int:
    """The most minutes of work of any driver less the fewest."""
    found = list(loads(problem, assignments).values())
    return (max(found) - min(found)) if found else 0
