"""A driver's week as payable hours under the CAO Beroepsgoederenvervoer: table tests from
the CAO's examples and the rules of portal/hours/cao/week.py, and one property."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from portal.hours.cao import (
    Activity,
    Allowances,
    CaoError,
    DayRate,
    FixedAmount,
    HourRate,
    Window,
    WorkDay,
    cao_preset,
    compute_week,
    feestdagen,
)

AMS = ZoneInfo("Europe/Amsterdam")
MA_VR = (1, 2, 3, 4, 5)
REGELS = replace(
    cao_preset(date(2025, 1, 6)),
    vensters=(
        Window("nacht", MA_VR, "00:00", "06:00", 150),
        Window("dag", MA_VR, "06:00", "19:00", 100),
        Window("avond", MA_VR, "19:00", "24:00", 125),
    ),
)


def t(value: str) -> datetime:
    """'2026-11-16 06:00' in Amsterdam."""
    return datetime.fromisoformat(value).replace(tzinfo=AMS)


def werkdag(begin: str, einde: str, *activiteiten: tuple[str, str, str]) -> WorkDay:
    """A work day; without activities, one drive over all of it."""
    acts = activiteiten or (("rijden", begin, einde),)
    return WorkDay(t(begin), t(einde), tuple(Activity(s, t(a), t(b)) for s, a, b in acts))


def shift(
    day: str, van: str, tot: str, pauze: tuple[str, str] | None = ("12:00", "12:30")
) -> WorkDay:
    """A day shift driving from van to tot, with a break unless pauze is None."""
    if pauze is None:
        return werkdag(f"{day} {van}", f"{day} {tot}")
    return werkdag(
        f"{day} {van}",
        f"{day} {tot}",
        ("rijden", f"{day} {van}", f"{day} {pauze[0]}"),
        ("pauze", f"{day} {pauze[0]}", f"{day} {pauze[1]}"),
        ("rijden", f"{day} {pauze[1]}", f"{day} {tot}"),
    )


def week(jaar: int, nummer: int, work_days, regels=REGELS, **kwargs):
    return compute_week(jaar=jaar, week=nummer, work_days=work_days, rule_sets=[regels], **kwargs)


def per_dag(result) -> dict[date, object]:
    return {d.datum: d for d in result.per_dag}


def categories(uren) -> tuple[int, int, int, int]:
    return uren.normaal_min, uren.overuren_130_min, uren.zaterdag_150_min, uren.zondag_200_min


# --- hours --------------------------------------------------------------------------------


def test_35_then_45_hours_is_made_up_once_and_5_hours_overtime_never_netted():
    """The CAO's example: 35 hours in one week, 45 in the next (contract 40)."""
    first = week(2026, 47, [shift(f"2026-11-{d}", "08:00", "15:30") for d in range(16, 21)])
    second = week(2026, 48, [shift(f"2026-11-{d}", "08:00", "17:30") for d in range(23, 28)])
    assert first.totaal.gewerkt_min == 35 * 60
    assert categories(first.totaal) == (35 * 60, 0, 0, 0)
    assert first.totaal.aanvulling_min == 5 * 60
    assert second.totaal.gewerkt_min == 45 * 60
    assert categories(second.totaal) == (40 * 60, 5 * 60, 0, 0)
    assert second.totaal.aanvulling_min == 0
    assert second.totaal.boven_contract.min == 5 * 60
    # Overtime is the last minutes of the week: Friday after its first 4 hours.
    friday = per_dag(second)[date(2026, 11, 27)]
    assert (friday.normaal_min, friday.overuren_130_min) == (4 * 60, 5 * 60)
    assert all(d.overuren_130_min == 0 for d in second.per_dag[:4])


def test_contract_hours_per_driver():
    result = week(2026, 48, [shift(f"2026-11-{d}", "08:00", "15:30") for d in range(23, 28)],
                  contracturen=Decimal(32))  # fmt: skip
    assert (result.contract_min, result.totaal.overuren_130_min) == (32 * 60, 3 * 60)
    with pytest.raises(CaoError) as caught:
        week(2026, 48, [], contracturen=Decimal(-4))
    assert caught.value.code == "contracturen_ongeldig"


def test_saturday_is_150_within_and_beyond_the_contract():
    full = [shift(f"2026-11-{d}", "08:00", "16:30") for d in range(16, 21)]
    saturday = shift("2026-11-21", "07:00", "11:00", pauze=None)
    result = week(2026, 47, [*full, saturday])
    day = per_dag(result)[date(2026, 11, 21)]
    assert categories(day) == (0, 0, 240, 0)
    assert categories(result.totaal) == (2400, 0, 240, 0)
    assert vars(result.totaal.boven_contract) == {
        "min": 240,
        "zaterdag_150_min": 240,
        "zondag_200_min": 0,
    }
    # A short week: Saturday hours fill the contract, still at 150; the rest is made up.
    short = week(2026, 47, [*full[:4], saturday])
    assert categories(short.totaal) == (1920, 0, 240, 0)
    assert short.totaal.boven_contract.min == 0
    assert short.totaal.aanvulling_min == 240


def test_sunday_is_200():
    result = week(2026, 47, [shift("2026-11-22", "06:00", "12:00", pauze=None)])
    assert categories(per_dag(result)[date(2026, 11, 22)]) == (0, 0, 0, 360)


@pytest.mark.parametrize(
    ("jaar", "nummer", "day", "naam"),
    [
        (2026, 18, "2026-04-27", "Koningsdag"),  # a Monday
        (2026, 52, "2026-12-26", "Tweede kerstdag"),  # a Saturday: 200 beats 150
        (2025, 19, "2025-05-05", "Bevrijdingsdag"),  # a lustrum year
    ],
)
def test_public_holidays_are_200(jaar, nummer, day, naam):
    result = week(jaar, nummer, [shift(day, "08:00", "16:30")])
    found = per_dag(result)[date.fromisoformat(day)]
    assert found.feestdag == naam
    assert categories(found) == (0, 0, 0, 480)


