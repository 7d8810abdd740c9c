"""EU 561/2006 (as amended by 2020/1054): scenarios written from the regulation's text, each
checked on card-shaped and on app-shaped input, which must give the same findings."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tacho.scenario import START, app_days, app_segments_of, at, card_segments, end_of

from portal.tacho import rules
from portal.tacho.rules import AppDay, app_segments, budget, check, combine
from portal.tacho.segments import APP, KAART, ONBEKEND, RIJDEN, RUST, WERK, Segment


def dag(rijden: str, pauze: str = "0:45") -> list:
    """A shift of `rijden` driving in stretches of 4 h 30 with a break between them."""
    left = rules_minutes(rijden)
    rows = []
    while left > 0:
        part = min(left, 270)
        rows.append(("D", part))
        left -= part
        if left > 0:
            rows.append(("R", pauze))
    return rows


def rules_minutes(value: str) -> int:
    hours, _, mins = value.partition(":")
    return int(hours) * 60 + int(mins or 0)


def d(length: str) -> tuple[str, str]:
    return ("D", length)


def r(length: str) -> tuple[str, str]:
    return ("R", length)


def w(length: str) -> tuple[str, str]:
    return ("W", length)


def a(length: str) -> tuple[str, str]:
    return ("A", length)


def u(length: str) -> tuple[str, str]:
    return ("U", length)


def y(length: str) -> tuple[str, str]:
    return ("Y", length)


L = ("R", "6:00")  # the end of a rest at Monday 06:00: the start of the data
DAY9 = dag("9:00")  # 9 h of driving, 9 h 45 on duty
NIGHT = ("R", "14:15")  # after DAY9 from 06:00, until 06:00 the next day


DAY7 = dag("7:00")  # 7 h 45 on duty
NIGHT7 = ("R", "16:15")  # after DAY7 from 06:00, until 06:00 the next day
DAY5 = dag("5:00")  # 5 h 45 on duty; with 18 h 15 of rest, a day


def week_regular_45() -> list:
    """Monday 06:00 to the next Monday 06:00: five days, a Saturday morning, and a weekly
    rest of exactly 45 h from Saturday 09:00."""
    return [[DAY7, NIGHT7] * 4, DAY7, ("R", "11:00"), ("W", "8:15"), ("R", "45:00")]


def week_regular_long() -> list:
    """Monday 06:00 to the next Monday 06:00 with a weekly rest of 88 h 15 from Thursday:
    45 h and the 21 h owed for a reduced one, and more."""
    return [[DAY7, NIGHT7] * 3, DAY7, ("R", "88:15")]


def week_reduced() -> list:
    """Six days, a reduced weekly rest of 24 h from Saturday 13:45 (21 h owed), two hours of
    work on Sunday."""
    return [[DAY7, NIGHT7] * 5, DAY7, ("R", "24:00"), ("W", "2:00"), ("R", "14:15")]


def seven_shifts(*lengths: str) -> list:
    """From Monday 00:00: seven shifts of 8 h driving (56 h) or the `lengths` given, in two
    halves with a 45 min break, with 11 h rests, then a 45 h weekly rest on Saturday."""
    lengths = lengths or ("8:00",) * 7
    rows = []
    for length in lengths:
        total = rules_minutes(length)
        rows += [[("D", total // 2), ("R", "0:45"), ("D", total - total // 2)], ("R", "11:00")]
    rows[-1] = ("R", "45:00")
    return rows


MULTI = [("C", "4:30"), ("Y", "4:30"), ("C", "4:30"), ("Y", "6:30")]  # 20 h duty, crew
SOLO = [("D", "4:30"), ("A", "4:30"), ("D", "4:30"), ("A", "6:30")]  # the same, one driver

OV, INC = rules.OVERTREDING, rules.ONVOLLEDIG
MI, SI, VSI, MSI = rules.LICHT, rules.ERNSTIG, rules.ZEER_ERNSTIG, rules.ZEER_ERNSTIG_MAX

# (id, rows, expected findings as (soort, regel, ernst, overschrijding_min), card only)
SCENARIOS = [
    # Art. 7: a break of 45 min after 4 h 30 of driving, or 15 min then 30 min.
    ("art7_exact_4h30_then_45min", [L, d("4:30"), r("0:45"), d("4:30"), r("15:00")], []),
    ("art7_one_minute_more", [L, d("4:31"), r("0:45"), d("4:29"), r("15:00")],
     [(OV, "onderbreking", MI, 1)]),
    ("art7_break_44_min_is_short", [L, d("4:30"), r("0:44"), d("1:00"), r("15:00")],
     [(OV, "onderbreking", SI, 60)]),
    ("art7_split_15_then_30",
     [L, d("2:00"), r("0:15"), d("2:30"), r("0:30"), d("4:00"), r("15:00")], []),
    ("art7_split_30_then_15_wrong_order",
     [L, d("2:00"), r("0:30"), d("2:30"), r("0:15"), d("0:30"), r("15:00")],
     [(OV, "onderbreking", SI, 30)]),
    ("art7_14_min_does_not_count",
     [L, d("2:00"), r("0:14"), d("2:30"), r("0:30"), d("1:00"), r("15:00")],
     [(OV, "onderbreking", SI, 60)]),
    ("art7_availability_is_no_break", [L, d("4:00"), a("1:00"), d("1:00"), r("15:00")],
     [(OV, "onderbreking", SI, 30)]),
    ("art7_4h59_minor", [L, d("4:59"), r("15:00")], [(OV, "onderbreking", MI, 29)]),
    ("art7_5h_serious", [L, d("5:00"), r("15:00")], [(OV, "onderbreking", SI, 30)]),
    ("art7_6h_very_serious", [L, d("6:00"), r("15:00")], [(OV, "onderbreking", VSI, 90)]),
    # Art. 6(1): 9 h a shift, 10 h at most twice a fixed week.
    ("art6_1_exact_9h", [L, DAY9, r("15:00")], []),
    ("art6_1_10h_twice",
     [L, dag("10:00"), r("12:30"), dag("10:00"), r("12:30"), DAY9, r("15:00")], []),
    ("art6_1_third_extension_9h30",
     [L, dag("10:00"), r("12:30"), dag("10:00"), r("12:30"), dag("9:30"), r("15:00")],
     [(OV, "verlengde_rijtijd", MI, 30)]),
    ("art6_1_third_extension_10h",
     [L, dag("10:00"), r("12:30"), dag("10:00"), r("12:30"), dag("10:00"), r("15:00")],
     [(OV, "verlengde_rijtijd", SI, 60)]),
    ("art6_1_extensions_start_again_on_monday",
     [r("78:00"), dag("10:00"), r("12:30"), dag("10:00"), r("60:30"), dag("10:00"), r("15:00")],
     []),
    ("art6_1_10h01_minor", [L, dag("10:01"), r("15:00")], [(OV, "dagelijkse_rijtijd", MI, 1)]),
    ("art6_1_11h_serious", [L, dag("11:00"), r("15:00")], [(OV, "dagelijkse_rijtijd", SI, 60)]),
    ("art6_1_15h_most_serious", [L, dag("15:00"), r("15:00")],
     [(OV, "dagelijkse_rijtijd", MSI, 300), (OV, "dagelijkse_rust", VSI, 135)]),
    # Art. 8(2), 8(4), 4(g): daily rest 11 h, 9 h at most three times, 3 h + 9 h.
    ("art8_2_exact_11h_in_window_four_times",
     [L, [w("3:15"), DAY9, r("11:00")] * 4, w("3:15"), DAY9, r("45:00")], []),
    ("art8_4_10h59_four_times", [L, [w("3:16"), DAY9, r("10:59")] * 4, w("3:16"), DAY9, r("45:00")],
     [(OV, "verkorte_rust", MI, 1)]),
    ("art8_4_three_reduced_allowed",
     [L, [DAY9, r("9:00")] * 3, DAY9, r("11:00"), DAY9, r("45:00")], []),
    ("art8_4_fourth_reduced", [L, [DAY9, r("9:00")] * 4, DAY9, r("45:00")],
     [(OV, "verkorte_rust", SI, 120)]),
    ("art8_2_only_the_part_in_24h_counts",
     [L, [w("5:15"), DAY9, r("11:00")] * 4, w("5:15"), DAY9, r("45:00")],
     [(OV, "verkorte_rust", SI, 120)]),
    ("art8_2_8h59_minor", [L, DAY9, r("8:59"), DAY9, r("15:00")], [(OV, "dagelijkse_rust", MI, 1)]),
    ("art8_2_8h_minor", [L, DAY9, r("8:00"), DAY9, r("15:00")], [(OV, "dagelijkse_rust", MI, 60)]),
    ("art8_2_7h59_serious", [L, DAY9, r("7:59"), DAY9, r("15:00")],
     [(OV, "dagelijkse_rust", SI, 61)]),
    ("art8_2_6h59_very_serious", [L, DAY9, r("6:59"), DAY9, r("15:00")],
     [(OV, "dagelijkse_rust", VSI, 121)]),
    ("art4g_split_3_then_9_is_regular",
     [L, d("4:00"), r("3:00"), d("4:00"), r("9:00"), [DAY9, r("9:00")] * 3, DAY9, r("45:00")],
     []),
    ("art4g_split_9_then_3_is_reduced",
     [L, [DAY9, r("9:00")] * 3, d("4:00"), r("9:00"), d("4:00"), r("3:00"), d("4:00"),
      r("45:00")],
     [(OV, "verkorte_rust", SI, 120)]),
    ("art4g_split_3_then_8", [L, d("4:00"), r("3:00"), d("4:00"), r("8:00"), DAY9, r("15:00")],
     [(OV, "dagelijkse_rust", MI, 60)]),
    # Art. 8(5): multi-manning, 9 h of rest within 30 h (card only: the app has no crew).
    ("art8_5_multi_manning_9h_within_30h", [L, MULTI, r("9:00"), DAY9, r("15:00")], [], True),
    ("art8_5_multi_manning_8h_in_window", [L, MULTI, y("2:00"), r("9:00"), DAY9, r("15:00")],
     [(OV, "dagelijkse_rust", MI, 60)], True),
    ("art8_5_same_day_alone", [L, SOLO, r("9:00"), DAY9, r("15:00")],
     [(OV, "onderbreking", VSI, 270), (OV, "dagelijkse_rust", VSI, 300)]),
    # Art. 6(2), 6(3): 56 h a fixed week, 90 h in two consecutive weeks.
    ("art6_2_exact_56h", [seven_shifts()], []),
    ("art6_2_56h01_minor", [seven_shifts("8:01", *["8:00"] * 6)],
     [(OV, "wekelijkse_rijtijd", MI, 1)]),
    ("art6_2_60h_serious", [seven_shifts("8:36", *["8:34"] * 6)],
     [(OV, "wekelijkse_rijtijd", SI, 240)]),
    ("art6_3_exact_90h", [seven_shifts(), [dag("8:30"), r("11:00")] * 4, r("4:00")], []),
    ("art6_3_90h01_minor",
     [seven_shifts(), [dag("8:30"), r("11:00")] * 3, dag("8:31"), r("15:00")],
     [(OV, "twee_weken_rijtijd", MI, 1)]),
    # Art. 8(6): a weekly rest at most 6 x 24 h after the previous, two a fortnight (one
    # regular), a reduction compensated before the end of the third week after.
    ("art8_6_weekly_rest_exactly_after_6x24h", [[DAY9, r("17:06")] * 5, DAY9, r("45:00")], []),
    ("art8_6_weekly_rest_one_minute_late",
     [[DAY9, r("17:06")] * 4, DAY9, r("17:07"), DAY9, r("45:00")],
     [(OV, "wekelijkse_rust", MI, 1)]),
    ("art8_6_reduced_weekly_rest_compensated",
     [L, week_regular_45(), week_reduced(), week_regular_45(), week_regular_long(),
      week_regular_45()], []),
    ("art8_6_reduced_weekly_rest_not_compensated",
     [L, week_regular_45(), week_reduced(), week_regular_45(), week_regular_45(),
      week_regular_45()],
     [(OV, "wekelijkse_rust", SI, 1260)]),
    ("art8_6_two_reduced_weekly_rests_in_a_row",
     [L, week_regular_45(), week_regular_45(), week_reduced(), week_reduced(), week_regular_45()],
     [(OV, "wekelijkse_rust", VSI, 1260)]),
    ("art8_6_week_without_weekly_rest",
     [L, week_regular_45(), week_regular_45(), [DAY5, r("18:15")] * 6, [DAY5, r("11:00")] * 3,
      DAY5, r("45:00"), week_regular_45(), week_regular_45()],
     [(OV, "wekelijkse_rust", VSI, 3360), (OV, "wekelijkse_rust", VSI, 345)]),
    ("art8_9_leave_counts_in_every_week_it_covers",
     [L, week_regular_45(), [DAY7, NIGHT7] * 4, DAY7, r("480:15"), week_regular_45(),
      week_regular_45()], []),
    # Unknown time: never passes a check, never fails one.
    ("unknown_break_incomplete", [L, d("4:00"), u("0:45"), d("1:00"), r("15:00")],
     [(INC, "onderbreking", None, None)]),
    ("unknown_still_an_infringement", [L, d("5:00"), u("0:45"), d("1:00"), r("15:00")],
     [(OV, "onderbreking", SI, 30)]),
    ("unknown_daily_rest_incomplete", [L, DAY9, u("11:00"), DAY9, r("15:00")],
     [(INC, "dagelijkse_rust", None, None), (INC, "onderbreking", None, None)]),
    ("unknown_short_gap_changes_nothing",
     [L, d("2:00"), u("0:10"), d("2:00"), r("0:45"), d("4:00"), r("15:00")], []),
]  # fmt: skip


def _summary(findings):
    return sorted((f.soort, f.regel, f.ernst, f.overschrijding_min) for f in findings)


def _comparable(findings):
    return [
        (f.soort, f.regel, f.artikel, f.ernst, f.begin, f.eind, f.overschrijding_min,
         f.gemeten_min, f.grens_min)
        for f in findings
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("rows", "expected", "card_only"),
    [pytest.param(s[1], s[2], len(s) > 3, id=s[0]) for s in SCENARIOS],
)
def test_scenario(rows, expected, card_only):
    card = check(card_segments(rows))
    assert _summary(card) == sorted(expected, key=lambda x: (x[0], x[1], x[2] or "", x[3] or 0))
    assert all(f.bron == KAART for f in card)
    if card_only:
        return
    app = check(app_segments_of(rows))
    assert _comparable(app) == _comparable(card)
    assert all(f.bron == APP for f in app)


LENGTHS = [5, 14, 15, 30, 44, 45, 60, 120, 180, 270, 271, 300]
REST_LENGTHS = [*LENGTHS, 540, 600, 659, 660, 1440, 2699, 2700]
BLOCK = st.one_of(
    st.tuples(st.sampled_from("DDWAU"), st.sampled_from(LENGTHS)),
    st.tuples(st.just("R"), st.sampled_from(REST_LENGTHS)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(BLOCK, min_size=1, max_size=40).filter(lambda rows: any(k != "R" for k, _ in rows)))
def test_card_and_app_shapes_agree_on_any_scenario(rows):
    card, app = card_segments(rows), app_segments_of(rows)
    assert _comparable(check(app)) == _comparable(check(card))
    assert budget(app, now=end_of(rows)) == budget(card, now=end_of(rows))


def test_finding_names_the_offending_period_and_figures():
    rows = [L, ("D", "4:31"), ("R", "0:45"), ("D", "4:29"), ("R", "15:00")]
    [found] = check(card_segments(rows))
    assert found.artikel == "561/2006 art. 7"
    assert (found.begin, found.eind) == (at("6:00"), at("10:31"))
    assert (found.gemeten_min, found.grens_min) == (271, 270)
    assert found.key == f"onderbreking:{at('6:00').isoformat()}"


def test_daily_driving_period_is_the_shift_not_the_day():
    # 14:00 Monday to 01:31 Tuesday: one shift over midnight, 10 h 01 of driving.
    rows = [("R", "14:00"), dag("10:01"), ("R", "15:00")]
    found = check(card_segments(rows))
    assert [(f.regel, f.begin, f.overschrijding_min) for f in found] == [
        ("dagelijkse_rijtijd", at("14:00"), 1)
    ]


def test_weekly_rest_findings_name_article_8_6():
    rows = [[DAY9, ("R", "17:06")] * 4, DAY9, ("R", "17:07"), DAY9, ("R", "45:00")]
    [found] = check(card_segments(rows))
    assert found.artikel == "561/2006 art. 8 lid 6"
    assert found.begin == START + timedelta(hours=144)
    assert (found.gemeten_min, found.grens_min) == (144 * 60 + 1, 144 * 60)


def test_window_van_tot_keeps_findings_that_overlap_it():
    rows = [L, ("D", "4:31"), ("R", "0:45"), ("D", "4:29"), ("R", "15:00")]
    segments = card_segments(rows)
    assert check(segments, van=at("10:00"), tot=at("11:00"))
    assert not check(segments, van=at("10:31"))
    assert not check(segments, tot=at("6:00"))


def test_rest_due_after_the_end_of_the_data_is_no_finding():
    # Twenty hours of duty so far: the daily rest is not due yet, nor the weekly rest.
    rows = [L, ("D", "4:30"), ("R", "0:45"), ("D", "4:30"), ("W", "5:00")]
    assert check(card_segments(rows)) == []


def test_limit_passed_before_the_end_of_the_data_is_a_finding():
    rows = [L, ("D", "4:45")]
    assert _summary(check(card_segments(rows))) == [(OV, "onderbreking", MI, 15)]


def test_gaps_between_segments_are_unknown():
    first = card_segments([L, ("D", "4:00")])
    later = [
        Segment(at("10:45"), at("11:45"), RIJDEN, KAART),
        Segment(at("11:45"), at("23:00"), RUST, KAART),
    ]
    assert _summary(check(first + later)) == [(INC, "onderbreking", None, None)]


def test_app_finding_is_marked_app_when_any_app_time_is_in_it():
    card = card_segments([L, ("D", "3:00")])
    app = [
        Segment(at("9:00"), at("11:00"), RIJDEN, APP),
        Segment(at("11:00"), at("23:00"), RUST, APP),
    ]
    [found] = check(card + app)
    assert (found.regel, found.bron) == ("onderbreking", "app")


@pytest.mark.parametrize(
    ("row", "value", "klass"),
    [
        ("B1", 9 * 60, None), ("B1", 9 * 60 + 1, MI), ("B1", 10 * 60, SI), ("B1", 11 * 60, VSI),
        ("B1", 13 * 60 + 29, VSI), ("B1", 13 * 60 + 30, MSI),
        ("B2", 10 * 60, None), ("B2", 10 * 60 + 1, MI), ("B2", 11 * 60, SI), ("B2", 12 * 60, VSI),
        ("B2", 15 * 60, MSI),
        ("B3", 56 * 60, None), ("B3", 56 * 60 + 1, MI), ("B3", 60 * 60, SI), ("B3", 65 * 60, VSI),
        ("B3", 70 * 60, MSI),
        ("B4", 90 * 60, None), ("B4", 90 * 60 + 1, MI), ("B4", 100 * 60, SI), ("B4", 105 * 60, VSI),
        ("B4", 112 * 60 + 30, MSI),
        ("C1", 270, None), ("C1", 271, MI), ("C1", 299, MI), ("C1", 300, SI), ("C1", 360, VSI),
        ("D1", 11 * 60, None), ("D1", 10 * 60, MI), ("D1", 9 * 60 + 59, SI),
        ("D1", 8 * 60 + 30, SI),
        ("D1", 8 * 60 + 29, VSI),
        ("D2", 9 * 60, None), ("D2", 8 * 60, MI), ("D2", 7 * 60 + 59, SI), ("D2", 7 * 60, SI),
        ("D2", 6 * 60 + 59, VSI),
        ("D4", 8 * 60 + 59, MI), ("D4", 6 * 60 + 59, VSI),
        ("D5", 24 * 60, None), ("D5", 22 * 60, MI), ("D5", 21 * 60 + 59, SI),
        ("D5", 19 * 60 + 59, VSI),
        ("D6", 45 * 60, None), ("D6", 42 * 60, MI), ("D6", 41 * 60 + 59, SI), ("D6", 36 * 60, SI),
        ("D6", 35 * 60 + 59, VSI),
        ("D7", 0, None), ("D7", 1, MI), ("D7", 180, MI), ("D7", 181, SI), ("D7", 720, VSI),
    ],
)  # fmt: skip
def test_severity_classes_at_their_thresholds(row, value, klass):
    assert rules.severity(row, value) == klass


# --- app hours as segments ------------------------------------------------------------------


def test_app_days_become_segments():
    day = AppDay(
        at("6:00"),
        at("16:00"),
        [
            ("laden", at("6:00"), at("7:00")),
            ("rijden", at("7:00"), at("11:00")),
            ("pauze", at("11:00"), at("11:45")),
            ("beschikbaarheid", at("11:45"), at("12:00")),
            ("rijden", at("13:00"), at("16:00")),
        ],
    )
    next_day = AppDay(at("6:00", 1), None, [("wachten", at("6:00", 1), None)])
    out = app_segments([day, next_day], now=at("8:00", 1))
    assert [(s.begin, s.eind, s.activiteit) for s in out] == [
        (at("6:00"), at("7:00"), WERK),
        (at("7:00"), at("11:00"), RIJDEN),
        (at("11:00"), at("11:45"), RUST),
        (at("11:45"), at("12:00"), "beschikbaar"),
        (at("12:00"), at("13:00"), ONBEKEND),  # nothing recorded inside the work day
        (at("13:00"), at("16:00"), RIJDEN),
        (at("16:00"), at("6:00", 1), RUST),  # between work days
        (at("6:00", 1), at("8:00", 1), WERK),  # running until now
    ]
    assert {s.bron for s in out} == {APP}


def test_app_rest_after_the_last_work_day_runs_until_now():
    day = AppDay(at("6:00"), at("8:00"), [("rijden", at("6:00"), at("8:00"))])
    out = app_segments([day], now=at("12:00"))
    assert [(s.eind, s.activiteit) for s in out] == [(at("8:00"), RIJDEN), (at("12:00"), RUST)]


def test_app_scenario_helper_matches_its_rows():
    rows = [L, ("D", "2:00"), ("U", "0:30"), ("R", "0:30"), ("D", "1:00"), ("R", "12:00")]
    days = app_days(rows)
    assert len(days) == 1
    assert end_of(rows) == at("22:00")


# --- card and app together ------------------------------------------------------------------


def test_combine_takes_the_card_until_its_download_and_the_app_after():
    card = [
        Segment(at("0:00"), at("10:00"), RUST, KAART),
        Segment(at("10:00"), at("14:00"), RIJDEN, KAART),
    ]
    app = [
        Segment(at("8:00"), at("12:00"), WERK, APP),
        Segment(at("12:00"), at("18:00"), RIJDEN, APP),
    ]
    out, bron = combine(card, at("12:00"), app)
    assert bron == "kaart+app"
    assert [(s.begin, s.eind, s.activiteit, s.bron) for s in out] == [
        (at("0:00"), at("10:00"), RUST, KAART),
        (at("10:00"), at("12:00"), RIJDEN, KAART),
        (at("12:00"), at("18:00"), RIJDEN, APP),
    ]


def test_combine_fills_days_without_card_data_from_the_app():
    card = [Segment(at("0:00", 1), at("0:00", 2), RUST, KAART)]
    app = [
        Segment(at("6:00"), at("9:00"), RIJDEN, APP),
        Segment(at("6:00", 1), at("9:00", 1), RIJDEN, APP),
    ]
    out, bron = combine(card, at("0:00", 2), app)
    assert bron == "kaart+app"
    assert [(s.begin, s.bron) for s in out] == [(at("6:00"), APP), (at("0:00", 1), KAART)]


def test_combine_labels_one_source():
    card = [Segment(at("0:00"), at("10:00"), RUST, KAART)]
    assert combine(card, at("10:00"), [])[1] == "kaart"
    app = [Segment(at("10:00"), at("12:00"), RIJDEN, APP)]
    assert combine([], None, app) == (app, "app")
