"""Benchmark: the planner's solver (CP-SAT) on a week of an agricultural carrier, against the
greedy baseline.

Run by hand, it prints figures; it is not a test (tests/planner/test_bench_smoke.py runs
its --smoke mode in a subprocess):

    .venv/bin/python bench/planner_solve.py              # 200 tasks, 40 drivers, 60 vehicles
    .venv/bin/python bench/planner_solve.py --smoke      # a tiny instance, in a second

The instance is made from a fixed seed (no database): tasks of 1 to 5 hours over Monday to
Saturday across the Netherlands' east, some needing a tank, a livestock vehicle or a walking
floor, some at places with opening hours; drivers with C, CE or T licences, their remaining
budget and a few tasks already planned; vehicles as tractors and trucks, a third of them
coupled to a trailer. Goal: solved in under 10 s wall time. The quality (tasks placed, empty
km, spread of work) is printed for both, and the independent checker's verdict on each.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from portal.planner import checks, engine, greedy
from portal.planner.measures import spread, with_empty_km
from portal.planner.opening import parse
from portal.planner.problem import (
    Budget,
    Combination,
    Driver,
    Place,
    Planned,
    Problem,
    Task,
)

ZONE = ZoneInfo("Europe/Amsterdam")
MONDAY = date(2026, 12, 7)
NEEDS = [
    frozenset(),
    frozenset(),
    frozenset({"tank"}),
    frozenset({"vee"}),
    frozenset({"bewegende_vloer"}),
]
HOURS = [None, None, "ma-vr 07:00-17:00", "ma-za 06:00-20:00", "op afspraak"]


def _place(rng: random.Random) -> Place:
    return Place(round(rng.uniform(51.8, 52.6), 4), round(rng.uniform(5.6, 6.9), 4))


def _tasks(rng: random.Random, count: int, days: int) -> list[Task]:
    out = []
    for n in range(count):
        day = MONDAY + timedelta(days=rng.randrange(days))
        local = datetime(day.year, day.month, day.day, rng.randrange(6, 16), 0, tzinfo=ZONE)
        local += timedelta(minutes=rng.choice((0, 15, 30, 45)))
        out.append(
            Task(
                id=f"t{n}",
                start=local.astimezone(UTC),
                minutes=rng.choice((60, 90, 120, 150, 180, 240, 300)),
                begin=_place(rng),
                end=_place(rng),
                needs=rng.choice(NEEDS),
                opening_start=parse(rng.choice(HOURS)),
                driving=rng.random() > 0.1,
            )
        )
    return out


def _drivers(rng: random.Random, count: int, now: datetime) -> list[Driver]:
    out = []
    for n in range(count):
        licences = rng.choice((frozenset({"C", "CE", "T"}), frozenset({"C"}), frozenset({"T"})))
        if n % 13 == 0:
            licences = None
        budget = None
        if n % 11 != 0:
            driven = rng.randrange(0, 30 * 60)
            budget = Budget(
                today_min=9 * 60,
                week_min=56 * 60 - driven,
                two_weeks_min=56 * 60 - driven,
                driven_week_min=driven,
                weekly_rest_due=now + timedelta(days=rng.randrange(3, 8)),
            )
        planned = []
        if n % 4 == 0:
            day = MONDAY + timedelta(days=rng.randrange(5))
            start = datetime(day.year, day.month, day.day, 7, 0, tzinfo=ZONE).astimezone(UTC)
            planned.append(Planned(f"p{n}", start, 240, end=_place(rng)))
        home = _place(rng)
        out.append(Driver(f"d{n}", f"Chauffeur {n}", licences, budget, home, tuple(planned)))
    return out


def _combinations(rng: random.Random, vehicles: int) -> list[Combination]:
    out = []
    n = 0
    while n < vehicles:
        kind = rng.choice(("landbouwtrekker", "vrachtwagen", "opleggertrekker"))
        caps = rng.choice((frozenset(), frozenset({"tank"}), frozenset({"vee"})))
        if n + 1 < vehicles and rng.random() < 0.5:
            towed = rng.choice(
                (frozenset({"tank"}), frozenset({"vee"}), frozenset({"bewegende_vloer"}))
            )
            licence = "T" if kind == "landbouwtrekker" else "CE"
            out.append(
                Combination(
                    f"c{n}", f"v{n}+v{n + 1}", (f"v{n}", f"v{n + 1}"), caps | towed, licence
                )
            )
            n += 2
        else:
            licence = "T" if kind == "landbouwtrekker" else "C"
            out.append(Combination(f"c{n}", f"v{n}", (f"v{n}",), caps, licence))
            n += 1
    return out


def instance(tasks: int, drivers: int, vehicles: int, seed: int = 32) -> Problem:
    """A fixed planning problem of the given size."""
    rng = random.Random(seed)
    now = datetime(2026, 12, 6, 18, 0, tzinfo=ZONE).astimezone(UTC)  # the Sunday before
    return Problem(
        tasks=tuple(_tasks(rng, tasks, 6)),
        drivers=tuple(_drivers(rng, drivers, now)),
        combinations=tuple(_combinations(rng, vehicles)),
        now=now,
        zone=ZONE,
    )


def _quality(problem: Problem, found) -> dict:
    assignments = with_empty_km(problem, found.assignments)
    return {
        "geplaatst": len(assignments),
        "lege_km": round(sum(a.empty_km for a in assignments), 1),
        "spreiding_min": spread(problem, assignments),
        "overtredingen": len(checks.new_violations(problem, assignments)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny instance")
    parser.add_argument("--seconds", type=float, default=7.0, help="the solver's time limit")
    args = parser.parse_args()
    size = (12, 4, 6) if args.smoke else (200, 40, 60)
    problem = instance(*size)
    began = time.perf_counter()
    baseline = greedy.solve(problem)
    greedy_s = time.perf_counter() - began
    began = time.perf_counter()
    solved = engine.solve(problem, seconds=2.0 if args.smoke else args.seconds)
    wall = time.perf_counter() - began
    result = {
        "taken": size[0],
        "chauffeurs": size[1],
        "voertuigen": size[2],
        "greedy": {**_quality(problem, baseline), "seconden": round(greedy_s, 2)},
        "solver": {
            **_quality(problem, solved),
            "seconden": round(wall, 2),
            "tijd_op": solved.timed_out,
            "niet_geplaatst": {u.rule: 0 for u in solved.unplaced},
        },
    }
    for u in solved.unplaced:
        result["solver"]["niet_geplaatst"][u.rule] += 1
    print(json.dumps(result, indent=2))
    ok = wall < 10 and result["solver"]["overtredingen"] == 0
    ok = ok and result["solver"]["geplaatst"] >= result["greedy"]["geplaatst"]
    print("OK" if ok else "FAILED: over 10 s, a violation, or fewer placed than greedy")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