def test_liberation_day_2026_is_a_working_day_unless_the_carrier_says_so():
    result = week(2026, 19, [shift("2026-05-05", "08:00", "16:30")])
    day = per_dag(result)[date(2026, 5, 5)]
    assert (day.feestdag, categories(day)) == (None, (480, 0, 0, 0))
    yearly = replace(REGELS, feestdagen=(*REGELS.feestdagen, "bevrijdingsdag"))
    day = per_dag(week(2026, 19, [shift("2026-05-05", "08:00", "16:30")], yearly))[date(2026, 5, 5)]
    assert categories(day) == (0, 0, 0, 480)
    extra = replace(REGELS, extra_feestdagen=(date(2026, 5, 6),))
    day = per_dag(week(2026, 19, [shift("2026-05-06", "08:00", "16:30")], extra))[date(2026, 5, 6)]
    assert (day.feestdag, day.zondag_200_min) == ("Extra feestdag", 480)


def test_irregular_minutes_within_the_contract_are_normal_with_their_window():
    result = week(2026, 47, [shift("2026-11-16", "04:00", "21:00", ("10:00", "10:30"))])
    day = per_dag(result)[date(2026, 11, 16)]
    assert categories(day) == (990, 0, 0, 0)
    assert [vars(o) for o in day.onregelmatig] == [
        {"venster": "nacht", "procent": 150, "min": 120, "boven_contract_min": 0},
        {"venster": "avond", "procent": 125, "min": 120, "boven_contract_min": 0},
    ]
    # The week lists every irregular window of the rule set, also without minutes.
    assert [(o.venster, o.min) for o in result.totaal.onregelmatig] == [
        ("nacht", 120),
        ("avond", 120),
    ]


@pytest.mark.parametrize(
    ("avond", "samenloop", "overuren", "onregelmatig"),
    [
        (150, "hoogste", 120, 180),  # the window pays more than overtime: the window
        (125, "hoogste", 300, 0),  # overtime pays more: overtime, no surcharge on top
        (130, "hoogste", 300, 0),  # a tie goes to overtime
        (125, "onregelmatig", 120, 180),  # the carrier's choice: the window always
    ],
)
def test_overtime_and_an_irregular_window_never_both(avond, samenloop, overuren, onregelmatig):
    """Mon-Thu fill the contract; Friday 17:00-22:00 is all beyond it, 19:00-22:00 also in
    the evening window."""
    regels = replace(
        REGELS,
        samenloop=samenloop,
        vensters=(*REGELS.vensters[:2], Window("avond", MA_VR, "19:00", "24:00", avond)),
    )
    days = [shift(f"2026-11-{d}", "07:30", "18:00") for d in range(16, 20)]  # 4 x 10 h
    friday = werkdag("2026-11-20 17:00", "2026-11-20 22:00")
    result = week(2026, 47, [*days, friday], regels)
    day = per_dag(result)[date(2026, 11, 20)]
    assert day.gewerkt_min == 300
    assert day.overuren_130_min == overuren
    # A window minute beyond the contract is paid at the hourly wage plus the window's
    # surcharge: meeruren, never normaal (those are the contract's own minutes).
    assert (day.normaal_min, day.meeruren_min) == (0, onregelmatig)
    assert sum(o.boven_contract_min for o in day.onregelmatig) == onregelmatig
    assert sum(o.min for o in day.onregelmatig) == onregelmatig
    assert day.boven_contract.min == 300


def test_breaks_are_unpaid_and_availability_is_paid_by_default():
    day = werkdag(
        "2026-11-16 08:00",
        "2026-11-16 17:00",
        ("rijden", "2026-11-16 08:00", "2026-11-16 12:00"),
        ("pauze", "2026-11-16 12:00", "2026-11-16 12:45"),
        ("beschikbaarheid", "2026-11-16 12:45", "2026-11-16 13:45"),
        ("laden", "2026-11-16 13:45", "2026-11-16 16:30"),
        # 16:30-17:00 nothing recorded: not paid
    )
    found = per_dag(week(2026, 47, [day]))[date(2026, 11, 16)]
    assert (found.gewerkt_min, found.onbetaald_min, found.afwezig_min) == (465, 45, 540)
    unpaid = replace(REGELS, betaalde_soorten=("rijden", "laden", "lossen", "wachten"))
    found = per_dag(week(2026, 47, [day], unpaid))[date(2026, 11, 16)]
    assert (found.gewerkt_min, found.onbetaald_min) == (405, 105)


def test_times_are_rounded_to_the_minute_half_up():
    day = WorkDay(
        t("2026-11-16 08:00:29"),
        t("2026-11-16 10:00:30"),
        (Activity("rijden", t("2026-11-16 08:00:29"), t("2026-11-16 10:00:30")),),
    )
    assert week(2026, 47, [day]).totaal.gewerkt_min == 121


def test_an_activity_across_sunday_midnight_counts_in_each_week():
    night = werkdag("2026-11-22 22:00", "2026-11-23 02:00")
    sunday = week(2026, 47, [night])
    monday = week(2026, 48, [night])
    assert categories(sunday.totaal) == (0, 0, 0, 120)
    assert categories(monday.totaal) == (120, 0, 0, 0)
    assert [(o.venster, o.min) for o in monday.totaal.onregelmatig] == [
        ("nacht", 120),
        ("avond", 0),
    ]
    assert (sunday.totaal.afwezig_min, monday.totaal.afwezig_min) == (120, 120)


# --- the CAO's text, case by case (docs/cao.md cites each article) ------------------------


def figures(uren) -> tuple[int, int, int, int, int]:
    """(normaal, meeruren, overuren 130, zaterdag 150, zondag 200) in hours, for tables."""
    return tuple(
        getattr(uren, f"{name}_min") / 60
        for name in ("normaal", "meeruren", "overuren_130", "zaterdag_150", "zondag_200")
    )


NINE_HOURS = {
    2025: [shift(f"2025-11-{d}", "07:00", "16:00", pauze=None) for d in range(17, 22)],
    2026: [shift(f"2026-11-{d}", "07:00", "16:00", pauze=None) for d in range(16, 21)],
}


