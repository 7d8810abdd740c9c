"""The CP-SAT model of the planning problem (OR-Tools): its variables and hard rules. One
Boolean per (task, driver) that may be, and per (task, combination) that may carry it;
the rules decided by a task and a driver's planned work alone leave variables out.

Hard rules: no overlap of a driver's or a vehicle's work; legal driving per day, fixed week
and two weeks from the driver's remaining budget with the work planned before it; a day's
work within 13 hours, 11 hours of rest between days, a weekly rest of two free days at the
latest six days after the last; the capabilities a task needs; the licence category the
combination needs; the places' opening hours (pure)."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import date, timedelta

from ortools.sat.python import cp_model

from portal.planner import checks
from portal.planner.problem import (
    DAILY_REST,
    DAY_SPAN,
    DRIVE_DAY,
    DRIVE_TWO_WEEKS,
    DRIVE_WEEK,
    WEEKLY_REST_EVERY,
    Combination,
    Driver,
    Place,
    Problem,
    Task,
    covers,
    km_between,
    overlaps,
    week_key,
)

ARCS = 4  # where a driver may come from: home, or the work that ends last before, up to this many


@dataclass
class Model:
    problem: Problem
    cp: cp_model.CpModel = field(default_factory=cp_model.CpModel)
    y: dict = field(default_factory=dict)  # (task, driver) -> BoolVar
    z: dict = field(default_factory=dict)  # (task, combination) -> BoolVar
    placed: dict = field(default_factory=dict)  # task -> BoolVar
    of_driver: dict = field(default_factory=lambda: defaultdict(list))  # driver -> [(task, y)]
    of_task: dict = field(default_factory=lambda: defaultdict(list))  # task -> [(combo, z)]
    km: list = field(default_factory=list)  # terms: empty km in tenths times an arc
    present: dict = field(default_factory=dict)  # (task, vehicle) -> BoolVar
    pairs: dict = field(default_factory=dict)  # (driver, day) -> two free days from it
    arcs: list = field(default_factory=list)  # (driver, task, from work id or None, BoolVar)
    busiest: object = None  # the busiest driver's minutes (the last objective)


def _minutes(x) -> int:
    return int(x.total_seconds() // 60)


def _combinations_for(problem: Problem, task: Task) -> list[Combination]:
    out = []
    for combo in problem.combinations:
        if checks.task_problems(problem, task, combo):
            continue
        busy = any(
            overlaps(task.start, task.finish, s, e)
            for vehicle in combo.vehicle_ids
            for s, e in problem.vehicle_busy.get(vehicle, ())
        )
        if not busy:
            out.append(combo)
    return out


def _clashes(problem: Problem, a, b) -> bool:
    """Whether two pieces of work cannot both be a driver's: overlap, a day longer than the
    span, or too short a rest between consecutive days."""
    if overlaps(a.start, a.finish, b.start, b.finish):
        return True
    first, second = (a, b) if a.start <= b.start else (b, a)
    day_a, day_b = problem.day_of(first.start), problem.day_of(second.start)
    if day_a == day_b:
        return max(a.finish, b.finish) - first.start > timedelta(minutes=DAY_SPAN)
    if day_b - day_a == timedelta(days=1):
        return second.start - first.finish < timedelta(minutes=DAILY_REST)
    return False


def _driver_may(problem: Problem, driver: Driver, task: Task) -> bool:
    """The rules decided by the task and the driver's planned work alone."""
    if any(_clashes(problem, task, p) for p in driver.planned if p.finish > problem.now):
        return False
    due = driver.budget.daily_rest_due if driver.budget else None
    if (
        due is not None
        and problem.day_of(task.start) == problem.today
        and task.finish > due
        and task.start < due + timedelta(minutes=DAILY_REST)
    ):
        return False
    day = problem.day_of(task.start)
    # from the due day on, two free days must fit between today and it
    late = day >= checks.weekly_rest_day(problem, driver)
    return not (late and day - problem.today < timedelta(days=2))


def _variables(m: Model, combos: dict) -> None:
    p, cp = m.problem, m.cp
    for task in p.tasks:
        m.placed[task.id] = cp.new_bool_var(f"p{task.id}")
        ys = []
        for driver in p.drivers:
            if combos[task.id] and _driver_may(p, driver, task):
                var = cp.new_bool_var(f"y{task.id}_{driver.id}")
                m.y[task.id, driver.id] = var
                m.of_driver[driver.id].append((task, var))
                ys.append(var)
        zs = []
        for combo in combos[task.id]:
            m.z[task.id, combo.id] = var = cp.new_bool_var(f"z{task.id}_{combo.id}")
            m.of_task[task.id].append((combo, var))
            zs.append(var)
        cp.add(sum(ys) == m.placed[task.id])
        cp.add(sum(zs) == m.placed[task.id])


