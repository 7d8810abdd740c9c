"""The greedy baseline (pure): tasks in time order, each to the driver and combination that
keep every hard rule (asked of the checker) with the fewest empty kilometres, then the
least work. The solver starts from it and the bench measures the solver against it."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Hashable

from portal.planner import checks
from portal.planner.measures import empty_km
from portal.planner.problem import Assignment, Combination, Driver, Problem, Solution, Task


def _combination(problem: Problem, driver: Driver, free: list[Combination]):
    for combo in free:
        if checks.licence_ok(driver, combo):
            return combo
    return None


def _best(problem: Problem, task: Task, plan: dict, load: dict, free: list[Combination]):
    best, best_key = None, None
    for driver in problem.drivers:
        combo = _combination(problem, driver, free)
        if combo is None:
            continue
        if checks.added_violations(problem, driver, plan[driver.id], task):
            continue
        key = (round(empty_km(problem, driver, task, plan[driver.id]), 1), load[driver.id])
        if best_key is None or key < best_key:
            best, best_key = (driver, combo), key
    return best


def solve(problem: Problem) -> Solution:
    """The greedy plan: assignments only (no warnings, no unplaced list)."""
    began = time.monotonic()
    plan: dict[Hashable, list[Task]] = defaultdict(list)
    load = {
        d.id: sum(p.minutes for p in d.planned if p.finish > problem.now) for d in problem.drivers
    }
    taken: dict[Hashable, list] = defaultdict(list)
    out = []
    for task in sorted(problem.tasks, key=lambda t: (t.start, -t.minutes)):
        free = [
            c
            for c in problem.combinations
            if not checks.task_problems(problem, task, c)
            and checks.vehicles_free(problem, c, task, taken)
        ]
        found = _best(problem, task, plan, load, free) if free else None
        if found is None:
            continue
        driver, combo = found
        plan[driver.id].append(task)
        load[driver.id] += task.minutes
        for vehicle in combo.vehicle_ids:
            taken[vehicle].append((task.start, task.finish))
        out.append(Assignment(task.id, driver.id, combo.id))
    return Solution(out, [], False, round(time.monotonic() - began, 3), solver="greedy")