@pytest.mark.parametrize(
    ("jaar", "grens", "days", "total"),
    [
        # CAO up to 2025, art. 27 lid 1: "Overuren zijn uren, niet liggend op zaterdag en/of
        # zondag, waarmee de diensttijd van 40 uur in de week wordt overschreden." TLN: "De 8
        # uren, tussen de 32 en 40, zijn wel 'meeruren', maar geen overuren."
        (2025, "week_40",
         [(9, 0, 0, 0, 0)] * 3 + [(5, 4, 0, 0, 0), (0, 4, 5, 0, 0)], (32, 8, 5, 0, 0)),
        # CAO 2026, art. 27 lid 1: "Overuren zijn uren, liggend op maandag tot en met
        # vrijdag, waarmee de diensttijd van 40 uur in de week, dan wel de individueel
        # overeengekomen arbeidstijd als dit minder is dan 40 uur per week, wordt
        # overschreden."
        (2026, "contract",
         [(9, 0, 0, 0, 0)] * 3 + [(5, 0, 4, 0, 0), (0, 0, 9, 0, 0)], (32, 0, 13, 0, 0)),
    ],
    ids=["cao-2025", "cao-2026"],
)  # fmt: skip
def test_a_32_hour_driver_working_5_times_9_hours(jaar, grens, days, total):
    """Weekday minutes in time order from Monday 00:00: up to the contract normal, then up
    to where overtime starts meeruren at 100%, then overtime at 130%."""
    nummer = 47
    result = week(jaar, nummer, NINE_HOURS[jaar], contracturen=Decimal(32))
    assert result.overuren_grens == grens
    assert [figures(d) for d in result.per_dag[:5]] == days
    assert figures(result.totaal) == total
    assert result.totaal.aanvulling_min == 0
    assert result.totaal.boven_contract.min == 13 * 60
    # A carrier may fix either rule: the figures follow the rule, not the year.
    other = "contract" if grens == "week_40" else "week_40"
    fixed = week(jaar, nummer, NINE_HOURS[jaar], replace(REGELS, overuren_grens=other),
                 contracturen=Decimal(32))  # fmt: skip
    assert figures(fixed.totaal) == ((32, 0, 13, 0, 0) if other == "contract" else (32, 8, 5, 0, 0))


def test_saturday_hours_make_up_the_contract_first_and_are_never_meeruren():
    """CAO art. 33 lid 1: "Alle diensturen op zaterdag worden vergoed door betaling van het
    uurloon vermeerderd met een toeslag van 50%." 28 weekday hours and 6 on Saturday for a
    32-hour contract: 4 Saturday hours fill the contract (surcharge only), 2 are beyond it
    (in full); none are meeruren, and nothing is made up."""
    days = [shift(f"2025-11-{d}", "08:00", "15:00", pauze=None) for d in range(17, 21)]
    saturday = shift("2025-11-22", "07:00", "13:00", pauze=None)
    result = week(2025, 47, [*days, saturday], contracturen=Decimal(32))
    assert figures(result.totaal) == (28, 0, 0, 6, 0)
    assert (result.totaal.boven_contract.min, result.totaal.boven_contract.zaterdag_150_min) == (
        120,
        120,
    )
    assert result.totaal.aanvulling_min == 0


def test_on_call_workers_earn_overtime_above_8_hours_a_day():
    """CAO art. 10 lid 5: "Overuren zijn de uren, waarmee de diensttijd van gemiddeld 8 uur
    per dag wordt overschreden." An on-call driver without contract hours: 10, 6 and 9 hours
    give 3 overtime hours, the rest at 100%; Koningsdag not worked is not paid (art. 10 lid 1
    excludes art. 64)."""
    oproep = replace(REGELS, overuren_grens="dag_8")
    days = [
        shift("2026-04-28", "06:00", "16:00", pauze=None),
        shift("2026-04-29", "06:00", "12:00", pauze=None),
        shift("2026-04-30", "06:00", "15:00", pauze=None),
    ]
    result = week(2026, 18, days, oproep, contracturen=Decimal(0))
    assert result.overuren_grens == "dag_8"
    assert [figures(d) for d in result.per_dag[1:4]] == [(0, 8, 2, 0, 0), (0, 6, 0, 0, 0),
                                                          (0, 8, 1, 0, 0)]  # fmt: skip
    assert result.per_dag[0].feestdag == "Koningsdag"
    assert (result.totaal.feestdag_min, result.totaal.aanvulling_min) == (0, 0)


@pytest.mark.parametrize(
    ("dubbel", "saturday"),
    [(True, (0, 0, 4, 3, 0)), (False, (0, 0, 0, 7, 0))],
    ids=["double-manned", "single"],
)
def test_double_manning_counts_overtime_up_to_saturday_7(dubbel, saturday):
    """CAO art. 27 lid 2: "Voor rijdend personeel op dubbelbemande voertuigen geldt lid 1
    voor de uren liggend op maandag tot en met zaterdag 7.00 uur"; art. 33 lid 2: "alle
    diensturen op zaterdag na 07.00 uur" earn the Saturday surcharge."""
    days = [shift(f"2026-11-{d}", "08:00", "16:00", pauze=None) for d in range(16, 21)]
    saturday_shift = shift("2026-11-21", "03:00", "10:00", pauze=None)
    regels = replace(REGELS, dubbele_bemanning=dubbel)
    result = week(2026, 47, [*days, saturday_shift], regels)
    assert figures(per_dag(result)[date(2026, 11, 21)]) == saturday
    assert result.dubbele_bemanning is dubbel


# The one-day tariff with the amounts the CAO 2026 names per 1 January 2026 (art. 40 lid 3a).
CAO_2026 = replace(
    REGELS,
    vensters=(),
    verblijfkosten=replace(
        cao_preset(date(2025, 1, 6)).verblijfkosten,
        eendaags=DayRate(
            uurtarieven=(
                HourRate("per uur afwezig", "00:00", "24:00", Decimal("0.83")),
                HourRate("avond", "18:00", "24:00", Decimal("3.77"), vertrek_voor="14:00"),
            ),
            vaste_bedragen=(
                FixedAmount("extra", Decimal("15.73"), vertrek_na="14:00", min_afwezig_min=720),
            ),
        ),
    ),
)


def shift_15_to_0330(day: str, next_day: str) -> WorkDay:
    return werkdag(
        f"{day} 15:00",
        f"{next_day} 03:30",
        ("rijden", f"{day} 15:00", f"{day} 19:00"),
        ("pauze", f"{day} 19:00", f"{day} 19:30"),
        ("rijden", f"{day} 19:30", f"{next_day} 03:30"),
    )