def _licences(m: Model, combos: dict) -> None:
    """Per task and licence category: no more of its combinations than drivers who may
    drive them (an unknown licence on either side is allowed, with a warning)."""
    drivers = {d.id: d for d in m.problem.drivers}
    per_task = defaultdict(list)
    for (t, d), var in m.y.items():
        per_task[t].append((drivers[d], var))
    for task in m.problem.tasks:
        by_class: dict[str, list] = defaultdict(list)
        for combo in combos[task.id]:
            if combo.licence is not None:
                by_class[combo.licence].append(m.z[task.id, combo.id])
        for licence, zs in by_class.items():
            able = [
                var
                for driver, var in per_task[task.id]
                if driver.licences is None or covers(driver.licences, licence)
            ]
            m.cp.add(sum(zs) <= sum(able))


def _overlaps(m: Model) -> None:
    p, cp = m.problem, m.cp
    offset = p.now

    def interval(task: Task, presence, name: str):
        start = _minutes(task.start - offset)
        return cp.new_optional_fixed_size_interval_var(start, task.minutes, presence, name)

    for driver_id, mine in m.of_driver.items():
        cp.add_no_overlap([interval(t, var, f"i{t.id}_{driver_id}") for t, var in mine])
    per_vehicle: dict[Hashable, list] = defaultdict(list)
    for task in p.tasks:
        uses: dict[Hashable, list] = defaultdict(list)
        for combo, var in m.of_task[task.id]:
            for vehicle in combo.vehicle_ids:
                uses[vehicle].append(var)
        for vehicle, zs in uses.items():
            present = cp.new_bool_var(f"v{task.id}_{vehicle}")
            m.present[task.id, vehicle] = present
            cp.add(present == sum(zs))
            per_vehicle[vehicle].append(interval(task, present, f"w{task.id}_{vehicle}"))
    for items in per_vehicle.values():
        cp.add_no_overlap(items)


def _pairs(m: Model) -> None:
    """A day's span and the rest between days, for two new tasks of one driver."""
    p = m.problem
    ordered = sorted(p.tasks, key=lambda t: t.start)
    limit = timedelta(days=2)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            if b.start - a.start > limit:
                break
            if overlaps(a.start, a.finish, b.start, b.finish) or not _clashes(p, a, b):
                continue  # an overlap is the intervals' business
            for driver in p.drivers:
                ya, yb = m.y.get((a.id, driver.id)), m.y.get((b.id, driver.id))
                if ya is not None and yb is not None:
                    m.cp.add_bool_or([ya.negated(), yb.negated()])


def _planned_minutes(problem: Problem, driver: Driver, key) -> int:
    return sum(
        p.minutes
        for p in driver.planned
        if p.driving and p.start >= problem.now and key(problem.day_of(p.start))
    )


def _driving(m: Model) -> None:
    """Driving per day, per fixed week and per two weeks, with the planned work."""
    p, cp = m.problem, m.cp
    this_week = week_key(p.today)
    for driver in p.drivers:
        days, weeks = defaultdict(list), defaultdict(list)
        for task, var in m.of_driver[driver.id]:
            if task.driving:
                day = p.day_of(task.start)
                days[day].append(task.minutes * var)
                weeks[week_key(day)].append(task.minutes * var)
        budget = driver.budget
        for day, terms in days.items():
            cap = DRIVE_DAY
            if day == p.today and budget is not None and budget.today_min is not None:
                cap = min(cap, budget.today_min)
            used = _planned_minutes(p, driver, lambda x, day=day: x == day)
            cp.add(sum(terms) <= max(0, cap - used))
        sums = {}
        for week, terms in weeks.items():
            used = _planned_minutes(p, driver, lambda x, week=week: week_key(x) == week)
            sums[week] = (sum(terms), used)
            cap = DRIVE_WEEK
            if week == this_week and budget is not None:
                known = (v for v in (budget.week_min, budget.two_weeks_min) if v is not None)
                cap = min([cap, *known])
            cp.add(sums[week][0] <= max(0, cap - used))
        driven = (budget.driven_week_min or 0) if budget else 0
        _two_weeks(m, driver, sums, this_week, driven)


