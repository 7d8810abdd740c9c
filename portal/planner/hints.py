"""A complete solution hint of the model from a plan (pure): every variable's value when the
tasks are assigned so, computed here rather than by a solve, so the solver starts from the
greedy plan at once."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from portal.planner.model import Model
from portal.planner.problem import Assignment


def _predecessors(m: Model, assignments: list[Assignment]) -> dict:
    """(driver, task) -> the id of the work just before it that day (None: first)."""
    p = m.problem
    tasks = {t.id: t for t in p.tasks}
    days: dict = defaultdict(list)
    for d in p.drivers:
        for w in d.planned:
            if w.finish > p.now:
                days[d.id, p.day_of(w.start)].append(w)
    for a in assignments:
        task = tasks[a.task_id]
        days[a.driver_id, p.day_of(task.start)].append(task)
    out = {}
    for (driver_id, _day), items in days.items():
        items.sort(key=lambda w: w.start)
        for before, item in zip([None, *items], items, strict=False):
            out[driver_id, item.id] = before.id if before is not None else None
    return out


def values(m: Model, assignments: list[Assignment]) -> list[tuple]:
    """(variable, value) for every variable of the model."""
    p = m.problem
    tasks = {t.id: t for t in p.tasks}
    combos = {c.id: c for c in p.combinations}
    driver_of = {a.task_id: a.driver_id for a in assignments}
    combo_of = {a.task_id: a.combination_id for a in assignments}
    out = [(var, driver_of.get(t) == d) for (t, d), var in m.y.items()]
    out += [(var, combo_of.get(t) == c) for (t, c), var in m.z.items()]
    out += [(var, t in driver_of) for t, var in m.placed.items()]
    out += [
        (var, t in combo_of and vehicle in combos[combo_of[t]].vehicle_ids)
        for (t, vehicle), var in m.present.items()
    ]
    busy: dict = defaultdict(set)
    for a in assignments:
        busy[a.driver_id].add(p.day_of(tasks[a.task_id].start))
    for d in p.drivers:
        busy[d.id] |= {p.day_of(w.start) for w in d.planned if w.finish > p.now}
    out += [
        (var, day not in busy[d] and day + timedelta(days=1) not in busy[d])
        for (d, day), var in m.pairs.items()
    ]
    before = _predecessors(m, assignments)
    arcs = {(d, t, a) for d, t, a, _var in m.arcs}
    for d, t, a, var in m.arcs:
        if driver_of.get(t) != d:
            out.append((var, False))
            continue
        chosen = before.get((d, t))
        chosen = chosen if (d, t, chosen) in arcs else None
        out.append((var, a == chosen))
    if m.busiest is not None:
        loads = defaultdict(int)
        for d in p.drivers:
            loads[d.id] = sum(w.minutes for w in d.planned if w.finish > p.now)
        for a in assignments:
            loads[a.driver_id] += tasks[a.task_id].minutes
        out.append((m.busiest, max(loads.values(), default=0)))
    return out