def test_a_shift_from_15_00_to_03_30_is_a_one_day_night_trip():
    """CAO art. 40 lid 3a: "Bij ééndaagse ritten, zijnde ritten waarbij het vertrek en de
    aankomst binnen 24 uur plaatsvinden"; art. 37 lid 1: "Voor eendaagse ritten is voor de
    diensturen op maandag tot en met zondag gelegen tussen 21.00 - 05.00 uur een toeslag van
    toepassing van 19% op het uurloon." Tuesday 15:00 to Wednesday 03:30, a break of 30
    minutes: 12 paid hours, 6.5 of them between 21:00 and 05:00; 12.5 hours away at the
    one-day tariff: 12.5 x 0.83 and the extra 15.73 (left after 14:00, away 12 hours), no
    evening rate (that needs a departure before 14:00). All booked on Tuesday."""
    result = week(2026, 47, [shift_15_to_0330("2026-11-17", "2026-11-18")], CAO_2026)
    tue, wed = per_dag(result)[date(2026, 11, 17)], per_dag(result)[date(2026, 11, 18)]
    assert (tue.gewerkt_min, wed.gewerkt_min) == (8.5 * 60, 3.5 * 60)
    assert (tue.nachttoeslag_min, wed.nachttoeslag_min) == (3 * 60, 3.5 * 60)
    assert (tue.afwezig_min, wed.afwezig_min) == (9 * 60, 3.5 * 60)
    assert (tue.verblijfkosten_eur, wed.verblijfkosten_eur) == (Decimal("26.11"), Decimal("0"))
    assert result.nachttoeslag_procent == 19
    # Without the surcharge in the rule set, or on a trip over 24 hours, none.
    assert week(2026, 47, [shift_15_to_0330("2026-11-17", "2026-11-18")],
                replace(CAO_2026, nachtrit_procent=0)).totaal.nachttoeslag_min == 0  # fmt: skip
    long_trip = werkdag("2026-11-17 02:00", "2026-11-18 03:30")
    assert week(2026, 47, [long_trip], CAO_2026).totaal.nachttoeslag_min == 0


@pytest.mark.parametrize(
    ("samenloop", "friday", "night"),
    [
        # "Indien de overwerktoeslag en onregelmatigheidstoeslag samenlopen, wordt alleen de
        # onregelmatigheidstoeslag uitgekeerd": 19:30-24:00 earns the evening window only,
        # as meeruren, and no night-trip surcharge beside that shift surcharge (art. 37 lid 2).
        ("onregelmatig", (0, 4.5, 4, 0, 0), 3.5 * 60),
        # The higher of the two: overtime (130 > 125), with the night-trip surcharge beside it
        # (art. 37 lid 3: "los van elkaar staande toeslagen die gelijktijdig van toepassing
        # kunnen zijn").
        ("hoogste", (0, 0, 8.5, 0, 0), 6.5 * 60),
    ],
)
def test_a_week_where_overtime_falls_in_an_irregular_window(samenloop, friday, night):
    """Mon-Thu 4 x 10 hours fill the 40 hours; Friday 15:00 to Saturday 03:30 is overtime,
    its evening 19:00-24:00 also in the carrier's own evening window at 125%. Saturday's
    3.5 hours earn the Saturday rate, and the night-trip surcharge beside it."""
    regels = replace(
        CAO_2026,
        samenloop=samenloop,
        vensters=(
            Window("dag", MA_VR, "00:00", "19:00", 100),
            Window("avond", MA_VR, "19:00", "24:00", 125),
        ),
    )
    days = [shift(f"2026-11-{d}", "07:00", "17:00", pauze=None) for d in range(16, 20)]
    result = week(2026, 47, [*days, shift_15_to_0330("2026-11-20", "2026-11-21")], regels)
    fri, sat = per_dag(result)[date(2026, 11, 20)], per_dag(result)[date(2026, 11, 21)]
    assert figures(fri) == friday
    assert figures(sat) == (0, 0, 0, 3.5, 0)
    assert result.totaal.nachttoeslag_min == night
    avond = [(o.venster, o.min, o.boven_contract_min) for o in result.totaal.onregelmatig]
    assert avond == [("avond", 270 if samenloop == "onregelmatig" else 0,
                      270 if samenloop == "onregelmatig" else 0)]  # fmt: skip


@pytest.mark.parametrize(
    ("contract", "worked", "feestdag", "expected", "aanvulling"),
    [
        # CAO art. 64: on "algemeen erkende christelijke en nationale feestdagen, niet
        # vallende op zaterdag en/of zondag" not worked "wordt per dag 8 diensturen
        # genoteerd": Koningsdag shows as a holiday, not as made up to the contract.
        (40, ["28", "29", "30", "01"], 480, (32, 0, 0, 0, 0), 0),
        # Part-time pro rata (art. 8 lid 2a): a fifth of 32 hours.
        (32, ["28", "29", "30"], 384, (24, 0, 0, 0, 0), 96),
        # The noted hours count towards the 40: 8 + 4 x 10 hours give 8 hours overtime.
        (40, ["28", "29", "30", "01"], 480, (32, 0, 8, 0, 0), 0),
    ],
    ids=["full-time", "part-time", "overtime"],
)
def test_a_paid_holiday_not_worked_shows_as_a_holiday(
    contract, worked, feestdag, expected, aanvulling
):
    long_days = expected[2] > 0
    days = [
        shift(f"2026-{'05' if d == '01' else '04'}-{d}", "07:00",
               "17:00" if long_days else "15:00", pauze=None)
        for d in worked
    ]  # fmt: skip
    result = week(2026, 18, days, contracturen=Decimal(contract))
    monday = result.per_dag[0]
    assert (monday.feestdag, monday.feestdag_min, monday.gewerkt_min) == ("Koningsdag", feestdag, 0)
    assert figures(result.totaal) == expected
    assert (result.totaal.feestdag_min, result.totaal.aanvulling_min) == (feestdag, aanvulling)


def test_a_holiday_worked_or_on_a_saturday_is_not_noted():
    worked = week(2026, 18, [shift("2026-04-27", "08:00", "12:00", pauze=None)])
    assert (worked.per_dag[0].zondag_200_min, worked.totaal.feestdag_min) == (240, 0)
    assert worked.totaal.aanvulling_min == 2400 - 240
    christmas = week(2026, 52, [])  # Friday 25 and Saturday 26 December
    assert [d.feestdag_min for d in christmas.per_dag] == [0, 0, 0, 0, 480, 0, 0]
    assert christmas.totaal.aanvulling_min == 2400 - 480


