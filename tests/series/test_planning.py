"""Occurrences made weeks ahead, never twice; one changed by hand leaves its series; the
series' change reaches its future unchanged occurrences only; ending removes the unstarted."""

from __future__ import annotations

import threading
from datetime import date, time

import pytest

from portal.audit.service import SYSTEM
from portal.errors import Conflict
from series.support import MONDAY, make_series, make_template, plan, run, series_tasks


def test_skip_makes_no_task_on_christmas_or_new_years_day(app, carrier):
    series = make_series(app, carrier, make_template(app, carrier))
    assert plan(app, carrier) == 6
    days = [day for day, _task, _o in series_tasks(app, carrier, series)]
    assert days == [
        date(2026, 12, 14), date(2026, 12, 18), date(2026, 12, 21), date(2026, 12, 28),
        date(2027, 1, 4), date(2027, 1, 8),
    ]  # fmt: skip
    _day, task, _o = series_tasks(app, carrier, series)[0]
    assert (task.type, task.naam, task.duur_min, task.laad_stad) == (
        "mest_laden", "Mest Jansen", 90, "Enter",
    )  # fmt: skip
    assert task.gepland_op.hour == 6 and task.gepland_op.minute == 30  # 07:30 in Amsterdam


def test_next_working_day_moves_them_to_the_mondays(app, carrier, driver):
    series = make_series(
        app, carrier, make_template(app, carrier), feestdagen="volgende_werkdag",
        chauffeur_id=driver.id,
    )  # fmt: skip
    assert plan(app, carrier) == 8
    found = series_tasks(app, carrier, series)
    moved = {o.datum: day for day, _t, o in found if o.feestdag}
    assert moved == {date(2026, 12, 25): date(2026, 12, 28), date(2027, 1, 1): date(2027, 1, 4)}
    assert {task.chauffeur_id for _d, task, _o in found} == {driver.id}


def test_planning_again_makes_nothing_twice(app, carrier):
    series = make_series(app, carrier, make_template(app, carrier))
    assert plan(app, carrier, weeks=2) == 3  # 14, 18, 21 December (25 is Christmas)
    assert plan(app, carrier, weeks=4) == 3
    assert plan(app, carrier, weeks=4) == 0
    assert len(series_tasks(app, carrier, series)) == 6


@pytest.mark.postgres_only
def test_two_runs_at_once_make_each_occurrence_once(app, carrier):
    """Both runs start before either commits: the unique (series, datum) makes the second
    wait for the first and then skip what it made."""
    series = make_series(app, carrier, make_template(app, carrier))
    start = threading.Barrier(2)
    made, errors = [], []

    def one_run():
        from portal.extensions import db
        from portal.series import planning
        from portal.tenancy import carrier_scope

        try:
            with app.app_context(), carrier_scope(db.session, carrier.id):
                start.wait(timeout=10)
                made.append(planning.plan(carrier_id=carrier.id, today=MONDAY, actor=SYSTEM))
                db.session.commit()
        except Exception as error:
            errors.append(error)

    runs = [threading.Thread(target=one_run) for _ in range(2)]
    for thread in runs:
        thread.start()
    for thread in runs:
        thread.join(timeout=30)
    assert errors == []
    assert sorted(made) == [0, 6]
    assert len(series_tasks(app, carrier, series)) == 6


def _edit_task(app, carrier, task_id, **data):
    from portal.tasks import service as tasks

    return run(
        app,
        carrier,
        lambda: tasks.update_task(carrier_id=carrier.id, task_id=task_id, data=data, actor=SYSTEM),
    )


def _change_series(app, carrier, series, **data):
    from portal.series import planning

    return run(
        app,
        carrier,
        lambda: planning.update_series(
            carrier_id=carrier.id, series_id=series.id, data=data, actor=SYSTEM, today=MONDAY
        )[1],
    )


def test_a_task_changed_by_hand_leaves_the_series(app, carrier):
    series = make_series(app, carrier, make_template(app, carrier))
    plan(app, carrier)
    _day, first, _o = series_tasks(app, carrier, series)[1]
    _edit_task(app, carrier, first.id, opmerkingen="Eerst bellen")
    assert _change_series(app, carrier, series, tijd=time(9, 0)) == 5
    found = series_tasks(app, carrier, series)
    left = [task for _d, task, o in found if o.stand == "gewijzigd"]
    assert [task.id for task in left] == [first.id]
    assert left[0].gepland_op.hour == 6  # still 07:30: it no longer follows
    assert {t.gepland_op.hour for _d, t, o in found if o.stand == "volgt"} == {8}