def _two_weeks(m: Model, driver: Driver, sums: dict, this_week, driven: int) -> None:
    for week, (new, used) in sums.items():
        monday = date.fromisocalendar(week[0], week[1], 1)
        previous = week_key(monday - timedelta(days=7))
        before = used + (driven if previous == this_week else 0)
        if previous in sums:
            new = new + sums[previous][0]
            before += sums[previous][1]
        else:
            before += _planned_minutes(m.problem, driver, lambda x, w=previous: week_key(x) == w)
        m.cp.add(new <= max(0, DRIVE_TWO_WEEKS - before))


def _weekly_rests(m: Model) -> None:
    """Work on a day from the driver's due day on needs two whole free days that begin at
    most seven days before it, from today on."""
    for driver in m.problem.drivers:
        mine = m.of_driver[driver.id]
        due = checks.weekly_rest_day(m.problem, driver)
        if any(m.problem.day_of(t.start) >= due for t, _ in mine):
            _weekly_rest_of(m, driver, mine, due)


def _weekly_rest_of(m: Model, driver: Driver, mine: list, due: date) -> None:
    p, cp = m.problem, m.cp
    planned = {p.day_of(w.start) for w in driver.planned if w.finish > p.now}
    on_day = defaultdict(list)
    for t, var in mine:
        on_day[p.day_of(t.start)].append(var)
    free: dict[date, object] = {}

    def pair(day: date):
        if day not in free:
            after = day + timedelta(days=1)
            if day in planned or after in planned:
                free[day] = None
            else:
                free[day] = var = cp.new_bool_var(f"r{driver.id}_{day}")
                m.pairs[driver.id, day] = var
                for busy in (*on_day.get(day, ()), *on_day.get(after, ())):
                    cp.add_implication(var, busy.negated())
        return free[day]

    for t, var in mine:
        day = p.day_of(t.start)
        if day < due:
            continue
        first = max(p.today, day - timedelta(days=WEEKLY_REST_EVERY + 1))
        options = [pair(first + timedelta(days=i)) for i in range((day - first).days - 1)]
        options = [o for o in options if o is not None]
        if options:
            cp.add_bool_or(options).only_enforce_if(var)
        else:
            cp.add(var == 0)


def _tenths(problem: Problem, a: Place | None, b: Place | None) -> int:
    return round(10 * problem.road_factor * km_between(a, b))


def _routes(m: Model) -> None:
    """Where each driver comes from to each piece of their work: exactly one arc in, from
    home or from the end of one of the few pieces of work that end last before it that day;
    each piece of work has at most one arc out. The arcs' kilometres are the empty
    kilometres (an approximation: a driver may be sent from home again)."""
    p = m.problem
    for driver in p.drivers:
        nodes = defaultdict(list)  # day -> [(work, presence literal or True)]
        for w in driver.planned:
            if w.finish > p.now:
                nodes[p.day_of(w.start)].append((w, True))
        for task, var in m.of_driver[driver.id]:
            nodes[p.day_of(task.start)].append((task, var))
        for items in nodes.values():
            _day_route(m, driver, sorted(items, key=lambda item: item[0].finish))


def _day_route(m: Model, driver: Driver, items: list) -> None:
    p, cp = m.problem, m.cp
    outs = defaultdict(list)
    finishes = [a.finish for a, _ in items]
    for b, present in items:
        if present is True:
            continue  # planned work: where it comes from is not the plan's to choose
        start = cp.new_bool_var("")
        m.arcs.append((driver.id, b.id, None, start))
        arcs = [start]
        m.km.append(_tenths(p, driver.home, b.begin) * start)
        last = bisect.bisect_right(finishes, b.start)
        for i in range(max(0, last - ARCS), last):
            a = items[i][0]
            arc = cp.new_bool_var("")
            m.arcs.append((driver.id, b.id, a.id, arc))
            arcs.append(arc)
            outs[i].append(arc)
            m.km.append(_tenths(p, a.end or a.begin, b.begin) * arc)
        cp.add(sum(arcs) == present)
    for i, arcs in outs.items():
        present = items[i][1]
        cp.add(sum(arcs) <= (1 if present is True else present))


def build(problem: Problem) -> Model:
    """The model of every hard rule."""
    m = Model(problem)
    combos = {task.id: _combinations_for(problem, task) for task in problem.tasks}
    _variables(m, combos)
    _licences(m, combos)
    _overlaps(m)
    _pairs(m)
    _driving(m)
    _weekly_rests(m)
    _routes(m)
    return m