# --- time zone ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nummer", "sunday", "minutes", "lived_twice"),
    [(13, date(2026, 3, 29), 23 * 60, 0), (43, date(2026, 10, 25), 25 * 60, 120)],
)
def test_the_sundays_the_clocks_change(nummer, sunday, minutes, lived_twice):
    """A shift from Sunday 00:00 to Monday 00:00 lasts 23 or 25 hours; a window on the wall
    clock holds the minutes whose wall-clock time is in it (02:00-03:00 never or twice)."""
    begin = datetime.combine(sunday, time(0), AMS)
    end = datetime.combine(sunday + timedelta(days=1), time(0), AMS)
    shift = WorkDay(begin, end, (Activity("rijden", begin, end),))
    regels = replace(
        REGELS,
        vensters=(
            *REGELS.vensters,
            Window("zondagnacht", (7,), "00:00", "02:00", 100),
            Window("klokuur", (7,), "02:00", "03:00", 300),
            Window("zondag", (7,), "03:00", "24:00", 100),
        ),
    )
    result = week(2026, nummer, [shift], regels)
    day = per_dag(result)[sunday]
    assert day.gewerkt_min == day.afwezig_min == minutes
    assert day.zondag_200_min == minutes - lived_twice
    assert [(o.venster, o.min) for o in day.onregelmatig] == (
        [("klokuur", lived_twice)] if lived_twice else []
    )
    assert (result.totaal.gewerkt_min, result.totaal.aanvulling_min) == (minutes, 2400 - minutes)


def test_days_and_windows_are_those_of_the_carriers_time_zone():
    london = ZoneInfo("Europe/London")
    begin = datetime(2026, 11, 16, 5, 0, tzinfo=london)  # 06:00 in Amsterdam
    end = begin + timedelta(hours=1)
    shift = WorkDay(begin, end, (Activity("rijden", begin, end),))
    in_london = per_dag(week(2026, 47, [shift], zone=london))[date(2026, 11, 16)]
    in_amsterdam = per_dag(week(2026, 47, [shift]))[date(2026, 11, 16)]
    assert [(o.venster, o.min) for o in in_london.onregelmatig] == [("nacht", 60)]
    assert in_amsterdam.onregelmatig == []


# --- allowances ---------------------------------------------------------------------------

KOSTEN = Allowances(
    drempel_min=240,
    eendaags=DayRate(
        uurtarieven=(
            HourRate("per uur", "00:00", "24:00", Decimal("0.60")),
            HourRate("avond", "18:00", "24:00", Decimal("2.80"), vertrek_voor="14:00"),
        ),
        vaste_bedragen=(FixedAmount("lunch", Decimal("5.00"), dekt_van="12:00", dekt_tot="13:00"),),
    ),
    eerste_dag=DayRate(
        uurtarieven=(
            HourRate("per uur", "00:00", "24:00", Decimal("1.00")),
            HourRate("avond", "17:00", "24:00", Decimal("2.00"), vertrek_voor="17:00"),
        )
    ),
    tussendag=DayRate(vaste_bedragen=(FixedAmount("dagbedrag", Decimal("50.00")),)),
    laatste_dag=DayRate(
        uurtarieven=(
            HourRate("per uur", "00:00", "24:00", Decimal("1.00")),
            HourRate("nacht", "00:00", "06:00", Decimal("0.50"), aankomst_na="12:00"),
        )
    ),
)
MET_KOSTEN = replace(REGELS, verblijfkosten=KOSTEN)


@pytest.mark.parametrize(
    ("einde", "afwezig", "bedrag"),
    [
        ("11:59", 239, "0.00"),  # under 4 hours: nothing
        ("12:00", 240, "0.00"),  # exactly 4 hours: not more than 4
        ("12:01", 241, "2.41"),  # 241 minutes at 0.60 an hour
        ("13:00", 300, "8.00"),  # 5 hours, and the absence covers lunch
    ],
)
def test_a_one_day_trip_earns_only_above_4_hours(einde, afwezig, bedrag):
    day = werkdag("2026-11-17 08:00", f"2026-11-17 {einde}")
    found = per_dag(week(2026, 47, [day], MET_KOSTEN))[date(2026, 11, 17)]
    assert found.afwezig_min == afwezig
    assert found.verblijfkosten_eur == Decimal(bedrag)


def test_a_one_day_trip_with_the_evening_rate_and_rounding_half_up():
    # 13:00-21:00: 8 h at 0.60, 3 evening hours at 2.80 (left before 14:00), lunch covered.
    found = per_dag(week(2026, 47, [werkdag("2026-11-17 11:00", "2026-11-17 21:00")], MET_KOSTEN))
    assert found[date(2026, 11, 17)].verblijfkosten_eur == Decimal("19.40")  # 6.00+8.40+5.00
    late = per_dag(week(2026, 47, [werkdag("2026-11-17 14:00", "2026-11-17 23:00")], MET_KOSTEN))
    assert late[date(2026, 11, 17)].verblijfkosten_eur == Decimal("5.40")  # no evening rate
    # 0.30 an hour over 245 minutes is 1.225: half up to 1.23 (not 1.22, banker's rounding).
    cheap = replace(
        MET_KOSTEN,
        verblijfkosten=replace(
            KOSTEN,
            eendaags=DayRate((HourRate("per uur", "00:00", "24:00", Decimal("0.30")),)),
        ),
    )
    found = per_dag(week(2026, 47, [werkdag("2026-11-17 08:00", "2026-11-17 12:05")], cheap))
    assert found[date(2026, 11, 17)].verblijfkosten_eur == Decimal("1.23")


