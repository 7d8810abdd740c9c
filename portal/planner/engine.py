"""The planner's solver (pure): dataclasses in (portal.planner.problem), a proposal out.

The model (portal.planner.model, CP-SAT) holds every hard rule. The objective is
lexicographic, in two solves: most tasks placed; then, with that many kept, fewest empty
kilometres (straight line times the road factor) and the least work of the busiest driver
(one weighted objective whose weights keep the order). The second starts from the first's
answer; the first from the greedy baseline's (portal.planner.hints: a complete hint, no
solve), so there is always an answer. Each solve has its share of the time limit; one
stopped by the limit keeps the best found so far and the answer says it timed out. Tasks not
placed are listed with the rule that stopped each (portal.planner.explain)."""

from __future__ import annotations

import time

from ortools.sat.python import cp_model

from portal.planner import checks, explain, greedy, hints
from portal.planner.measures import with_empty_km
from portal.planner.model import Model, build
from portal.planner.problem import Assignment, Problem, Solution

PHASES = (0.55, 0.45)  # each solve's share of the time limit
BUSIEST_MAX = 15 * 24 * 60  # minutes of work of a driver in a period of at most 14 days
WORKERS = 2


def _hint(m: Model, assignments: list[Assignment]) -> None:
    """Hint every variable with the solution that makes these assignments."""
    m.cp.ClearHints()
    for var, value in hints.values(m, assignments):
        m.cp.AddHint(var, int(value))


def _hint_all(m: Model, solver: cp_model.CpSolver) -> None:
    m.cp.ClearHints()
    for index in range(len(m.cp.Proto().variables)):
        var = m.cp.GetIntVarFromProtoIndex(index)
        m.cp.AddHint(var, solver.Value(var))


def _solver(seconds: float) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.1, seconds)
    solver.parameters.num_workers = WORKERS
    # presolve's probing, symmetry and repeated rounds cost seconds on a week's model and
    # find little: one round, no probing
    solver.parameters.cp_model_probing_level = 0
    solver.parameters.symmetry_level = 0
    solver.parameters.max_presolve_iterations = 1
    return solver


def _read(m: Model, solver: cp_model.CpSolver) -> list[Assignment]:
    out = []
    carriers = {}
    for (task_id, combo_id), var in m.z.items():
        if solver.Value(var):
            carriers[task_id] = combo_id
    for (task_id, driver_id), var in m.y.items():
        if solver.Value(var):
            out.append(Assignment(task_id, driver_id, carriers[task_id]))
    return out


def _objectives(m: Model):
    placed = sum(m.placed.values())
    km = sum(m.km)
    busiest = m.busiest = m.cp.NewIntVar(0, BUSIEST_MAX, "busiest")
    for driver in m.problem.drivers:
        planned = sum(p.minutes for p in driver.planned if p.finish > m.problem.now)
        load = sum(task.minutes * var for task, var in m.of_driver[driver.id])
        m.cp.Add(busiest >= load + planned)
    # fewest empty km, then the least busy busiest driver: one solve, a tenth of a km
    # weighing more than any difference in minutes can
    return [(placed, True), (km * (BUSIEST_MAX + 1) + busiest, False)]


def _phase(m: Model, goal, maximise: bool, seconds: float):
    """One solve from the hinted solution: (assignments, proven optimal, the goal's value)
    or None when it found nothing."""
    if maximise:
        m.cp.Maximize(goal)
    else:
        m.cp.Minimize(goal)
    solver = _solver(seconds)
    status = solver.Solve(m.cp)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    _hint_all(m, solver)
    return _read(m, solver), status == cp_model.OPTIMAL, round(solver.ObjectiveValue())


def solve(problem: Problem, *, seconds: float = 8.0) -> Solution:
    """The best assignment found within `seconds` (wall time, building included)."""
    began = time.monotonic()
    baseline = greedy.solve(problem)
    best, timed_out = baseline.assignments, False
    m = build(problem)
    goals = _objectives(m)
    _hint(m, best)
    for share, (goal, maximise) in zip(PHASES, goals, strict=True):
        left = seconds - (time.monotonic() - began)
        if left < 0.2:
            timed_out = True
            break
        last = goal is goals[-1][0]
        found = _phase(m, goal, maximise, left if last else min(left, seconds * share))
        if found is None:
            timed_out = True
            break
        best, optimal, value = found
        timed_out = timed_out or not optimal
        m.cp.Add(goal >= value if maximise else goal <= value)
    return finish(problem, best, timed_out=timed_out, began=began)


def finish(problem: Problem, assignments: list[Assignment], *, timed_out: bool, began: float):
    """The answer: assignments with their warnings and empty km, the unplaced with why."""
    tasks = {t.id: t for t in problem.tasks}
    drivers = {d.id: d for d in problem.drivers}
    combos = {c.id: c for c in problem.combinations}
    warned = [
        Assignment(
            a.task_id,
            a.driver_id,
            a.combination_id,
            checks.warnings_of(
                problem, tasks[a.task_id], drivers[a.driver_id], combos[a.combination_id]
            ),
        )
        for a in assignments
    ]
    warned = with_empty_km(problem, warned)
    unplaced = explain.unplaced(problem, warned)
    return Solution(warned, unplaced, timed_out, round(time.monotonic() - began, 3))
