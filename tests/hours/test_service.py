"""The hours services: ending a day, approval and reopening with their history and audit
trail, what the database itself refuses, and fixed query counts."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from factories import create_driver, create_user, in_carrier
from sqlalchemy.exc import IntegrityError

from hours.support import activity_ids, approve, at, record_day
from portal.audit.service import SYSTEM, Actor
from portal.extensions import db
from portal.hours import service, weeks
from portal.hours.days import activities
from portal.hours.models import Activity, WorkDay
from portal.hours.service import HoursConflict, HoursInvalid
from portal.hours.totals import IsoWeek

W47 = IsoWeek(2026, 47)


def call(app, carrier, fn):
    return in_carrier(app, carrier.id, fn)


def test_ending_a_day_ends_its_running_activity_and_is_audited(app, carrier, driver):
    from portal.audit.service import entries_for

    day = record_day(app, carrier, driver, at("2026-11-16", "06:00"), None)

    def run():
        activities.add_activity(
            carrier_id=carrier.id,
            work_day_id=day.id,
            actor=SYSTEM,
            data={"soort": "rijden", "begin": at("2026-11-16", "06:10")},
            now=at("2026-11-16", "07:00"),
        )
        ended = service.update_work_day(
            carrier_id=carrier.id,
            work_day_id=day.id,
            data={"beeindigd_op": at("2026-11-16", "15:00")},
            actor=SYSTEM,
        )
        (activity,) = service.activities_of(carrier_id=carrier.id, work_day_ids={day.id})[day.id]
        trail = entries_for(carrier_id=carrier.id, entity="activiteit", entity_id=activity.id)
        return ended.beeindigd_op, activity.einde, [e.action for e in trail]

    day_end, activity_end, actions = call(app, carrier, run)
    assert day_end == activity_end == at("2026-11-16", "15:00")
    assert actions == ["created", "updated"]


def test_a_day_cannot_begin_after_one_of_its_activities(app, carrier, driver):
    day = record_day(
        app,
        carrier,
        driver,
        at("2026-11-16", "06:00"),
        at("2026-11-16", "15:00"),
        [("rijden", at("2026-11-16", "06:30"), at("2026-11-16", "08:00"))],
    )
    with pytest.raises(HoursInvalid) as refused:
        call(
            app,
            carrier,
            lambda: service.update_work_day(
                carrier_id=carrier.id,
                work_day_id=day.id,
                data={"gestart_op": at("2026-11-16", "07:00")},
                actor=SYSTEM,
            ),
        )
    assert refused.value.code == "activiteit_voor_begin"
    assert refused.value.field == "gestart_op"


def test_approval_and_reopening_keep_their_history_and_audit_trail(app, carrier, driver):
    from portal.audit.service import entries_for

    planner = create_user(app, carrier, "planner")
    record_day(app, carrier, driver, at("2026-11-16", "06:00"), at("2026-11-16", "15:00"))
    first = approve(app, carrier, driver, "2026-W47", planner)
    actor = Actor("user", planner.id, "Els Vos")

    with pytest.raises(HoursConflict) as twice:
        approve(app, carrier, driver, "2026-W47", planner)
    assert twice.value.code == "al_goedgekeurd"
    with pytest.raises(HoursInvalid) as no_reason:
        call(
            app,
            carrier,
            lambda: weeks.reopen_week(
                carrier_id=carrier.id, driver_id=driver.id, week=W47, reden="  ", actor=actor
            ),
        )
    assert no_reason.value.field == "reden"
    call(
        app,
        carrier,
        lambda: weeks.reopen_week(
            carrier_id=carrier.id,
            driver_id=driver.id,
            week=W47,
            reden="Laden op maandag was lossen",
            actor=actor,
        ),
    )
    second = approve(app, carrier, driver, "2026-W47", planner)

    def read():
        history = weeks.approval_history(carrier_id=carrier.id, driver_id=driver.id, week=W47)
        trail = entries_for(carrier_id=carrier.id, entity="week_goedkeuring", entity_id=first)
        return (
            [(h.id, h.heropend_reden, h.goedgekeurd_door) for h in history],
            [(e.action, e.actor_label, e.changes) for e in trail],
        )

    history, trail = call(app, carrier, read)
    assert history == [
        (second, None, planner.id),
        (first, "Laden op maandag was lossen", planner.id),
    ]
    assert [action for action, _, _ in trail] == ["approved", "reopened"]
    assert trail[1][1] == "Els Vos"
    assert "Laden op maandag was lossen" in trail[1][2]


def test_a_week_with_a_running_day_or_still_to_come_is_not_approved(app, carrier, driver):
    from hours.support import AMS
    from portal.types import utcnow

    record_day(app, carrier, driver, utcnow() - timedelta(hours=2), None)
    this_week = IsoWeek.of(utcnow().astimezone(AMS).date())
    with pytest.raises(HoursConflict) as running:
        approve(app, carrier, driver, this_week.label)
    assert running.value.code == "week_loopt"
    colleague = create_driver(app, carrier, "Piet Bakker")
    with pytest.raises(HoursConflict) as future:
        approve(app, carrier, colleague, this_week.shifted(2).label)
    assert future.value.code == "week_toekomst"


def test_the_database_holds_one_running_day_and_one_running_activity(app, carrier, driver):
    from portal.tenancy import carrier_scope

    with app.app_context(), carrier_scope(db.session, carrier.id):
        db.session.add_all(
            [
                WorkDay(
                    transporteur_id=carrier.id,
                    chauffeur_id=driver.id,
                    gestart_op=at("2026-11-16", "06:00"),
                ),
                WorkDay(
                    transporteur_id=carrier.id,
                    chauffeur_id=driver.id,
                    gestart_op=at("2026-11-17", "06:00"),
                ),
            ]
        )
        with pytest.raises(IntegrityError):
            db.session.flush()
        db.session.rollback()

    day = record_day(app, carrier, driver, at("2026-11-16", "06:00"), None)
    with app.app_context(), carrier_scope(db.session, carrier.id):
        db.session.add_all(
            [
                Activity(
                    transporteur_id=carrier.id,
                    werkdag_id=day.id,
                    chauffeur_id=driver.id,
                    soort=soort,
                    begin=at("2026-11-16", clock),
                )
                for soort, clock in (("rijden", "06:10"), ("laden", "07:10"))
            ]
        )
        with pytest.raises(IntegrityError):
            db.session.flush()
        db.session.rollback()


@pytest.mark.postgres_only
def test_postgresql_refuses_overlapping_days_and_activities_whatever_the_app_does(
    app, backend, carrier, driver
):
    """The exclusion constraints: the last line when two requests race past the check."""
    from portal.tenancy import carrier_scope

    day = record_day(
        app,
        carrier,
        driver,
        at("2026-11-16", "06:00"),
        at("2026-11-16", "15:00"),
        [("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "08:00"))],
    )
    with app.app_context(), carrier_scope(db.session, carrier.id):
        db.session.add(
            WorkDay(
                transporteur_id=carrier.id,
                chauffeur_id=driver.id,
                gestart_op=at("2026-11-16", "14:00"),
                beeindigd_op=at("2026-11-16", "20:00"),
            )
        )
        with pytest.raises(IntegrityError, match="ex_werkdagen_overlap"):
            db.session.flush()
        db.session.rollback()
    with app.app_context(), carrier_scope(db.session, carrier.id):
        db.session.add(
            Activity(
                transporteur_id=carrier.id,
                werkdag_id=day.id,
                chauffeur_id=driver.id,
                soort="laden",
                begin=at("2026-11-16", "07:59"),
                einde=at("2026-11-16", "09:00"),
            )
        )
        with pytest.raises(IntegrityError, match="ex_activiteiten_overlap"):
            db.session.flush()
        db.session.rollback()


def test_a_planner_may_correct_but_the_same_rules_hold(app, carrier, driver):
    day = record_day(
        app,
        carrier,
        driver,
        at("2026-11-16", "06:00"),
        at("2026-11-16", "15:00"),
        [
            ("rijden", at("2026-11-16", "06:00"), at("2026-11-16", "08:00")),
            ("laden", at("2026-11-16", "08:00"), at("2026-11-16", "09:00")),
        ],
    )
    driving, loading = activity_ids(app, carrier, day)
    actor = Actor("user", uuid.uuid4(), "Els Vos")
    with pytest.raises(HoursConflict) as clash:
        call(
            app,
            carrier,
            lambda: activities.update_activity(
                carrier_id=carrier.id,
                activity_id=loading,
                data={"begin": at("2026-11-16", "07:30")},
                actor=actor,
            ),
        )
    assert clash.value.code == "overlap_activiteit"
    assert clash.value.params["soort"] == "rijden"
    assert clash.value.extra["activiteit_id"] == str(driving)


def test_the_overview_and_the_week_run_a_fixed_number_of_queries(app, carrier, count_queries):
    def measure():
        def run():
            with count_queries() as overview:
                weeks.overview(carrier_id=carrier.id, first_day=W47.monday, last_day=W47.sunday)
            drivers = weeks.overview(
                carrier_id=carrier.id, first_day=W47.monday, last_day=W47.sunday
            ).rows
            with count_queries() as week:
                weeks.week_detail(carrier_id=carrier.id, driver_id=drivers[0].driver.id, week=W47)
            return overview.count, week.count

        return call(app, carrier, run)

    def add_driver(n: int):
        driver = create_driver(app, carrier, f"Chauffeur {n:02d}")
        for day in ("2026-11-16", "2026-11-17"):
            record_day(
                app,
                carrier,
                driver,
                at(day, "06:00"),
                at(day, "15:00"),
                [
                    ("rijden", at(day, "06:00"), at(day, "08:00")),
                    ("laden", at(day, "08:00"), at(day, "09:00")),
                ],
            )

    add_driver(0)
    few = measure()
    for n in range(1, 6):
        add_driver(n)
    assert measure() == few
    assert few[0] <= 6  # carrier, drivers, activities, approvals, corrections, exports
