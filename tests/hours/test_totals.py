"""The calendar arithmetic of hours, without a database: ISO weeks, days cut at local
midnight (also when the clocks change), rounding and the cap on a running activity."""

from __future__ import annotations

import uuid
from datetime import date, timedelta

import pytest

from hours.support import AMS, at
from portal.hours import totals
from portal.hours.pages.timeline import hm
from portal.hours.totals import IsoWeek, Span


def test_iso_weeks_parse_and_name_themselves():
    assert IsoWeek.parse("2026-W47") == IsoWeek(2026, 47)
    assert IsoWeek.parse("2026-W47").monday == date(2026, 11, 16)
    assert IsoWeek.parse("2026-W53").sunday == date(2027, 1, 3)  # 2026 has 53 weeks
    assert IsoWeek.of(date(2027, 1, 1)).label == "2026-W53"
    for bad in ("2025-W53", "2026-W00", "2026-47", "1999-W10", "", "2026-W4"):
        with pytest.raises(ValueError):
            IsoWeek.parse(bad)


def test_weeks_between_cross_new_year():
    labels = [w.label for w in totals.weeks_between(date(2026, 12, 24), date(2027, 1, 12))]
    assert labels == ["2026-W52", "2026-W53", "2027-W01", "2027-W02"]


def test_pieces_cut_at_local_midnight():
    parts = list(totals.pieces(at("2026-11-17", "22:30"), at("2026-11-18", "01:15"), AMS))
    assert [(day, stop - start) for day, start, stop in parts] == [
        (date(2026, 11, 17), timedelta(minutes=90)),
        (date(2026, 11, 18), timedelta(minutes=75)),
    ]


@pytest.mark.parametrize(
    ("first", "second", "hours_first", "hours_second"),
    [
        # Summer time ends on 25 October 2026: that Sunday has 25 hours.
        (("2026-10-24", "23:00"), ("2026-10-25", "04:00"), 1, 5),
        # Summer time begins on 29 March 2026: that Sunday has 23 hours.
        (("2026-03-28", "23:00"), ("2026-03-29", "04:00"), 1, 3),
    ],
)
def test_days_follow_the_clock_change(first, second, hours_first, hours_second):
    parts = list(totals.pieces(at(*first), at(*second), AMS))
    assert [(stop - start) for _, start, stop in parts] == [
        timedelta(hours=hours_first),
        timedelta(hours=hours_second),
    ]
    whole_day = totals.day_start(date(2026, 10, 26), AMS) - totals.day_start(
        date(2026, 10, 25), AMS
    )
    assert whole_day == timedelta(hours=25)


def test_a_running_activity_counts_to_now_but_at_most_a_day_after_its_day_began():
    driver = uuid.uuid4()
    began = at("2026-11-16", "06:00")
    span = Span(driver, "rijden", began + timedelta(hours=1), None, began)
    soon = totals.summarize(
        [span],
        zone=AMS,
        start=date(2026, 11, 16),
        end=date(2026, 11, 22),
        now=began + timedelta(hours=3),
    )[driver]
    assert soon.totaal.minuten["rijden"] == 120 and soon.lopend
    forgotten = totals.summarize(
        [span],
        zone=AMS,
        start=date(2026, 11, 16),
        end=date(2026, 11, 22),
        now=began + timedelta(days=3),
    )[driver]
    assert forgotten.totaal.minuten["rijden"] == 23 * 60


def test_seconds_are_summed_per_day_then_rounded_and_weeks_add_up_days():
    driver = uuid.uuid4()
    began = at("2026-11-16", "06:00")
    spans = [
        Span(driver, "laden", began, began + timedelta(seconds=89), began),  # 1:29
        Span(
            driver,
            "laden",
            began + timedelta(minutes=5),
            began + timedelta(minutes=5, seconds=61),
            began,
        ),
        Span(
            driver,
            "rijden",
            began + timedelta(days=1),
            began + timedelta(days=1, seconds=29),
            began,
        ),
    ]
    hours = totals.summarize(
        spans, zone=AMS, start=date(2026, 11, 16), end=date(2026, 11, 22), now=began
    )[driver]
    assert hours.per_dag[date(2026, 11, 16)].minuten["laden"] == 3  # 150 s
    assert date(2026, 11, 17) not in hours.per_dag  # 29 s rounds to nothing
    assert hours.per_week[IsoWeek(2026, 47)].totaal == hours.totaal.totaal == 3
    assert totals.minutes(30) == 1 and totals.minutes(29.9) == 0


def test_working_time_leaves_out_breaks_and_availability():
    t = totals.Totals()
    t.minuten.update(rijden=300, laden=60, pauze=45, beschikbaarheid=30, wachten=15)
    assert t.werktijd == 375
    assert t.totaal == 450


def test_durations_read_as_hours_and_minutes():
    assert hm(0) == "0:00"
    assert hm(510) == "8:30"
    assert hm(6005) == "100:05"


def test_an_activity_ending_or_beginning_at_local_midnight_belongs_to_one_day():
    driver = uuid.uuid4()
    began = at("2026-11-17", "20:00")
    spans = [
        Span(driver, "rijden", at("2026-11-17", "23:00"), at("2026-11-18", "00:00"), began),
        Span(driver, "lossen", at("2026-11-18", "00:00"), at("2026-11-18", "01:00"), began),
    ]
    hours = totals.summarize(
        spans, zone=AMS, start=date(2026, 11, 16), end=date(2026, 11, 22), now=began
    )[driver]
    assert {day: t.totaal for day, t in hours.per_dag.items()} == {
        date(2026, 11, 17): 60,
        date(2026, 11, 18): 60,
    }
    assert hours.per_dag[date(2026, 11, 17)].minuten["rijden"] == 60
    assert hours.per_dag[date(2026, 11, 18)].minuten["lossen"] == 60
    # 00:00 in Amsterdam is 23:00 UTC the day before: the carrier's calendar decides.
    assert at("2026-11-18", "00:00").hour == 23
