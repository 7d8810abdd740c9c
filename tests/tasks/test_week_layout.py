"""The week's layout as plain data: where a task stands on the axis, stacking, the hours a
period draws, a proposal placed like a task, a fortnight cut into pages."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from portal.tasks.pages.week_layout import (
    Lane,
    Period,
    fill,
    placements,
    position_css,
    proposal,
    weeks_of,
)
from portal.tasks.period import PERIOD_FIELDS

AMS = ZoneInfo("Europe/Amsterdam")
MONDAY = date(2027, 3, 1)


def task(day: int, clock: str, minutes: int | None, driver=None, kind="mest_laden"):
    moment = datetime.combine(MONDAY + timedelta(days=day), time.fromisoformat(clock), AMS)
    fields = dict.fromkeys(PERIOD_FIELDS)
    fields.update(
        id=uuid.uuid4(),
        type=kind,
        duur_min=minutes,
        chauffeur_id=driver,
        gepland_op=moment.astimezone(UTC),
        status="gepland",
    )
    return SimpleNamespace(**fields)


def test_a_task_stands_at_its_time_and_duration():
    (placed,), period = placements([task(2, "08:00", 120)], Period(MONDAY, 7, AMS))

    assert (period.first_hour, period.last_hour) == (6, 20)
    assert placed.left == pytest.approx((2 + 3.5 / 16.5) * 100 / 7)
    assert placed.width == pytest.approx((2 / 16.5) * 100 / 7)
    assert (placed.clock, placed.day, placed.estimated) == ("08:00\u201310:00", 2, False)


def test_an_early_task_widens_the_hours_and_one_past_midnight_does_not():
    early = task(0, "04:30", 60)
    night = task(1, "22:00", 240)

    found, period = placements([early, night], Period(MONDAY, 7, AMS))

    assert (period.first_hour, period.last_hour) == (4, 20)
    assert found[1].clock == "22:00\u201302:00 (+1)"


def test_tasks_outside_the_period_are_left_out_and_one_from_the_evening_before_is_in():
    before = task(-1, "22:00", 180)
    outside = task(-1, "08:00", 60)
    after = task(7, "00:30", 60)

    found, _period = placements([before, outside, after], Period(MONDAY, 7, AMS))

    assert [p.task for p in found] == [before]
    assert found[0].before and found[0].left == 0 and found[0].day == -1


def test_overlaps_stack_and_a_proposal_is_placed_like_a_task():
    driver = uuid.uuid4()
    first, second = task(0, "08:00", 90, driver), task(0, "09:00", 30, driver)
    moved = proposal(task(0, "12:00", 60), chauffeur_id=driver)
    found, _period = placements([first, second, moved], Period(MONDAY, 7, AMS))
    found[2].proposed = True

    (lane,) = fill({str(driver): Lane(str(driver), "Jan")}, found, lambda t: str(t.chauffeur_id))

    assert [p.row for p in lane.cards] == [0, 1, 0] and lane.rows == 2
    assert [p.proposed for p in lane.cards] == [False, False, True]
    assert all(p.place.startswith("wk-l") for p in lane.cards)


def test_a_fortnight_is_two_pages_of_a_week_and_positions_are_classes():
    pages = weeks_of(Period(MONDAY, 10, AMS))

    assert [(p.first, p.days) for p in pages] == [(MONDAY, 7), (date(2027, 3, 8), 3)]
    css = position_css()
    assert ".wk-l0{left:0%}" in css and ".wk-w1000{width:100%}" in css
    assert ".wk-days-14{--wk-days:14}" in css