def test_a_three_day_trip_has_a_first_a_middle_and_a_last_day():
    trip = werkdag(
        "2026-11-16 10:00",
        "2026-11-18 15:00",
        ("rijden", "2026-11-16 10:00", "2026-11-16 19:00"),
        ("pauze", "2026-11-16 19:00", "2026-11-17 07:00"),
        ("rijden", "2026-11-17 07:00", "2026-11-17 12:00"),
    )
    result = week(2026, 47, [trip], MET_KOSTEN)
    days = per_dag(result)
    # Monday 10:00-24:00: 14 h at 1.00 and 7 evening hours at 2.00 (left before 17:00).
    assert (days[date(2026, 11, 16)].afwezig_min, days[date(2026, 11, 16)].verblijfkosten_eur) == (
        14 * 60,
        Decimal("28.00"),
    )
    # Tuesday: a full day away.
    assert (days[date(2026, 11, 17)].afwezig_min, days[date(2026, 11, 17)].verblijfkosten_eur) == (
        24 * 60,
        Decimal("50.00"),
    )
    # Wednesday 00:00-15:00: 15 h at 1.00 and the night at 0.50 (back after 12:00).
    assert (days[date(2026, 11, 18)].afwezig_min, days[date(2026, 11, 18)].verblijfkosten_eur) == (
        15 * 60,
        Decimal("18.00"),
    )
    assert result.totaal.verblijfkosten_eur == Decimal("96.00")
    assert result.totaal.afwezig_min == 53 * 60


def test_a_short_night_trip_across_midnight_is_one_day():
    """CAO art. 40 lid 3a: "Bij ééndaagse ritten, zijnde ritten waarbij het vertrek en de
    aankomst binnen 24 uur plaatsvinden". 20:00-02:00 is one trip of 6 hours at the one-day
    tariff (0.60 an hour; no evening rate: it left after 14:00), booked on the day it left."""
    trip = werkdag("2026-11-17 20:00", "2026-11-18 02:00")
    days = per_dag(week(2026, 47, [trip], MET_KOSTEN))
    assert days[date(2026, 11, 17)].verblijfkosten_eur == Decimal("3.60")
    assert days[date(2026, 11, 18)].verblijfkosten_eur == Decimal("0.00")
    assert (days[date(2026, 11, 17)].afwezig_min, days[date(2026, 11, 18)].afwezig_min) == (
        240,
        120,
    )


@pytest.mark.parametrize(
    ("einde", "eendaags"),
    [("2026-11-18 08:00", True), ("2026-11-18 08:01", False)],
    ids=["24-hours", "24-hours-and-a-minute"],
)
def test_a_trip_of_24_hours_is_one_day_and_a_longer_one_multi_day(einde, eendaags):
    trip = werkdag("2026-11-17 08:00", einde)
    days = per_dag(week(2026, 47, [trip], MET_KOSTEN))
    if eendaags:  # 24 h at 0.60, 6 evening hours at 2.80 (left before 14:00), lunch
        assert days[date(2026, 11, 17)].verblijfkosten_eur == Decimal("36.20")
        assert days[date(2026, 11, 18)].verblijfkosten_eur == Decimal("0.00")
    else:  # first day 16 h at 1.00 and 7 evening hours at 2.00; last day 8 h 1 min at 1.00
        assert days[date(2026, 11, 17)].verblijfkosten_eur == Decimal("30.00")
        assert days[date(2026, 11, 18)].verblijfkosten_eur == Decimal("8.02")


def test_a_trip_over_the_week_edge_and_the_long_sunday():
    """Saturday 24 October 2026 to Monday 26 October: the middle day is the 25-hour Sunday."""
    trip = werkdag("2026-10-24 20:00", "2026-10-26 13:00")
    regels = replace(
        MET_KOSTEN,
        verblijfkosten=replace(
            KOSTEN, tussendag=DayRate((HourRate("per uur", "00:00", "24:00", Decimal("2.00")),))
        ),
    )
    first = per_dag(week(2026, 43, [trip], regels))
    assert first[date(2026, 10, 24)].verblijfkosten_eur == Decimal("4.00")
    assert first[date(2026, 10, 25)].afwezig_min == 25 * 60
    assert first[date(2026, 10, 25)].verblijfkosten_eur == Decimal("50.00")  # 25 h at 2.00
    second = per_dag(week(2026, 44, [trip], regels))
    # Monday is the last day, back after 12:00: 13 h at 1.00 and 6 night hours at 0.50.
    assert second[date(2026, 10, 26)].verblijfkosten_eur == Decimal("16.00")
    assert sum(d.verblijfkosten_eur for d in second.values()) == Decimal("16.00")


def test_the_preset_computes_allowances_of_zero_until_amounts_are_entered():
    result = week(
        2026, 47, [werkdag("2026-11-16 06:00", "2026-11-18 18:00")], cao_preset(date(2025, 1, 6))
    )
    assert result.totaal.verblijfkosten_eur == Decimal("0.00")
    assert result.totaal.afwezig_min == 60 * 60


# --- warnings -----------------------------------------------------------------------------


def warnings(*activiteiten, begin="2026-11-17 06:00", einde="2026-11-17 23:00"):
    day = werkdag(
        begin, einde, *[(s, f"2026-11-17 {a}", f"2026-11-17 {b}") for s, a, b in activiteiten]
    )
    return per_dag(week(2026, 47, [day]))[date(2026, 11, 17)].waarschuwingen


@pytest.mark.parametrize(
    ("activiteiten", "expected"),
    [
        # 6 hours of work need no break.
        ((("rijden", "06:00", "12:00"),), []),
        # 7 hours on end.
        ((("rijden", "06:00", "13:00"),), ["pauze_te_kort", "langer_dan_6_uur_zonder_pauze"]),
        # 7 hours with 30 minutes in between.
        ((("rijden", "06:00", "10:00"), ("pauze", "10:00", "10:30"), ("laden", "10:30", "13:30")),
         []),
        # Two breaks of 15 minutes make 30.
        ((("rijden", "06:00", "09:00"), ("pauze", "09:00", "09:15"), ("rijden", "09:15", "12:00"),
          ("pauze", "12:00", "12:15"), ("lossen", "12:15", "13:30")), []),
        # Breaks of 10 minutes do not count.
        ((("rijden", "06:00", "09:00"), ("pauze", "09:00", "09:10"), ("rijden", "09:10", "12:00"),
          ("pauze", "12:00", "12:10"), ("lossen", "12:10", "13:30")),
         ["pauze_te_kort", "langer_dan_6_uur_zonder_pauze"]),
        # Time without any activity is a break.
        ((("rijden", "06:00", "10:00"), ("laden", "10:30", "13:30")), []),
        # Over 9 hours of work need 45 minutes.
        ((("rijden", "06:00", "11:00"), ("pauze", "11:00", "11:30"), ("rijden", "11:30", "16:30")),
         ["pauze_te_kort"]),
        # Availability is no break: 4 + 3 hours of work follow one another.
        ((("rijden", "06:00", "10:00"), ("beschikbaarheid", "10:00", "10:30"),
          ("rijden", "10:30", "13:30")), ["pauze_te_kort", "langer_dan_6_uur_zonder_pauze"]),
        # A break before the work starts does not count.
        ((("pauze", "06:00", "07:00"), ("rijden", "07:00", "14:00")),
         ["pauze_te_kort", "langer_dan_6_uur_zonder_pauze"]),
        # Over 15 paid hours.
        ((("rijden", "06:00", "12:00"), ("pauze", "12:00", "12:45"), ("rijden", "12:45", "22:00")),
         ["dag_te_lang", "langer_dan_6_uur_zonder_pauze"]),
    ],
)  # fmt: skip
def test_warnings(activiteiten, expected):
    assert warnings(*activiteiten) == expected


