"""Why a task was not placed (pure): the rule that stopped it, asked of the checker. A rule
of the task itself first (capabilities, opening hours, every fitting vehicle taken), else
the rule most drivers would break by taking it on."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable

from portal.planner import checks
from portal.planner.problem import (
    CAPABILITIES,
    LICENCE,
    NO_COMBINATION,
    OPENING_HOURS,
    RULES,
    VEHICLE_BUSY,
    Assignment,
    Problem,
    Task,
    Unplaced,
)


def _plans(problem: Problem, assignments: list[Assignment]):
    tasks = {t.id: t for t in problem.tasks}
    combos = {c.id: c for c in problem.combinations}
    plan: dict[Hashable, list[Task]] = defaultdict(list)
    taken: dict[Hashable, list] = defaultdict(list)
    for a in assignments:
        task = tasks[a.task_id]
        plan[a.driver_id].append(task)
        for vehicle in combos[a.combination_id].vehicle_ids:
            taken[vehicle].append((task.start, task.finish))
    return plan, taken


def rule_for(problem: Problem, task: Task, plan: dict, taken: dict) -> str:
    """The rule that stops the task, given the plan so far."""
    if checks.opening_closed(problem, task):
        return OPENING_HOURS
    able = [c for c in problem.combinations if not checks.task_problems(problem, task, c)]
    if not able:
        return CAPABILITIES if problem.combinations else NO_COMBINATION
    free = [c for c in able if checks.vehicles_free(problem, c, task, taken)]
    if not free:
        return VEHICLE_BUSY
    found: Counter[str] = Counter()
    for driver in problem.drivers:
        if not any(checks.licence_ok(driver, c) for c in free):
            found[LICENCE] += 1
            continue
        broken = checks.added_violations(problem, driver, plan.get(driver.id, []), task)
        if broken:
            found[min((v.rule for v in broken), key=RULES.index)] += 1
    if not found:
        return NO_COMBINATION
    return max(found, key=lambda rule: (found[rule], -RULES.index(rule)))


def unplaced(problem: Problem, assignments: list[Assignment]) -> list[Unplaced]:
    """Every task without an assignment, with its rule."""
    placed = {a.task_id for a in assignments}
    plan, taken = _plans(problem, assignments)
    return [
        Unplaced(task.id, rule_for(problem, task, plan, taken))
        for task in problem.tasks
        if task.id not in placed
    ]
