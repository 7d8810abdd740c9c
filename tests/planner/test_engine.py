"""The solver, the greedy baseline and the independent checker on small fixed problems."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from portal.planner import checks, engine, greedy
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
NOW = datetime(2026, 12, 6, 18, 0, tzinfo=ZONE).astimezone(UTC)  # Sunday evening
HOME = Place(52.2, 6.2)
TRUCK = Combination("c1", "AB-12-CD", ("v1",), frozenset({"tank"}), "C")
BUDGET = Budget(
    today_min=540,
    week_min=3360,
    two_weeks_min=3360,
    driven_week_min=0,
    weekly_rest_due=NOW + timedelta(days=6),
)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """Monday 7 December 2026 + day, local time, in UTC."""
    return datetime(2026, 12, 7 + day, hour, minute, tzinfo=ZONE).astimezone(UTC)


def task(n, day, hour, minutes=180, **rest) -> Task:
    return Task(f"t{n}", at(day, hour), minutes, begin=HOME, end=HOME, **rest)


def driver(n="d1", **rest) -> Driver:
    values = {"licences": frozenset({"C", "CE"}), "budget": BUDGET, "home": HOME}
    return Driver(n, f"Chauffeur {n}", **{**values, **rest})


def problem(tasks, drivers=None, combos=(TRUCK,), **rest) -> Problem:
    return Problem(tuple(tasks), tuple(drivers or [driver()]), tuple(combos), NOW, ZONE, **rest)


def rules_of(found):
    return {u.task_id: u.rule for u in found.unplaced}


def test_overlapping_tasks_one_is_placed_the_other_stopped_by_the_overlap():
    p = problem([task(1, 0, 8), task(2, 0, 9)], combos=[TRUCK, Combination("c2", "x", ("v2",))])
    found = engine.solve(p, seconds=5)
    assert found.placed == 1
    assert list(rules_of(found).values()) == ["overlap"]
    assert checks.new_violations(p, found.assignments) == []


def test_a_licence_that_does_not_cover_the_combination_stops_the_task():
    ce = Combination("c9", "trekker+oplegger", ("v1", "v2"), frozenset(), "CE")
    p = problem([task(1, 0, 8)], drivers=[driver(licences=frozenset({"C"}))], combos=[ce])
    found = engine.solve(p, seconds=5)
    assert found.placed == 0
    assert rules_of(found) == {"t1": "rijbewijs"}


def test_a_missing_capability_stops_the_task():
    p = problem([task(1, 0, 8, needs=frozenset({"vee"}))])
    assert rules_of(engine.solve(p, seconds=5)) == {"t1": "capaciteiten"}


def test_a_closed_place_stops_the_task_and_unreadable_hours_are_a_warning():
    closed = task(1, 0, 5, opening_start=parse("ma-vr 07:00-17:00"))
    unknown = task(2, 1, 8, opening_start=parse("bellen voor een afspraak"))
    found = engine.solve(problem([closed, unknown]), seconds=5)
    assert rules_of(found) == {"t1": "openingstijden"}
    assert found.assignments[0].warnings == ("openingstijden_onbekend",)


def test_the_day_drives_nine_hours_at_most():
    tasks = [task(1, 0, 6, 240), task(2, 0, 10, 240), task(3, 0, 14, 240)]
    p = problem(tasks, combos=[TRUCK])
    found = engine.solve(p, seconds=5)
    assert found.placed == 2
    assert list(rules_of(found).values()) == ["rijtijd_dag"]
    assert checks.new_violations(p, found.assignments) == []


def test_the_remaining_week_counts_with_the_work_already_planned():
    tight = Budget(540, 300, 300, 3060, None, NOW + timedelta(days=6))
    planned = (Planned("p1", at(0, 6), 120, end=HOME),)
    p = problem([task(1, 1, 8, 240)], drivers=[driver(budget=tight, planned=planned)])
    p = Problem(p.tasks, p.drivers, p.combinations, at(0, 5), ZONE)  # Monday morning
    found = engine.solve(p, seconds=5)
    assert rules_of(found) == {"t1": "rijtijd_week"}


def test_an_eleven_hour_rest_between_days():
    late, early = task(1, 0, 16, 300), task(2, 1, 6, 120)  # ends 21:00, next starts 06:00
    p = problem(
        [late, early], combos=[TRUCK, Combination("c2", "x", ("v2",), frozenset({"tank"}), "C")]
    )
    found = engine.solve(p, seconds=5)
    assert found.placed == 1
    assert list(rules_of(found).values()) == ["dagrust"]


def test_a_weekly_rest_of_two_free_days_when_it_is_due():
    due = Budget(540, 3360, 3360, 0, None, at(2, 0))
    tasks = [task(n, n, 8, 120) for n in range(6)]
    p = problem(tasks, drivers=[driver(budget=due)])
    found = engine.solve(p, seconds=5)
    assert checks.new_violations(p, found.assignments) == []
    assert "weekrust" in rules_of(found).values()


def test_without_card_data_or_licences_the_assignment_comes_with_warnings():
    p = problem([task(1, 0, 8)], drivers=[driver(budget=None, licences=None)])
    found = engine.solve(p, seconds=5)
    assert found.assignments[0].warnings == ("geen_rijtijdgegevens", "rijbewijzen_onbekend")


def test_the_solver_places_at_least_what_greedy_places_and_breaks_no_rule():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from planner_solve import instance

    p = instance(30, 6, 8)
    solved, baseline = engine.solve(p, seconds=5), greedy.solve(p)
    assert solved.placed >= baseline.placed
    assert checks.new_violations(p, solved.assignments) == []
    assert solved.placed + len(solved.unplaced) == 30


def test_a_time_out_answers_the_best_found_so_far_marked_as_such():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from planner_solve import instance

    p = instance(60, 10, 14)
    found = engine.solve(p, seconds=0.05)
    assert found.timed_out
    assert found.placed >= greedy.solve(p).placed
    assert checks.new_violations(p, found.assignments) == []


def test_the_checker_finds_what_a_hand_made_plan_breaks():
    from portal.planner.problem import Assignment

    tasks = [task(1, 0, 6, 300), task(2, 0, 12, 300)]
    p = problem(tasks)
    plan = [Assignment("t1", "d1", "c1"), Assignment("t2", "d1", "c1")]
    assert {v.rule for v in checks.check(p, plan)} == {"rijtijd_dag"}


def test_work_out_of_eu561_scope_uses_no_driving_time_but_still_takes_the_day():
    tasks = [task(n, 0, 6 + 4 * n, 240, driving=False) for n in range(3)]  # 06:00-18:00
    late = task(9, 0, 18, 120, driving=False)  # would make the day 14 hours
    p = problem([*tasks, late])
    found = engine.solve(p, seconds=5)
    assert found.placed == 3  # 12 hours of exempt work: no driving limit, but the day's span
    assert list(rules_of(found).values()) == ["dagrust"]
    assert checks.new_violations(p, found.assignments) == []