def test_a_break_warning_shows_on_the_day_the_work_day_started():
    night = werkdag("2026-11-17 22:00", "2026-11-18 06:00")
    days = per_dag(week(2026, 47, [night]))
    assert days[date(2026, 11, 17)].waarschuwingen == [
        "pauze_te_kort",
        "langer_dan_6_uur_zonder_pauze",
    ]
    assert days[date(2026, 11, 18)].waarschuwingen == []


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("work_days", "code"),
    [
        (
            [
                werkdag(
                    "2026-11-17 08:00",
                    "2026-11-17 16:00",
                    ("rijden", "2026-11-17 08:00", "2026-11-17 12:00"),
                    ("laden", "2026-11-17 11:00", "2026-11-17 13:00"),
                )
            ],
            "activiteiten_overlappen",
        ),
        (
            [
                werkdag("2026-11-17 08:00", "2026-11-17 16:00"),
                werkdag("2026-11-17 15:00", "2026-11-17 18:00"),
            ],
            "werkdagen_overlappen",
        ),
        (
            [
                werkdag(
                    "2026-11-17 08:00",
                    "2026-11-17 16:00",
                    ("rijden", "2026-11-17 07:00", "2026-11-17 12:00"),
                )
            ],
            "activiteit_buiten_werkdag",
        ),
        (
            [
                werkdag(
                    "2026-11-17 08:00",
                    "2026-11-17 16:00",
                    ("slapen", "2026-11-17 08:00", "2026-11-17 12:00"),
                )
            ],
            "soort_onbekend",
        ),
        ([WorkDay(t("2026-11-17 16:00"), t("2026-11-17 08:00"))], "periode_ongeldig"),
        ([WorkDay(datetime(2026, 11, 17, 8), datetime(2026, 11, 17, 9))], "tijd_zonder_zone"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_not_double_counted(work_days, code):
    with pytest.raises(CaoError) as caught:
        week(2026, 47, work_days)
    assert caught.value.code == code


def test_a_week_that_does_not_exist():
    with pytest.raises(CaoError) as caught:
        week(2025, 53, [])
    assert caught.value.code == "week_ongeldig"


# --- output -------------------------------------------------------------------------------


def test_json_has_the_issues_shape_with_money_as_strings():
    data = week(2026, 48, [shift("2026-11-23", "04:00", "13:00")], MET_KOSTEN).to_json()
    assert data["week"] == "2026-W48"
    assert [d["datum"] for d in data["per_dag"]] == [f"2026-11-{d}" for d in range(23, 30)]
    monday = data["per_dag"][0]
    assert monday == {
        "datum": "2026-11-23",
        "feestdag": None,
        "gewerkt_min": 510,
        "normaal_min": 510,
        "meeruren_min": 0,
        "overuren_130_min": 0,
        "zaterdag_150_min": 0,
        "zondag_200_min": 0,
        "feestdag_min": 0,
        "nachttoeslag_min": 0,
        "onregelmatig": [{"venster": "nacht", "procent": 150, "min": 120, "boven_contract_min": 0}],
        "boven_contract": {"min": 0, "zaterdag_150_min": 0, "zondag_200_min": 0},
        "onbetaald_min": 30,
        "afwezig_min": 540,
        "verblijfkosten_eur": "10.40",  # 9 h at 0.60, lunch 5.00
        "waarschuwingen": ["langer_dan_6_uur_zonder_pauze"],  # 04:00-12:00
    }
    totaal = data["totaal"]
    assert set(totaal) >= {
        "gewerkt_min",
        "normaal_min",
        "meeruren_min",
        "overuren_130_min",
        "feestdag_min",
        "nachttoeslag_min",
        "zaterdag_150_min",
        "zondag_200_min",
        "onregelmatig",
        "verblijfkosten_eur",
        "aanvulling_min",
    }
    assert (totaal["verblijfkosten_eur"], totaal["aanvulling_min"]) == ("10.40", 1890)
    assert data["contract_min"] == 2400
    assert data["regelset_geldig_vanaf"] == "2025-01-06"
    assert (data["overuren_grens"], data["dubbele_bemanning"]) == ("contract", False)
    assert (data["samenloop"], data["nachttoeslag_procent"]) == ("onregelmatig", 19)


# --- the property -------------------------------------------------------------------------

WEEKS = [(2025, 19), (2025, 47), (2026, 13), (2026, 18), (2026, 43), (2026, 47), (2026, 52)]


@st.composite
def weeks_of_work(draw):
    jaar, nummer = draw(st.sampled_from(WEEKS))
    start = datetime.combine(date.fromisocalendar(jaar, nummer, 1), time(0), AMS).astimezone(UTC)
    # Minute offsets from the week's start, reaching a little into the weeks on either side.
    points = sorted(draw(st.sets(st.integers(-600, 10200), min_size=0, max_size=40)))
    soorten = st.sampled_from(["rijden", "laden", "pauze", "beschikbaarheid", "wachten"])
    groups: list[list[Activity]] = []
    for begin, end in zip(points[::2], points[1::2], strict=False):
        a, b = start + timedelta(minutes=begin), start + timedelta(minutes=end)
        if not groups or draw(st.booleans()):  # a new work day, or the next activity of one
            groups.append([])
        groups[-1].append(Activity(draw(soorten), a, b))
    work_days = [WorkDay(g[0].begin, g[-1].einde, tuple(g)) for g in groups]
    regels = replace(
        REGELS,
        contracturen=Decimal(draw(st.sampled_from([0, 24, 32, 40, 45]))),
        samenloop=draw(st.sampled_from(["hoogste", "onregelmatig"])),
        overuren_grens=draw(st.sampled_from(["cao", "week_40", "contract", "dag_8"])),
        dubbele_bemanning=draw(st.booleans()),
        nachtrit_procent=draw(st.sampled_from([0, 19])),
        vensters=(
            Window("nacht", MA_VR, "00:00", "06:00", draw(st.sampled_from([100, 120, 130, 160]))),
            Window("dag", MA_VR, "06:00", "19:00", 100),
            Window(
                "avond", (1, 2, 3, 4, 5, 6), "19:00", "24:00", draw(st.sampled_from([110, 155]))
            ),
            Window("dag6", (6,), "00:00", "19:00", 100),
        ),
    )
    return jaar, nummer, start, work_days, regels


def sums(uren) -> tuple[int, ...]:
    return (*categories(uren), uren.meeruren_min, uren.feestdag_min, uren.nachttoeslag_min)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(weeks_of_work())
def test_categories_always_add_up_to_the_paid_minutes(case):
    jaar, nummer, start, work_days, regels = case
    result = week(jaar, nummer, work_days, regels)
    next_monday = date.fromisocalendar(jaar, nummer, 1) + timedelta(days=7)
    end = datetime.combine(next_monday, time(0), AMS).astimezone(UTC)  # 167 to 169 h later
    paid = sum(
        (
            max(timedelta(0), min(a.einde, end) - max(a.begin, start))
            for w in work_days
            for a in w.activiteiten
            if a.soort != "pauze"
        ),
        timedelta(0),
    ) // timedelta(minutes=1)
    for uren in [*result.per_dag, result.totaal]:
        assert sum(categories(uren)) + uren.meeruren_min == uren.gewerkt_min
        assert sum(o.min for o in uren.onregelmatig) <= uren.normaal_min + uren.meeruren_min
        assert sum(o.boven_contract_min for o in uren.onregelmatig) <= uren.meeruren_min
        assert uren.nachttoeslag_min <= uren.gewerkt_min
    assert result.totaal.gewerkt_min == paid
    assert result.totaal.gewerkt_min == sum(d.gewerkt_min for d in result.per_dag)
    noted = result.totaal.feestdag_min
    assert result.totaal.boven_contract.min == max(0, paid + noted - result.contract_min)
    assert result.totaal.aanvulling_min == max(0, result.contract_min - paid - noted)
    expected = reference(result, work_days, regels, start, end)
    assert expected == (
        sums(result.totaal),
        [(o.venster, o.min, o.boven_contract_min) for o in result.totaal.onregelmatig],
    )
    away = sum(
        (max(timedelta(0), min(w.beeindigd_op, end) - max(w.gestart_op, start)) for w in work_days),
        timedelta(0),
    )
    assert result.totaal.afwezig_min == away // timedelta(minutes=1)


def reference(result, work_days, regels, start, end):
    """The week's categories minute by minute, the obvious way, from the rules as pay.py's
    docstring words them, to check the faster one."""
    holidays = set()
    for year in {start.year, end.year}:
        holidays |= set(feestdagen(year, regels.feestdagen, regels.extra_feestdagen))
    minutes = sorted(
        (a.begin + timedelta(minutes=n), w.beeindigd_op - w.gestart_op <= timedelta(hours=24))
        for w in work_days
        for a in w.activiteiten
        if a.soort in regels.betaalde_soorten
        for n in range((a.einde - a.begin) // timedelta(minutes=1))
        if start <= a.begin + timedelta(minutes=n) < end
    )
    grens = regels.overtime_threshold(result.jaar)
    contract = result.contract_min
    drempel = 2400 if grens == "week_40" else min(contract, 2400)
    worked = {moment.astimezone(AMS).date() for moment, _ in minutes}
    counts = dict.fromkeys(("normaal", "overuren", "zaterdag", "zondag", "meeruren"), 0)
    noted = 0
    if grens != "dag_8":
        for day in (start.astimezone(AMS).date() + timedelta(days=n) for n in range(5)):
            if day in holidays and day not in worked:
                noted += min(480, contract // 5)
    night = 0
    windows = {v.naam: [v, 0, 0] for v in regels.vensters if v.procent > 100}
    counted, weekday, per_day = noted, noted, {}
    for moment, one_day in minutes:
        local = moment.astimezone(AMS)
        wall = local.strftime("%H:%M")
        window = next(
            (
                v
                for v, _, _ in windows.values()
                if local.isoweekday() in v.dagen and v.van <= wall < v.tot.replace("24:00", "99")
            ),
            None,
        )
        early = regels.dubbele_bemanning and local.isoweekday() == 6 and wall < "07:00"
        workweek = local.isoweekday() <= 5 or early
        within = counted < contract
        if grens == "dag_8":
            over = per_day.get(local.date(), 0) >= 480
        else:
            over = workweek and weekday >= drempel
        options = []
        if local.date() in holidays or local.isoweekday() == 7:
            options.append((regels.zondag_procent, 4, "zondag"))
        if local.isoweekday() == 6 and not early:
            options.append((regels.zaterdag_procent, 3, "zaterdag"))
        if over and not (window and regels.samenloop == "onregelmatig"):
            options.append((regels.overuren_procent, 2, "overuren"))
        if window:
            options.append((window.procent, 1, "venster"))
        category = max(options)[2] if options else "basis"
        in_night = (wall >= regels.nachtrit_van or wall < regels.nachtrit_tot) and one_day
        if in_night and regels.nachtrit_procent and category != "venster":
            night += 1
        if category == "venster":
            windows[window.naam][1] += 1
            windows[window.naam][2] += not within
        if category in ("venster", "basis"):
            category = "normaal" if within else "meeruren"
        counts[category] += 1
        counted += 1
        weekday += workweek
        per_day[local.date()] = per_day.get(local.date(), 0) + 1
    got = (*counts.values(), noted, night)
    return (
        (got[0], got[1], got[2], got[3], got[4], noted, night),
        [(name, n, b) for name, (_, n, b) in windows.items()],
    )