def test_a_started_or_past_occurrence_is_not_changed(app, carrier):
    series = make_series(app, carrier, make_template(app, carrier))
    plan(app, carrier)
    found = series_tasks(app, carrier, series)
    started = found[2][1]
    run(app, carrier, lambda: _start(carrier, started.id))
    later = date(2026, 12, 15)  # Monday 14 December is past
    from portal.series import planning

    changed = run(
        app,
        carrier,
        lambda: planning.update_series(
            carrier_id=carrier.id, series_id=series.id, data={"tijd": time(10, 0)},
            actor=SYSTEM, today=later,
        )[1],
    )  # fmt: skip
    assert changed == 4


def _start(carrier, task_id):
    from portal.tasks import service as tasks

    task = tasks.get_task(carrier_id=carrier.id, task_id=task_id)
    task.status = "gestart"
    return task


def test_a_new_rule_remakes_the_future_occurrences(app, carrier):
    series = make_series(app, carrier, make_template(app, carrier))
    plan(app, carrier)
    assert _change_series(app, carrier, series, weekdagen=(1,)) == 6
    days = [day for day, _t, o in series_tasks(app, carrier, series)]
    assert all(day.weekday() == 1 for day in days) and len(days) == 4


def test_ending_removes_the_future_unstarted_occurrences_only(app, carrier):
    from portal.series import planning

    series = make_series(app, carrier, make_template(app, carrier))
    plan(app, carrier)
    found = series_tasks(app, carrier, series)
    run(app, carrier, lambda: _start(carrier, found[0][1].id))
    _edit_task(app, carrier, found[1][1].id, opmerkingen="Eigen rit")
    count = run(
        app,
        carrier,
        lambda: planning.to_end(carrier_id=carrier.id, series_id=series.id, today=MONDAY),
    )
    assert count == 4
    removed = run(
        app,
        carrier,
        lambda: planning.end_series(
            carrier_id=carrier.id, series_id=series.id, actor=SYSTEM, today=MONDAY
        ),
    )
    assert removed == 4
    assert [t.id for _d, t, _o in series_tasks(app, carrier, series)] == [
        found[0][1].id, found[1][1].id,
    ]  # fmt: skip
    assert plan(app, carrier, weeks=8) == 0


def test_a_deleted_occurrence_is_not_made_again(app, carrier):
    from portal.tasks import service as tasks

    series = make_series(app, carrier, make_template(app, carrier))
    plan(app, carrier)
    first = series_tasks(app, carrier, series)[0][1]
    run(
        app,
        carrier,
        lambda: tasks.delete_task(carrier_id=carrier.id, task_id=first.id, actor=SYSTEM),
    )
    assert plan(app, carrier) == 0
    assert len(series_tasks(app, carrier, series)) == 5


def test_a_template_in_use_is_not_deleted(app, carrier):
    from portal.series import service

    template = make_template(app, carrier)
    make_series(app, carrier, template)
    with pytest.raises(Conflict):
        run(
            app,
            carrier,
            lambda: service.delete_template(
                carrier_id=carrier.id, template_id=template.id, actor=SYSTEM
            ),
        )


def test_a_series_whose_customer_left_waits_and_the_others_are_planned(app, carrier):
    from portal.customers import service as customers

    stuck = make_series(app, carrier, make_template(app, carrier))
    other = make_series(
        app, carrier, make_template(app, carrier, naam="Voer", klant_id=None), naam="Voer di"
    )
    run(
        app,
        carrier,
        lambda: customers.set_active(
            carrier_id=carrier.id, customer_id=_customer_of(app, carrier, stuck), actief=False,
            actor=SYSTEM,
        ),
    )  # fmt: skip
    assert plan(app, carrier) == 6
    assert series_tasks(app, carrier, stuck) == []
    assert len(series_tasks(app, carrier, other)) == 6


def _customer_of(app, carrier, series):
    from portal.series import service

    template = run(
        app,
        carrier,
        lambda: service.get_template(carrier_id=carrier.id, template_id=series.sjabloon_id),
    )
    return template.klant_id
