"""Rule sets for the CAO Beroepsgoederenvervoer: the preset, the checks with their stable
codes, which set a week uses, the holidays the CAO pays, and storing a set as JSON."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest

from portal.hours.cao import (
    CAO_FEESTDAGEN,
    Allowances,
    CaoError,
    DayRate,
    FixedAmount,
    HourRate,
    InvalidPayRules,
    Window,
    cao_preset,
    check_pay_rules,
    compute_week,
    feestdagen,
    pay_rules_for_week,
    pay_rules_from_json,
    pay_rules_to_json,
    validate_pay_rules,
    validate_series,
)
from portal.hours.cao.rules import SOORTEN
from portal.hours.cao.week import ARBEIDSTIJD

PRESET = cao_preset(date(2026, 1, 5))


def codes(rules) -> list[tuple[str, str]]:
    return [(f.code, f.veld) for f in validate_pay_rules(rules)]


def test_preset_is_valid_and_ships_the_cao_structure_without_amounts():
    assert validate_pay_rules(PRESET) == []
    assert PRESET.contracturen == 40
    assert (PRESET.overuren_procent, PRESET.zaterdag_procent, PRESET.zondag_procent) == (
        130,
        150,
        200,
    )
    # Where overtime starts follows the CAO in force; where it meets an irregular-hours
    # surcharge only that surcharge is paid; the CAO has no irregular-hours table for
    # drivers; one-day night trips earn 19% from 21:00 to 05:00 (docs/cao.md).
    assert (PRESET.overuren_grens, PRESET.dubbele_bemanning) == ("cao", False)
    assert PRESET.samenloop == "onregelmatig"
    assert PRESET.vensters == ()
    assert (PRESET.nachtrit_procent, PRESET.nachtrit_van, PRESET.nachtrit_tot) == (
        19,
        "21:00",
        "05:00",
    )
    assert PRESET.night_trip_spans() == [(21 * 60, 1440), (0, 5 * 60)]
    assert "pauze" not in PRESET.betaalde_soorten
    assert "beschikbaarheid" in PRESET.betaalde_soorten
    assert PRESET.feestdagen == CAO_FEESTDAGEN
    kosten = PRESET.verblijfkosten
    assert kosten.drempel_min == 240
    assert kosten.eendaags.uurtarieven and kosten.tussendag.vaste_bedragen
    # A one-day trip that leaves after 14:00 and lasts 12 hours earns a fixed extra amount.
    (extra,) = kosten.eendaags.vaste_bedragen
    assert (extra.vertrek_na, extra.min_afwezig_min) == ("14:00", 12 * 60)
    assert not PRESET.allowances_entered  # amounts are the carrier's to enter
    assert "verblijfkosten" in PRESET.bron
    entered = replace(kosten.tussendag.vaste_bedragen[0], bedrag=Decimal("48.12"))
    filled = replace(
        PRESET, verblijfkosten=replace(kosten, tussendag=DayRate(vaste_bedragen=(entered,)))
    )
    assert filled.allowances_entered


def test_activity_kinds_match_the_models():
    from portal.hours import models

    assert models.SOORTEN == SOORTEN
    assert models.WERKTIJD_SOORTEN == ARBEIDSTIJD


def v(naam: str, dagen: tuple[int, ...], van: str, tot: str, procent: int) -> Window:
    return Window(naam, dagen, van, tot, procent)


@pytest.mark.parametrize(
    ("vensters", "expected"),
    [
        # 06:00-07:00 on Monday is in no window.
        (
            (v("nacht", (1,), "00:00", "06:00", 130), v("dag", (1,), "07:00", "24:00", 100)),
            [("venster_gat", "vensters")],
        ),
        # Nothing after 19:00 on Tuesday.
        (
            (v("nacht", (2,), "00:00", "06:00", 130), v("dag", (2,), "06:00", "19:00", 100)),
            [("venster_gat", "vensters")],
        ),
        (
            (v("nacht", (1,), "00:00", "07:00", 130), v("dag", (1,), "06:00", "24:00", 100)),
            [("venster_overlap", "vensters")],
        ),
        # A weekday named twice in one window is still covered once.
        ((v("alles", (1, 1), "00:00", "24:00", 100),), []),
        (
            (v("leeg", (3,), "08:00", "08:00", 120), v("dag", (3,), "00:00", "24:00", 100)),
            [("venster_leeg", "vensters[0]")],
        ),
        ((v("dag", (3,), "00:00", "25:00", 100),), [("tijd_ongeldig", "vensters[0].tot")]),
        ((v("dag", (0, 8), "00:00", "24:00", 100),), [("dag_ongeldig", "vensters[0].dagen")]),
        (
            (v("dag", (1,), "00:00", "12:00", 100), v("dag", (1,), "12:00", "24:00", 100)),
            [("venster_naam_ongeldig", "vensters[1].naam")],
        ),
        # A window's percentage is a rate: below 100 it would pay less than regular hours.
        ((v("dag", (1,), "00:00", "24:00", 90),), [("procent_te_laag", "vensters[0].procent")]),
    ],
    ids=["gap", "gap-at-end", "overlap", "day-twice", "empty", "time", "weekday", "name", "pct"],
)
def test_windows_must_cover_each_named_weekday_once(vensters, expected):
    assert codes(replace(PRESET, vensters=vensters)) == expected


def test_a_gap_names_the_day_and_the_uncovered_stretch():
    vensters = (
        Window("nacht", (1, 2), "00:00", "06:00", 130),
        Window("dag", (1, 2), "07:00", "24:00", 100),
    )
    fouten = validate_pay_rules(replace(PRESET, vensters=vensters))
    assert [f.params for f in fouten] == [
        {"dag": 1, "van": "06:00", "tot": "07:00"},
        {"dag": 2, "van": "06:00", "tot": "07:00"},
    ]


def test_weekdays_without_windows_need_none():
    assert codes(replace(PRESET, vensters=())) == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"overuren_procent": 99}, [("procent_te_laag", "overuren_procent")]),
        ({"zaterdag_procent": 50}, [("procent_te_laag", "zaterdag_procent")]),
        ({"zondag_procent": 301}, [("procent_te_hoog", "zondag_procent")]),
        ({"zondag_procent": Decimal("200")}, [("procent_ongeldig", "zondag_procent")]),
        ({"geldig_vanaf": date(2026, 1, 1)}, [("geldig_vanaf_geen_maandag", "geldig_vanaf")]),
        ({"contracturen": Decimal(-1)}, [("contracturen_ongeldig", "contracturen")]),
        ({"contracturen": Decimal("38.51")}, [("contracturen_ongeldig", "contracturen")]),
        ({"contracturen": Decimal("38.5")}, []),
        ({"betaalde_soorten": ("rijden", "slapen")}, [("soort_onbekend", "betaalde_soorten")]),
        ({"samenloop": "beide"}, [("samenloop_onbekend", "samenloop")]),
        ({"feestdagen": ("koningsdag", "sinterklaas")}, [("feestdag_onbekend", "feestdagen")]),
        ({"max_dag_min": 0}, [("max_dag_ongeldig", "max_dag_min")]),
        ({"overuren_grens": "boven_38"}, [("overuren_grens_onbekend", "overuren_grens")]),
        ({"overuren_grens": "dag_8", "dubbele_bemanning": True}, []),
        ({"dubbele_bemanning": "ja"}, [("ja_nee_ongeldig", "dubbele_bemanning")]),
        ({"nachtrit_procent": 0}, []),
        ({"nachtrit_procent": 101}, [("toeslag_ongeldig", "nachtrit_procent")]),
        ({"nachtrit_procent": -1}, [("toeslag_ongeldig", "nachtrit_procent")]),
        ({"nachtrit_procent": None}, [("procent_ongeldig", "nachtrit_procent")]),
        ({"nachtrit_procent": True}, [("procent_ongeldig", "nachtrit_procent")]),
        ({"nachtrit_van": "25:00"}, [("tijd_ongeldig", "nachtrit_van")]),
        ({"nachtrit_van": "24:00"}, [("tijd_ongeldig", "nachtrit_van")]),
        ({"nachtrit_tot": ""}, [("tijd_ongeldig", "nachtrit_tot")]),
        ({"nachtrit_tot": "21:00"}, [("venster_leeg", "nachtrit_tot")]),
        ({"nachtrit_van": "00:00", "nachtrit_tot": "24:00"}, [("venster_leeg", "nachtrit_tot")]),
        ({"nachtrit_van": "22:00", "nachtrit_tot": "24:00"}, []),
    ],
)
def test_rule_set_checks(changes, expected):
    assert codes(replace(PRESET, **changes)) == expected


def test_allowance_amounts_and_times_are_checked_with_their_field():
    kosten = Allowances(
        drempel_min=-1,
        eendaags=DayRate(
            uurtarieven=(
                HourRate("per uur", "00:00", "24:00", Decimal("-0.01")),
                HourRate("avond", "18:00", "17:00", Decimal("1.00"), vertrek_voor="14:60"),
            ),
            vaste_bedragen=(
                FixedAmount("lunch", Decimal("NaN"), dekt_van="12:00"),
                FixedAmount("diner", Decimal("5.00"), dekt_van="19:00", dekt_tot="18:00"),
            ),
        ),
    )
    assert codes(replace(PRESET, verblijfkosten=kosten)) == [
        ("drempel_ongeldig", "verblijfkosten.drempel_min"),
        ("bedrag_negatief", "verblijfkosten.eendaags.uurtarieven[0]"),
        ("bedrag_ongeldig", "verblijfkosten.eendaags.vaste_bedragen[0]"),
        ("venster_leeg", "verblijfkosten.eendaags.uurtarieven[1]"),
        ("tijd_ongeldig", "verblijfkosten.eendaags.uurtarieven[1].vertrek_voor"),
        ("dekking_onvolledig", "verblijfkosten.eendaags.vaste_bedragen[0]"),
        ("venster_leeg", "verblijfkosten.eendaags.vaste_bedragen[1]"),
    ]


def test_an_invalid_rule_set_is_refused_with_every_problem():
    bad = replace(PRESET, overuren_procent=90, zondag_procent=400)
    with pytest.raises(InvalidPayRules) as caught:
        check_pay_rules(bad)
    assert caught.value.code == "regelset_ongeldig"
    assert [f.code for f in caught.value.fouten] == ["procent_te_laag", "procent_te_hoog"]
    with pytest.raises(InvalidPayRules):
        compute_week(jaar=2026, week=47, work_days=[], rule_sets=[bad])


def test_a_history_may_not_have_two_sets_on_one_date():
    later = cao_preset(date(2027, 1, 4))
    assert validate_series([PRESET, later]) == []
    fouten = validate_series([PRESET, later, replace(later, zondag_procent=50)])
    assert [(f.code, f.veld) for f in fouten] == [
        ("geldig_vanaf_dubbel", "[2].geldig_vanaf"),
        ("procent_te_laag", "[2].zondag_procent"),
    ]


def test_a_week_uses_the_set_valid_on_its_monday():
    later = replace(cao_preset(date(2027, 1, 4)), contracturen=Decimal(38))
    sets = [later, PRESET]  # any order
    assert pay_rules_for_week(sets, date(2026, 12, 28)) is PRESET
    assert pay_rules_for_week(sets, date(2027, 1, 4)) is later
    assert pay_rules_for_week(PRESET, date(2026, 3, 2)) is PRESET
    with pytest.raises(CaoError) as caught:
        pay_rules_for_week(sets, date(2025, 12, 29))
    assert caught.value.code == "geen_regelset"


def test_a_set_starting_within_the_week_is_an_error_not_a_mix():
    # The new year's amounts from Friday 1 January 2027: week 2026-W53 cannot be computed.
    new_year = replace(cao_preset(date(2027, 1, 1)), contracturen=Decimal(38))
    with pytest.raises(CaoError) as caught:
        compute_week(jaar=2026, week=53, work_days=[], rule_sets=[PRESET, new_year])
    assert caught.value.code == "regelset_wijzigt_in_week"
    assert caught.value.params == {"geldig_vanaf": date(2027, 1, 1), "maandag": date(2026, 12, 28)}
    # Such a set is refused when it is entered, so a checked history never gets there.
    assert ("geldig_vanaf_geen_maandag", "geldig_vanaf") in codes(new_year)
    with pytest.raises(InvalidPayRules):
        compute_week(jaar=2027, week=1, work_days=[], rule_sets=[PRESET, new_year])
    # Dated on a Monday, each week is computed with its own set.
    monday = replace(new_year, geldig_vanaf=date(2027, 1, 4))
    sets = [PRESET, monday]
    assert compute_week(jaar=2026, week=53, work_days=[], rule_sets=sets).contract_min == 2400
    after = compute_week(jaar=2027, week=1, work_days=[], rule_sets=sets)
    assert (after.contract_min, after.regelset_geldig_vanaf) == (38 * 60, date(2027, 1, 4))


def test_the_cao_holidays_of_2026():
    assert feestdagen(2026, CAO_FEESTDAGEN) == {
        date(2026, 1, 1): "Nieuwjaarsdag",
        date(2026, 4, 6): "Tweede paasdag",
        date(2026, 4, 27): "Koningsdag",
        date(2026, 5, 14): "Hemelvaartsdag",
        date(2026, 5, 25): "Tweede pinksterdag",
        date(2026, 12, 25): "Eerste kerstdag",
        date(2026, 12, 26): "Tweede kerstdag",
    }


def test_liberation_day_only_in_lustrum_years_and_kings_day_before_a_sunday():
    days_2025 = feestdagen(2025, CAO_FEESTDAGEN)
    assert days_2025[date(2025, 5, 5)] == "Bevrijdingsdag"
    # 27 April 2025 is a Sunday: Koningsdag is on Saturday the 26th.
    assert days_2025[date(2025, 4, 26)] == "Koningsdag"
    assert date(2025, 4, 27) not in days_2025
    assert date(2026, 5, 5) not in feestdagen(2026, CAO_FEESTDAGEN)
    assert date(2030, 5, 5) in feestdagen(2030, CAO_FEESTDAGEN)
    # Not CAO holidays: Good Friday; Easter and Whit Sunday are Sundays anyway.
    assert date(2026, 4, 3) not in feestdagen(2026, CAO_FEESTDAGEN)


def test_a_carrier_adjusts_the_holidays():
    yearly = (*CAO_FEESTDAGEN, "bevrijdingsdag", "goede_vrijdag")
    days = feestdagen(2026, yearly, extra=(date(2026, 12, 31), date(2027, 12, 31)))
    assert days[date(2026, 5, 5)] == "Bevrijdingsdag"
    assert days[date(2026, 4, 3)] == "Goede vrijdag"
    assert days[date(2026, 12, 31)] == "Extra feestdag"
    assert date(2027, 12, 31) not in days
    fewer = feestdagen(2026, ("nieuwjaarsdag",))
    assert list(fewer) == [date(2026, 1, 1)]


def test_where_overtime_starts_follows_the_cao_of_the_weeks_iso_year():
    """Up to 2025 above 40 hours (art. 27 lid 1 as TLN and the unions explain it); from the
    CAO 2026 above the contract hours when those are under 40. Week 2026-W01 begins on
    Monday 29 December 2025 and belongs to 2026, the year of its Thursday."""
    assert [PRESET.overtime_threshold(jaar) for jaar in (2024, 2025, 2026, 2027)] == [
        "week_40",
        "week_40",
        "contract",
        "contract",
    ]
    for fixed in ("week_40", "contract", "dag_8"):
        assert replace(PRESET, overuren_grens=fixed).overtime_threshold(2025) == fixed
        assert replace(PRESET, overuren_grens=fixed).overtime_threshold(2026) == fixed
    preset_2025 = cao_preset(date(2025, 1, 6))
    first = compute_week(jaar=2026, week=1, work_days=[], rule_sets=[preset_2025])
    last = compute_week(jaar=2025, week=52, work_days=[], rule_sets=[preset_2025])
    assert (first.overuren_grens, last.overuren_grens) == ("contract", "week_40")


def test_a_set_saved_before_the_new_fields_loads_with_the_cao_and_keeps_its_samenloop():
    """Old JSON has no overtime rule, double manning or night trip: it gets the CAO's rule
    for each week and the CAO's night-trip surcharge; its own samenloop stays."""
    old = pay_rules_to_json(replace(PRESET, samenloop="hoogste"))
    for name in ("overuren_grens", "dubbele_bemanning", "nachtrit_procent", "nachtrit_van",
                 "nachtrit_tot"):  # fmt: skip
        del old[name]
    loaded = pay_rules_from_json(old)
    assert loaded.samenloop == "hoogste"
    assert (loaded.overuren_grens, loaded.dubbele_bemanning) == ("cao", False)
    assert (loaded.nachtrit_procent, loaded.nachtrit_van, loaded.nachtrit_tot) == (
        19,
        "21:00",
        "05:00",
    )
    assert validate_pay_rules(loaded) == []
    # A set without samenloop at all (never written so) would keep the old rule.
    del old["samenloop"]
    assert pay_rules_from_json(old).samenloop == "hoogste"


def test_a_rule_set_is_stored_as_json_and_read_back():
    entered = replace(
        PRESET,
        extra_feestdagen=(date(2026, 12, 31),),
        contracturen=Decimal("38.5"),
        vensters=(
            Window("nacht", (1, 2, 3, 4, 5), "00:00", "06:00", 130),
            Window("dag", (1, 2, 3, 4, 5), "06:00", "24:00", 100),
        ),
        overuren_grens="dag_8",
        dubbele_bemanning=True,
        nachtrit_procent=21,
    )
    data = json.loads(json.dumps(pay_rules_to_json(entered)))
    assert data["contracturen"] == "38.5"
    assert data["vensters"][0] == {
        "naam": "nacht",
        "dagen": [1, 2, 3, 4, 5],
        "van": "00:00",
        "tot": "06:00",
        "procent": 130,
    }
    assert (data["overuren_grens"], data["dubbele_bemanning"], data["nachtrit_procent"]) == (
        "dag_8",
        True,
        21,
    )
    assert pay_rules_from_json(data) == entered
    for bad in ({"geldig_vanaf": "2026-01-05", "kleur": "rood"}, {}, {"contracturen": "x"}):
        with pytest.raises(ValueError):
            pay_rules_from_json(bad)
