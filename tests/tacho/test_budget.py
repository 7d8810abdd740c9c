"""Remaining driving time now (EU 561/2006), and whether planned work still fits in it."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from tacho.scenario import START, app_segments_of, at, card_segments, end_of

from portal.tacho.rules import budget, planning_problem
from portal.tacho.segments import KAART_HANDMATIG

FRESH = ("R", "48:00")  # a weekly rest until Wednesday 00:00


def _budget(rows, shape=card_segments):
    return budget(shape(rows), now=end_of(rows))


def test_fresh_after_a_weekly_rest():
    found = _budget([FRESH])
    assert found.resterend_tot_onderbreking_min == 270
    assert found.resterend_vandaag_min == 600
    assert found.resterend_week_min == 56 * 60
    assert found.resterend_twee_weken_min == 56 * 60
    assert found.verlengingen_over == 2
    assert found.verkorte_rusten_over == 3
    # A rest running now is taken as ending now.
    assert found.volgende_dagrust_uiterlijk == at("15:00", 2)
    assert found.volgende_weekrust_uiterlijk == at("0:00", 8)


def test_after_four_hours_of_driving_half_an_hour_until_the_break():
    found = _budget([FRESH, ("D", "4:00")])
    assert found.resterend_tot_onderbreking_min == 30
    assert found.resterend_vandaag_min == 600 - 240
    assert found.resterend_week_min == 56 * 60 - 240
    assert found.volgende_dagrust_uiterlijk == at("15:00", 2)  # 24 h - 9 h after the rest


def test_card_and_app_give_the_same_budget():
    rows = [FRESH, ("D", "4:00"), ("R", "0:45"), ("D", "2:00"), ("W", "1:00")]
    assert _budget(rows) == _budget(rows, app_segments_of)


def test_a_break_of_45_minutes_resets_the_driving_period():
    found = _budget([FRESH, ("D", "4:30"), ("R", "0:45")])
    assert found.resterend_tot_onderbreking_min == 270
    found = _budget([FRESH, ("D", "2:00"), ("R", "0:15"), ("D", "1:00")])
    assert found.resterend_tot_onderbreking_min == 90  # the 15 min part alone resets nothing


def test_extension_still_available():
    ten = [("D", "4:30"), ("R", "0:45"), ("D", "4:30"), ("R", "0:45"), ("D", "1:00")]
    one = _budget([FRESH, ten, ("R", "12:30"), ("D", "2:00")])
    assert one.verlengingen_over == 1
    assert one.resterend_vandaag_min == 600 - 120
    two = _budget([FRESH, ten, ("R", "12:30"), ten, ("R", "12:30"), ("D", "2:00")])
    assert two.verlengingen_over == 0
    assert two.resterend_vandaag_min == 540 - 120


def test_the_shift_using_the_second_extension_may_run_to_ten_hours():
    ten = [("D", "4:30"), ("R", "0:45"), ("D", "4:30"), ("R", "0:45"), ("D", "1:00")]
    now = [("D", "4:30"), ("R", "0:45"), ("D", "4:30"), ("R", "0:45"), ("D", "0:30")]
    found = _budget([FRESH, ten, ("R", "12:30"), now])
    assert found.verlengingen_over == 0
    assert found.resterend_vandaag_min == 30


def test_reduced_rests_left_and_when_the_next_daily_rest_is_due():
    day = [("D", "4:30"), ("R", "0:45"), ("D", "4:30")]
    found = _budget([FRESH, day, ("R", "9:00"), ("D", "1:00")])
    assert found.verkorte_rusten_over == 2
    rest_end = at("0:00", 2) + timedelta(hours=9, minutes=45 + 9 * 60)
    assert found.volgende_dagrust_uiterlijk == rest_end + timedelta(hours=24 - 9)
    found = _budget([FRESH, [day, ("R", "9:00")] * 3, ("D", "1:00")])
    assert found.verkorte_rusten_over == 0
    rest_end = at("0:00", 2) + 3 * timedelta(hours=18, minutes=45)
    assert found.volgende_dagrust_uiterlijk == rest_end + timedelta(hours=24 - 11)


def test_unknown_time_makes_a_figure_impossible():
    found = _budget([FRESH, ("D", "2:00"), ("U", "1:00"), ("D", "1:00")])
    assert found.resterend_tot_onderbreking_min is None  # 210 if it was a break, 90 if not
    assert found.resterend_vandaag_min == 600 - 180  # the same in both readings
    assert found.resterend_week_min == 56 * 60 - 180


def test_unknown_night_makes_today_impossible():
    day = [("D", "4:30"), ("R", "0:45"), ("D", "4:30")]
    found = _budget([FRESH, day, ("U", "10:00")])
    assert found.resterend_vandaag_min is None  # 10 h if the night was rest, 1 h if not
    assert found.volgende_dagrust_uiterlijk is None
    assert found.resterend_week_min == 56 * 60 - 540


def test_time_after_the_last_segment_is_unknown():
    segments = card_segments([FRESH, ("D", "4:00")])
    found = budget(segments, now=at("5:00", 2))
    assert found.resterend_tot_onderbreking_min is None


def test_segments_after_now_are_ignored():
    segments = card_segments([FRESH, ("D", "4:00")])
    assert budget(segments, now=at("2:00", 2)).resterend_tot_onderbreking_min == 150


def test_two_week_figure_is_capped():
    # 50 h of driving last week, 35 h this week: 5 h left of the 90 h.
    last_week = []
    for length in ["7:09"] * 6 + ["7:06"]:
        half = (int(length[0]) * 60 + int(length[2:])) // 2
        total = int(length[0]) * 60 + int(length[2:])
        last_week += [("D", half), ("R", "0:45"), ("D", total - half), ("R", "11:00")]
    rows = [*last_week[:-1], ("R", "45:00")]
    rows.append(("R", int((at("6:00", 7) - end_of(rows)).total_seconds() // 60)))
    this_week = [("D", "4:30"), ("R", "0:45"), ("D", "4:15")]
    rows += [this_week, ("R", "11:00")] * 3 + [this_week]
    found = _budget(rows)
    assert found.gereden_vorige_week_min == 50 * 60
    assert found.gereden_week_min == 35 * 60
    assert found.resterend_week_min == 21 * 60
    assert found.resterend_twee_weken_min == 5 * 60
    assert found.resterend_vandaag_min == 600 - 525


def test_no_data_no_figures():
    found = budget([], now=START)
    assert found.resterend_vandaag_min is None
    assert found.planning_problem(START, 60) is None


# --- planned work ---------------------------------------------------------------------------

TEN = [("D", "4:30"), ("R", "0:45"), ("D", "4:30"), ("R", "0:45"), ("D", "1:00")]


def test_planned_work_beyond_the_remaining_driving_time():
    rows = [
        FRESH,
        TEN,
        ("R", "12:30"),
        TEN,
        ("R", "12:30"),
        ("D", "4:00"),
        ("R", "0:45"),
        ("D", "4:00"),
    ]
    now = end_of(rows)
    segments = card_segments(rows)
    assert planning_problem(segments, now=now, begin=now, duur_min=61) == "rijtijd_op"
    assert planning_problem(segments, now=now, begin=now, duur_min=60) is None
    # After a night's rest a new shift begins.
    tomorrow = now + timedelta(hours=12)
    assert planning_problem(segments, now=now, begin=tomorrow, duur_min=240) is None


def test_planned_work_inside_a_due_daily_rest():
    rows = [FRESH, ("W", "10:00")]  # since Wednesday 00:00: the rest starts by 15:00
    now = end_of(rows)
    segments = card_segments(rows)
    assert planning_problem(segments, now=now, begin=at("14:00", 2), duur_min=61) == "in_rust"
    assert planning_problem(segments, now=now, begin=at("13:00", 2), duur_min=120) is None


def test_planned_work_inside_a_due_weekly_rest():
    # Weekly rest until Monday 06:00: the next one starts by Sunday 06:00.
    day = [("D", "4:30"), ("R", "0:45"), ("D", "4:30")]
    rows = [("R", "6:00"), [day, ("R", "14:15")] * 5, day]
    now = end_of(rows)  # Saturday 15:45
    segments = card_segments(rows)
    found = budget(segments, now=now)
    assert found.volgende_weekrust_uiterlijk == at("6:00", 6)
    assert planning_problem(segments, now=now, begin=at("5:00", 6), duur_min=120) == "in_rust"
    assert planning_problem(segments, now=now, begin=at("6:00", 7), duur_min=120) is None


def test_past_work_is_not_judged():
    rows = [FRESH, ("D", "4:00")]
    now = end_of(rows)
    assert planning_problem(card_segments(rows), now=now, begin=START, duur_min=600) is None


def test_starting_at_the_last_weekly_rest_changes_no_figure():
    # Three weeks with unknown nights; the same weekly rests cut into parts under 24 h (card
    # and hand-entered) make the budget read all three weeks instead of starting at the
    # last weekly rest. Every figure must agree, at any moment.
    day = [("D", "4:30"), ("R", "0:45"), ("D", "4:00"), ("W", "0:30")]
    week = [[day, ("R", "13:00")] * 2, day, ("U", "13:00"), [day, ("R", "13:00")] * 2]
    week += [day, ("R", "40:00")]
    rows = [("R", "6:00"), week, week, week, day]
    segments = card_segments(rows)
    cut_up = []
    for s in segments:
        if s.activiteit == "rust" and s.eind - s.begin >= timedelta(hours=24):
            middle = s.begin + (s.eind - s.begin) / 2
            cut_up += [replace(s, eind=middle), replace(s, begin=middle, bron=KAART_HANDMATIG)]
        else:
            cut_up.append(s)
    moment = at("0:00", 8)
    while moment < end_of(rows):
        assert budget(segments, now=moment) == budget(cut_up, now=moment), moment
        moment += timedelta(hours=7, minutes=13)
